// Division and remainder of negative numbers, signed and unsigned.
// TOP: divrem
// RUN: -7 2 []
// RUN: 7 -2 []
// RUN: -7 -2 []
// RUN: -100 7 []
int divrem(int a, int b, int out[8]) {
    out[0] = a / b;
    out[1] = a % b;
    out[2] = (unsigned)a / (unsigned)b;
    out[3] = (unsigned)a % (unsigned)b;
    out[4] = (short)a / 3;
    out[5] = (long long)a % -3;
    out[6] = -a / b;
    out[7] = a / 4 + a % 4;
    return out[0] * 10 + out[1];
}
