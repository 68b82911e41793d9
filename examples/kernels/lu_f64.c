// In-place LU decomposition without pivoting (`lu`, Doolittle): the strict lower triangle
// gets the multipliers, the upper triangle U. Returns the determinant (product of U's
// diagonal).
// TOP: lu
// RUN: [4 3 2 1 3 4 3 2 2 3 4 3 1 2 3 4]
// RUN: frand(141,-5,5)
#define N 4
double lu(double a[N][N]) {
    for (int k = 0; k < N; k++)
        for (int i = k + 1; i < N; i++) {
            double m = a[i][k] / a[k][k];
            a[i][k] = m;
            for (int j = k + 1; j < N; j++)
                a[i][j] -= m * a[k][j];
        }
    double det = 1.0;
    for (int i = 0; i < N; i++)
        det *= a[i][i];
    return det;
}
