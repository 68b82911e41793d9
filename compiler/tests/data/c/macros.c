// Object-like and function-like macros, conditionals, typedefs, stdint/stdbool names,
// comma operator, compound assignments and pre/post increments on array elements.
// TOP: macros
// RUN: rand(9,-1000,1000) 7
#include <stdint.h>
#include <stdbool.h>
#define SIZE 10
#define SQ(x) ((x) * (x))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define ABS(x) ((x) < 0 ? -(x) : (x))
#ifdef UNDEFINED_THING
#error should not happen
#else
#define MODE 2
#endif
#if MODE
#define BONUS 5
#endif
typedef int32_t acc_t;
acc_t macros(int16_t v[SIZE], uint16_t k) {
    acc_t best = INT32_MIN;
    bool any = false;
    for (int i = 0, j = SIZE - 1; i < j; i++, j--) {
        acc_t s = SQ(v[i] % 100) - ABS(v[j]);
        best = MAX(best, s);
        any |= s > 0;
        v[i] ^= k;
        v[j] -= v[i]++;
        --v[j];
        v[i] <<= 1;
        v[j] |= 3;
        v[i] %= 1000;
        v[j] &= ~8;
    }
    return best + any * BONUS + MODE;
}
