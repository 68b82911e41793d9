// Matrix multiply on two-dimensional arrays.
// TOP: matmul
// RUN: rand(4,-50,50) rand(5,-50,50) []
#define N 4
void matmul(int a[N][N], int b[N][N], int c[N][N]) {
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            int s = 0;
            for (int k = 0; k < N; k++)
                s += a[i][k] * b[k][j];
            c[i][j] = s;
        }
}
