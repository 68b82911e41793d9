// Sum of the lower triangle of a square matrix: an inner bound that depends on the outer index.
// TOP: triangle_sum
// RUN: rand(5,-9,9)
// RUN: [1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1]
#define N 6
int triangle_sum(const int m[N][N]) {
    int s = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j <= i; j++)
            s += m[i][j];
    return s;
}
