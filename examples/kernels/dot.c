// Dot product with a long long accumulator.
// TOP: dot
// RUN: [1 2 3 4 5 6 7 8] [8 7 6 5 4 3 2 1] 8
// RUN: rand(1,-100000,100000) rand(2,-100000,100000) 5
#define N 8
long long dot(int a[N], int b[N], int n) {
    long long acc = 0;
    for (int i = 0; i < n; i++)
        acc += (long long)a[i] * b[i];
    return acc;
}
