// While loop with a data-dependent trip count: how many halvings until x drops below t.
// TOP: halvings
// RUN: 1000 3
// RUN: 5 9
// RUN: 4000000000 1
unsigned halvings(unsigned x, unsigned t) {
    unsigned n = 0;
    while (x >= t && x != 0) {
        x >>= 1;
        n++;
    }
    return n;
}
