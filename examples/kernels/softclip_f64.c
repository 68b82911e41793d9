// Piecewise signal shaping on doubles: a soft clipper (x - x^3/3 inside [-1, 1], the sign of x
// outside), a data-dependent branch on float comparisons, then a running peak and a
// zero-crossing count. Returns the peak; out holds the shaped signal.
// TOP: softclip
// RUN: frand(161,-3,3) []
// RUN: [0.5 -0.5 2 -2 1 -1 0 -0] []
#include <math.h>
#define N 16
double softclip(const double x[N], double out[N]) {
    double peak = 0.0;
    int crossings = 0;
    for (int i = 0; i < N; i++) {
        double v = x[i];
        double y;
        if (v >= -1.0 && v <= 1.0)
            y = v - v * v * v / 3.0;
        else
            y = copysign(2.0 / 3.0, v);
        out[i] = y;
        peak = fmax(peak, fabs(y));
        if (i > 0 && (out[i - 1] < 0.0) != (y < 0.0))
            crossings++;
    }
    return peak + crossings;
}
