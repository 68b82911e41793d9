// Polynomial evaluation by Horner's rule at several points: the coefficients of exp(x)'s
// Taylor series up to degree 8 in a global constant table of doubles written as fractions
// (folded at compile time with the circuit's own arithmetic).
// TOP: horner
// RUN: [0 0.5 1 -1 2 -2.5 0.125 3]
#define NPTS 8
#define DEG 8
static const double coef[DEG + 1] = {1.0, 1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040, 1.0 / 40320};
void horner(double xs[NPTS]) {
    for (int p = 0; p < NPTS; p++) {
        double x = xs[p];
        double acc = coef[DEG];
        for (int d = DEG - 1; d >= 0; d--)
            acc = acc * x + coef[d];
        xs[p] = acc;
    }
}
