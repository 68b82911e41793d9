// Pointers into arrays: parameters bound to sub-arrays (&a[k], a + k, a row of a 2-D array),
// a walking pointer (*p++) compared against an end pointer, pointer differences, a pointer
// to rows, pointer increments by more than one, an output parameter (&x), const pointers,
// a local pointer chosen by a condition between two positions of one array, and sizeof of
// array parameters (pointers in C).
// TOP: pointers
// RUN: [3 -1 4 1 -5 9 2 -6 5 3] [1 2 3 4 5 6 7 8 9 10 11 12] []
// RUN: rand(11,-50,50) rand(12,0,9) []
#define N 10
static int sum(const int *p, int n) {
    int s = 0;
    for (int i = 0; i < n; i++)
        s += p[i];
    return s;
}
static void negate_evens(int *p, const int *end) {
    while (p < end) {
        *p = -*p;
        p += 2;
    }
}
static void min_max(const int *p, int n, int *lo, int *hi) {
    *lo = *p;
    *hi = *p;
    for (const int *q = p + 1; q != p + n; q++) {
        if (*q < *lo)
            *lo = *q;
        if (*q > *hi)
            *hi = *q;
    }
}
static int row_sum(const int (*rows)[4], int r) {
    return sum(rows[r], 4);
}
int pointers(int a[N], int m[3][4], int out[N]) {
    int total = sum(&a[2], 3) * 100 + sum(a + 5, 5);
    int lo, hi;
    min_max(a, N, &lo, &hi);
    int *w = out;
    const int *r = a;
    const int *end = a + N;
    int positives = 0;
    while (r < end) {
        if (*r > 0)
            positives++;
        *w++ = *r++ * 2;
    }
    negate_evens(out, out + N);
    int *mid = a[0] > a[N - 1] ? &a[1] : &a[N - 2];
    total += *mid + (int)(w - out) + (int)(end - r);
    int *cell = &m[1][0];
    total += cell[3] * 1000 + *(cell + 5);
    for (int i = 0; i < 3; i++)
        total += row_sum(m, i);
    // An array parameter is a pointer: sizeof gives 8 (a row of m keeps its size).
    total += (int)sizeof(a) * 10000 + (int)sizeof(m[0]) * 100000;
    return total + lo * 7 + hi * 11 + positives;
}
