// Population count by clearing the lowest set bit (Kernighan): trip count = number of ones.
// TOP: popcount
// RUN: 0
// RUN: 4294967295
// RUN: 2863311530
#include <stdint.h>
int popcount(uint32_t x) {
    int n = 0;
    while (x) {
        x &= x - 1;
        n++;
    }
    return n;
}
