// Second-order IIR filter (a direct-form-I biquad) over a block of float samples: two feedback
// terms make each output depend on the previous two, a loop-carried float recurrence.
// TOP: biquad
// RUN: frand(121,-1,1) []
// RUN: [1] []
#define N 24
void biquad(const float x[N], float y[N]) {
    const float b0 = 0.2929f, b1 = 0.5858f, b2 = 0.2929f;
    const float a1 = -0.0f, a2 = 0.1716f;
    float x1 = 0.0f, x2 = 0.0f, y1 = 0.0f, y2 = 0.0f;
    for (int n = 0; n < N; n++) {
        float v = b0 * x[n] + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2;
        x2 = x1;
        x1 = x[n];
        y2 = y1;
        y1 = v;
        y[n] = v;
    }
}
