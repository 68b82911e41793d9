// Shifts of signed and unsigned operands of several widths.
// TOP: shifts
// RUN: -12345 4000000000 5
// RUN: 77 1 31
// RUN: -1 255 0
#include <stdint.h>
long long shifts(int a, uint32_t u, int n) {
    int r1 = a >> 3;
    unsigned r2 = u >> n;
    int r3 = a << 2;
    uint64_t r4 = (uint64_t)u << 20;
    int64_t r5 = (int64_t)a << 33 >> 35;
    uint8_t b = 0x81;
    int r6 = b << 4;
    int r7 = (int8_t)b >> 2;
    u >>= 1;
    a <<= 1;
    return r1 + r2 + r3 + (long long)(r4 >> 7) + r5 + r6 + r7 + u + a + (1u << n);
}
