// File-scope variables: a constant table (an initialized memory), mutable global scalars and
// arrays shared by the functions that use them (a counter, a running state, a histogram),
// a global read and written through a pointer, and initial values the kernel starts from.
// TOP: globals
// RUN: [5 3 5 1 0 7 3 5] 2
// RUN: rand(31,0,7) 5
#define N 8
static const int weights[8] = {1, 2, 4, 8, 16, 32, 64, 128};
int calls;
int state = 17;
int hist[8];
static long acc[2] = {100, -100};
static int step(int v) {
    calls++;
    state = state * 31 + v;
    hist[v & 7] += 1;
    return weights[v & 7];
}
static void bump(int *p) { *p += 1000; }
int globals(int in[N], int rounds) {
    int s = 0;
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < N; i++)
            s += step(in[i] + r);
    bump(&hist[3]);
    acc[rounds & 1] += s;
    int peak = 0;
    for (int i = 0; i < 8; i++)
        if (hist[i] > peak)
            peak = hist[i];
    return s + calls * 3 + (state & 0xffff) + peak + (int)acc[0] + (int)acc[1];
}
