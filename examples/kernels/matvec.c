// Matrix-vector product y = A x over a 6x5 matrix: a 2-D array parameter read row by row.
// TOP: matvec
// RUN: rand(3,-50,50) rand(4,-20,20) []
// RUN: [1 0 0 0 0 0 1 0 0 0 0 0 1 0 0 0 0 0 1 0 0 0 0 0 1 1 1 1 1 1] [1 2 3 4 5] []
#define ROWS 6
#define COLS 5
int matvec(const int a[ROWS][COLS], const int x[COLS], int y[ROWS]) {
    int total = 0;
    for (int i = 0; i < ROWS; i++) {
        int acc = 0;
        for (int j = 0; j < COLS; j++)
            acc += a[i][j] * x[j];
        y[i] = acc;
        total += acc;
    }
    return total;
}
