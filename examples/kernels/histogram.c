// Histogram of bytes; read-modify-write on a memory.
// TOP: histogram
// RUN: rand(3,0,255) [] 32
// RUN: [1 1 1 2 3 250 250] [] 7
#include <stdint.h>
void histogram(const uint8_t data[32], unsigned short hist[256], int n) {
    for (int i = 0; i < n; ++i)
        hist[data[i]]++;
}
