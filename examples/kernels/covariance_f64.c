// Covariance of M variables over N samples (`covariance`): column means, centring in place,
// then the upper triangle of the covariance matrix mirrored to the lower one. Integer counts
// convert to double for the divisions.
// TOP: covariance
// RUN: frand(41,-3,3) []
// RUN: [1 2 3 2 4 6 3 6 9 4 8 12 5 10 15 6 12 18] []
#define N 6
#define M 3
void covariance(double data[N][M], double cov[M][M]) {
    double mean[M];
    for (int j = 0; j < M; j++) {
        mean[j] = 0.0;
        for (int i = 0; i < N; i++)
            mean[j] += data[i][j];
        mean[j] /= N;
    }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++)
            data[i][j] -= mean[j];
    for (int i = 0; i < M; i++)
        for (int j = i; j < M; j++) {
            double s = 0.0;
            for (int k = 0; k < N; k++)
                s += data[k][i] * data[k][j];
            cov[i][j] = s / (N - 1);
            cov[j][i] = cov[i][j];
        }
}
