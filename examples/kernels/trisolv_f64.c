// Forward substitution: solves L x = b for a lower-triangular double-precision matrix L
// (`trisolv`), one division per row. Returns the last unknown; x holds the solution.
// TOP: trisolv
// RUN: [4 0 0 0 0 0 1 3 0 0 0 0 -2 0.5 5 0 0 0 1 1 1 2 0 0 3 -1 0.25 2 6 0 1 2 3 4 5 7] [1 2 3 4 5 6] []
// RUN: frand(31,1,5) frand(32,-10,10) []
#define N 6
double trisolv(const double l[N][N], const double b[N], double x[N]) {
    for (int i = 0; i < N; i++) {
        double s = b[i];
        for (int j = 0; j < i; j++)
            s -= l[i][j] * x[j];
        x[i] = s / l[i][i];
    }
    return x[N - 1];
}
