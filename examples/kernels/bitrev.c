// Bit reversal of a 16-bit value with a fixed-count loop, shifts and masks.
// TOP: bitrev
// RUN: 1
// RUN: 43981
// RUN: 65535
#include <stdint.h>
uint16_t bitrev(uint16_t x) {
    uint16_t r = 0;
    for (int i = 0; i < 16; i++) {
        r = (uint16_t)((r << 1) | (x & 1));
        x >>= 1;
    }
    return r;
}
