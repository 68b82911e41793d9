// Multi-dimensional arrays with initializers: local tables, a global read-only table,
// brace elision, partial initialization, and a local array initialized inside a loop.
// TOP: tables
// RUN: 0 []
// RUN: 2 []
#include <stdint.h>
#include <stdbool.h>
static const int16_t coef[2][3] = {{1, -2, 3}, {-4, 5, -6}};
const int scale = 3;
int tables(int sel, int out[2][3][2]) {
    int t[2][3][2] = {{{1, 2}, {3, 4}, {5, 6}}, {7, 8, 9}};
    uint8_t small[5] = {250, 251, 252};
    int acc = 0;
    bool flag = false;
    for (int i = 0; i < 2; i++) {
        int row[3] = {i, i * 2, sel};
        for (int j = 0; j < 3; j++) {
            for (int k = 0; k < 2; k++) {
                out[i][j][k] = t[i][j][k] * coef[i][j] + row[j] * scale;
                acc += out[i][j][k];
            }
            row[j] = 100;
        }
        flag = !flag;
    }
    for (int i = 0; i < 5; i++)
        acc += small[i] + 10;
    return acc + flag + sizeof(int32_t);
}
