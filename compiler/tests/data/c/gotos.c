// goto and labels: a forward jump out of two nested loops, a backward jump that forms a
// loop, a label on a loop, a label on an empty statement closing a block; abs/labs/llabs, <limits.h>.
// TOP: gotos
// RUN: [3 -8 5 12 -1 7 0 9] 12
// RUN: [3 -8 5 12 -1 7 0 9] 100
// RUN: [-2147483648 2147483647 -5 5 0 1 -1 2] -1
#include <stdlib.h>
#include <stdio.h>
#include <limits.h>

int gotos(int a[8], int key) {
    int s = 0;
    int k = 0;
    long t = 0;
    // Search a 2-D view of `a` for `key`; leave both loops at once.
    for (int i = 0; i < 2; i++) {
        for (int j = 0; j < 4; j++) {
            if (a[i * 4 + j] == key)
                goto found;
            s += abs(a[i * 4 + j]) % 1000;
        }
    }
    s = -s;
found:
    // A loop made of a backward goto: sum of |x| bounded by INT_MAX.
again:
    t += labs((long)a[k]);
    k++;
    if (k < 8 && t < INT_MAX)
        goto again;
    // A label naming a loop, and a label closing a block.
outer:
    for (int i = 0; i < 8; i++) {
        if (a[i] == 0)
            continue;
        s ^= (int)(llabs((long long)a[i] * 3) & 0xffff);
        if (s < 0) {
            s = -s;
            goto done;
        }
    done:;
    }
    return s + (int)(t & 0x7fffffff) + (key < 0 ? 1 : 0);
}
