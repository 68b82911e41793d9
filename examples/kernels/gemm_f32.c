// Single-precision matrix product with scaling, C = alpha * A * B + beta * C, in the style of
// the BLAS/PolyBench `gemm` kernel: float arrays (memref<Nxf32>), float scalar parameters and
// float multiply-accumulate without contraction (each product rounded before the sum).
// TOP: gemm
// RUN: 1.5 -0.25 frand(21,-4,4) frand(22,-4,4) frand(23,-2,2)
// RUN: 1 0 [1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1] frand(3,-10,10) []
#define N 4
void gemm(float alpha, float beta, float a[N][N], float b[N][N], float c[N][N]) {
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            float acc = 0.0f;
            for (int k = 0; k < N; k++)
                acc += a[i][k] * b[k][j];
            c[i][j] = alpha * acc + beta * c[i][j];
        }
}
