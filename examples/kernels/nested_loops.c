// Nested loops with break, continue and a triangular iteration space.
// TOP: nested
// RUN: [] 10
// RUN: [] 3
int nested(int out[10][10], int n) {
    int total = 0;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j <= i; j++) {
            if ((i + j) % 3 == 0)
                continue;
            if (j > 6)
                break;
            out[i][j] = i * 10 + j;
            total += out[i][j];
        }
    }
    int i = 0;
    for (;;) {
        if (++i >= n)
            break;
        total -= i;
    }
    return total;
}
