// Euclid's algorithm: data-dependent while loop with remainder.
// TOP: gcd
// RUN: 48 18
// RUN: 17 5
// RUN: 0 9
// RUN: 1071 462
unsigned gcd(unsigned a, unsigned b) {
    while (b != 0) {
        unsigned t = a % b;
        a = b;
        b = t;
    }
    return a;
}
