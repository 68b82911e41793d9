// Points in the plane to polar form and back, on doubles: the angle by atan2 and its sector,
// the radius by pow and sqrt, the point rebuilt with sin and cos, and the rest of <math.h>'s
// trigonometric, hyperbolic, exponential and logarithmic functions on the results, each a unit
// of its own. Returns the largest reconstruction error; polar holds (radius, angle) pairs.
// TOP: polar
// RUN: frand(23,-2,2) frand(29,-2,2) []
// RUN: [1 0 -1 0 0.5 -0.5 2 -2] [0 1 0 -1 0.5 -0.5 -2 2] []
#include <math.h>
#define N 8
double polar(const double xs[N], const double ys[N], double out[2 * N]) {
    double worst = 0.0;
    for (int i = 0; i < N; i++) {
        double x = xs[i], y = ys[i];
        double r = sqrt(pow(x, 2.0) + pow(y, 2.0));
        double t = atan2(y, x);
        double back = fabs(r * cos(t) - x) + fabs(r * sin(t) - y);
        worst = fmax(worst, back);
        double s = t / 3.14159265358979323846 * 4.0;
        out[2 * i] = r + exp(-r) + expm1(r / 4.0) + log(r + 1.0) + log10(r + 2.0) + cbrt(r);
        out[2 * i + 1] = round(s) + tan(t / 4.0) + asin(sin(t) / 2.0) + acos(cos(t) / 2.0)
                       + atan(t) + sinh(t / 2.0) + cosh(t / 4.0) + asinh(t) + acosh(r + 1.0)
                       + atanh(tanh(t / 8.0));
    }
    return worst;
}
