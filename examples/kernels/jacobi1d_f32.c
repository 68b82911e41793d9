// One-dimensional Jacobi relaxation (`jacobi-1d`): T sweeps of a three-point average between
// two float arrays, with the constant 0.33333f as a float literal.
// TOP: jacobi1d
// RUN: frand(51,0,100) []
// RUN: [0 0 0 0 0 0 0 100 0 0 0 0 0 0 0 0] []
#define N 16
#define T 4
void jacobi1d(float a[N], float b[N]) {
    for (int t = 0; t < T; t++) {
        for (int i = 1; i < N - 1; i++)
            b[i] = 0.33333f * (a[i - 1] + a[i] + a[i + 1]);
        for (int i = 1; i < N - 1; i++)
            a[i] = 0.33333f * (b[i - 1] + b[i] + b[i + 1]);
    }
}
