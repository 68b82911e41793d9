// Neural-network activation functions on floats, each a <math.h> unit of its own: the logistic
// sigmoid (expf), tanhf, softplus (log1pf of expf), GELU (erff), a 4-bit quantizer (roundf,
// fmaxf/fminf) and a few more shapes (exp2f, log2f, powf, cbrtf, erfcf, floorf, ceilf, truncf,
// rintf, fmodf). Returns the sum of the quantized levels; out holds one activation per input.
// TOP: activations
// RUN: frand(7,-4,4) []
// RUN: [0 -0 0.5 -0.5 2.5 -2.5 3.75 -3.75 1 -1 10 -10 0.125 -0.125 4 -4] []
#include <math.h>
#define N 16
float activations(const float x[N], float out[N]) {
    float levels = 0.0f;
    for (int i = 0; i < N; i++) {
        float v = x[i];
        float y;
        switch (i % 8) {
        case 0: y = 1.0f / (1.0f + expf(-v)); break;
        case 1: y = tanhf(v); break;
        case 2: y = log1pf(expf(v)); break;
        case 3: y = 0.5f * v * (1.0f + erff(v * 0.70710678f)); break;
        case 4: y = exp2f(v) - log2f(fabsf(v) + 1.0f); break;
        case 5: y = powf(fabsf(v), 1.5f) + cbrtf(v); break;
        case 6: y = erfcf(v) + floorf(v) - ceilf(v); break;
        default: y = truncf(v) + rintf(v) + fmodf(v, 1.5f); break;
        }
        out[i] = y;
        levels += roundf(fminf(fmaxf(y * 4.0f, -8.0f), 7.0f));
    }
    return levels;
}
