// Loop-carried memory dependency a[i] = a[i-1] + k: every load reads the previous store.
// TOP: carried
// RUN: [5] 3
// RUN: rand(9,-100,100) -7
#define N 10
int carried(int a[N], int k) {
    for (int i = 1; i < N; i++)
        a[i] = a[i - 1] + k;
    return a[N - 1];
}
