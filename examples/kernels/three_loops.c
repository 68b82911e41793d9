// Three loops in series, three iterations each, on one unsigned value: the kernel that shows
// task pipelining (several invocations in flight, one per loop).
// TOP: three_loops
// RUN: 1
// RUN: 305419896
unsigned three_loops(unsigned v) {
    for (int i = 0; i < 3; i++)
        v = (v ^ 0x1234) ^ (v >> 16);
    for (int i = 0; i < 3; i++)
        v = (v ^ 0x1234) ^ (v >> 16);
    for (int i = 0; i < 3; i++)
        v = (v ^ 0x1234) ^ (v >> 16);
    return v;
}
