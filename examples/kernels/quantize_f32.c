// Clamps float samples to [-1, 1] with fminf/fmaxf and quantizes them to signed 8-bit codes
// (scaling, rounding half away from zero with copysignf, truncating float-to-int casts),
// then measures the quantization error. Returns the largest absolute error.
// TOP: quantize
// RUN: frand(131,-2,2) [] []
// RUN: [0.5 -0.5 1 -1 3 -3 0.00390625 -0.0078125 nan] [] []
#include <math.h>
#define N 16
float quantize(const float x[N], signed char q[N], float err[N]) {
    float worst = 0.0f;
    for (int i = 0; i < N; i++) {
        float c = fminf(fmaxf(x[i], -1.0f), 1.0f);
        float s = c * 127.0f;
        int code = (int)(s + copysignf(0.5f, s));
        q[i] = (signed char)code;
        err[i] = c - q[i] / 127.0f;
        worst = fmaxf(worst, fabsf(err[i]));
    }
    return worst;
}
