// char/short overflow, truncation and integer promotion.
// TOP: cs
// RUN: 100 30000 []
// RUN: -128 -32768 []
// RUN: 255 65535 []
int cs(int x, int y, int out[10]) {
    char c = x;
    unsigned char uc = x;
    short s = y;
    unsigned short us = y;
    signed char sc2 = c + c;
    c += 100;
    s *= 3;
    us += 40000;
    out[0] = c;
    out[1] = uc;
    out[2] = s;
    out[3] = us;
    out[4] = sc2;
    out[5] = uc * uc;
    out[6] = (unsigned char)(uc + 1);
    out[7] = ~uc;
    out[8] = (char)(x * 3) >> 1;
    _Bool b = y;
    out[9] = b + (_Bool)(x & 256);
    return c * s;
}
