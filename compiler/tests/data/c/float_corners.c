// Float corners of the C front end: conversions between every integer type and float/double
// (truncation toward zero, unsigned int through a 64-bit conversion), double-to-float
// rounding, _Bool of NaN, comparisons with NaN (ordered, != unordered), ! && ?: on floats,
// ++ on a float, compound assignment of a double into an int, division by zero (IEEE
// infinities and NaN), -0.0, INFINITY, hexadecimal and suffixed literals, a float global.
// TOP: corners
// RUN: [1.5 -2.75 nan inf -0 3e9 0.1 -1e-40] [] []
// RUN: frand(7,-300,300) [] []
// RUN: [nan(0x7fa00123) -nan nan(0xffc0abcd) -inf 0 1 nan(0x7f800001) 2] [] []
#include <math.h>
static const float third = 1.0f / 3;
void corners(const float x[8], int ints[16], double out[16]) {
    float a = x[0], b = x[1], n = x[2];
    ints[0] = (int)a + (int)b;
    ints[1] = (signed char)b + (short)(a * 100.0f);
    ints[2] = (int)(unsigned char)(a * 10.0f);
    ints[3] = (int)(x[5] > 0 && x[5] < 4e9f ? (unsigned)x[5] : 7u);
    ints[4] = (int)((long)(x[5] * 2.0f) / 1000);
    ints[5] = (_Bool)n + (_Bool)x[4] * 2 + (_Bool)x[7] * 4;
    ints[6] = (n < a) + (n > a) * 2 + (n == n) * 4 + (n != n) * 8 + (a <= a) * 16;
    ints[7] = !a + !x[4] * 2 + (a && b) * 4 + (x[4] || n) * 8;
    int acc = 10;
    acc += 0.7;
    acc -= b;
    ints[8] = acc;
    float f = a;
    f++;
    --f;
    f += 1e-8;
    ints[9] = f == a;
    ints[10] = (unsigned short)(b < 0 ? -b * 1000 : b);
    ints[11] = (long long)x[6] * 0 + (long long)(x[6] * 1e6);
    out[0] = a / x[4];
    out[1] = -a / x[4];
    out[2] = x[4] / x[4];
    out[3] = (double)(float)(0.1 + x[6]);
    out[4] = x[3] - x[3];
    out[5] = -x[4];
    out[6] = INFINITY;
    out[7] = 0x1.8p-3 + 0x10p0f;
    out[8] = third;
    out[9] = n > 0 ? 1.0f : 2.0;
    out[10] = (char)65 + 0.5f;
    out[11] = 1u + 0.25f;
    out[12] = -1 + (unsigned long)3 + 0.5;
    out[13] = x[7] * 1e30;
    out[14] = (float)1e39;
    out[15] = 1e-46f;
}
