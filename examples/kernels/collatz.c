// Data-dependent trip count; do/while and continue.
// TOP: collatz
// RUN: 27
// RUN: 1
// RUN: 97
int collatz(unsigned n) {
    int steps = 0;
    while (n != 1) {
        if (n % 2 == 0) {
            n /= 2;
            steps++;
            continue;
        }
        n = 3 * n + 1;
        steps++;
    }
    int k = 0;
    do {
        k += 2;
    } while (k < steps);
    return steps * 1000 + k;
}
