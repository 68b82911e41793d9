// A kernel calling helper functions: scalar and array parameters, sub-arrays,
// early returns in helpers, a void helper, and a prototype before the definition.
// (`sums` first, written once per row: CIRCT 1.62 lowers an array parameter with several
// accesses only when no array parameter follows it.)
// TOP: kernel
// RUN: [] rand(8,-9,9)
// RUN: [] [1 2 3 4 0 5 6 7 -9 -9 -9 -9]
#define ROWS 3
#define COLS 4
static int clamp(int v, int lo, int hi);
static int row_sum(const int r[COLS]) {
    int s = 0;
    for (int j = 0; j < COLS; j++)
        s += r[j];
    return s;
}
static void scale(int r[COLS], int k) {
    for (int j = 0; j < COLS; j++) {
        if (r[j] == 0)
            return;
        r[j] *= k;
    }
}
static int clamp(int v, int lo, int hi) {
    if (v < lo) return lo;
    if (v > hi) return hi;
    return v;
}
int kernel(int sums[ROWS], int m[ROWS][COLS]) {
    int total = 0;
    for (int i = 0; i < ROWS; i++) {
        scale(m[i], i + 1);
        int s = clamp(row_sum(m[i]), -20, 20);
        sums[i] = s;
        total += s;
    }
    return clamp(total, -15, 15) + row_sum(m[1]);
}
