// Newton's iteration for the square root, x' = (x + a / x) / 2, until two iterates agree to a
// relative tolerance (fabs) or 50 steps; a data-dependent loop over doubles. Returns the
// root; non-positive inputs give 0.
// TOP: newton_sqrt
// RUN: 2.0
// RUN: 12345.678
// RUN: 0.0001
// RUN: -4
#include <math.h>
double newton_sqrt(double a) {
    if (a <= 0.0)
        return 0.0;
    double x = a > 1.0 ? a : 1.0;
    for (int it = 0; it < 50; it++) {
        double next = 0.5 * (x + a / x);
        if (fabs(next - x) <= 1e-12 * next) {
            x = next;
            break;
        }
        x = next;
    }
    return x;
}
