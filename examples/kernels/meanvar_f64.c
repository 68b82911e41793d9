// Mean and variance of integer samples in double precision (two passes); the integers convert
// with sitofp, the mean goes to out[0] and the variance (divided by n - 1) is returned.
// TOP: meanvar
// RUN: rand(111,-1000,1000) []
// RUN: [5 5 5 5 5 5 5 5 5 5 5 5 5 5 5 5 5 5 5 5] []
#define N 20
double meanvar(const int x[N], double out[1]) {
    double sum = 0;
    for (int i = 0; i < N; i++)
        sum += x[i];
    double mean = sum / N;
    double ss = 0;
    for (int i = 0; i < N; i++) {
        double d = x[i] - mean;
        ss += d * d;
    }
    out[0] = mean;
    return ss / (N - 1);
}
