// Two-dimensional Jacobi relaxation (`jacobi-2d`): five-point stencil sweeps between two float
// grids; the coefficient 0.2 is a double literal, so each average is computed in double and
// rounded to float on the store (C's usual arithmetic conversions).
// TOP: jacobi2d
// RUN: frand(61,-50,50) []
#define N 6
#define T 2
void jacobi2d(float a[N][N], float b[N][N]) {
    for (int t = 0; t < T; t++) {
        for (int i = 1; i < N - 1; i++)
            for (int j = 1; j < N - 1; j++)
                b[i][j] = 0.2 * (a[i][j] + a[i][j - 1] + a[i][j + 1] + a[i + 1][j] + a[i - 1][j]);
        for (int i = 1; i < N - 1; i++)
            for (int j = 1; j < N - 1; j++)
                a[i][j] = b[i][j];
    }
}
