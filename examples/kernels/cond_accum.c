// If-inside-loop accumulation: positives summed, negatives counted, zeros end the scan early.
// TOP: cond_accum
// RUN: [3 -1 4 -1 5 -9 2 6 0 7] 10
// RUN: rand(8,-20,20) 10
#define N 10
int cond_accum(const int v[N], int n) {
    int pos = 0, neg = 0;
    for (int i = 0; i < n; i++) {
        if (v[i] > 0)
            pos += v[i];
        else if (v[i] < 0)
            neg++;
        else
            break;
    }
    return pos * 16 + neg;
}
