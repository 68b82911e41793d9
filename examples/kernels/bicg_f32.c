// BiCG sub-kernel (`bicg`): s = A^T r and q = A p in one pass over a float matrix.
// TOP: bicg
// RUN: frand(151,-3,3) frand(152,-1,1) frand(153,-1,1) [] []
#define N 5
#define M 4
void bicg(const float a[N][M], const float r[N], const float p[M], float s[M], float q[N]) {
    for (int j = 0; j < M; j++)
        s[j] = 0.0f;
    for (int i = 0; i < N; i++) {
        q[i] = 0.0f;
        for (int j = 0; j < M; j++) {
            s[j] = s[j] + r[i] * a[i][j];
            q[i] = q[i] + a[i][j] * p[j];
        }
    }
}
