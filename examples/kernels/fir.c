// 4-tap FIR filter y[n] = sum h[k] * x[n-k] over a block of samples (zero history before
// the first one); the taps are a local constant array, an internal memory with initial
// contents. Returns the sum of |y[n]|.
// TOP: fir
// RUN: [] [1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0]
// RUN: [] rand(11,-1000,1000)
#define N 16
#define TAPS 4
int fir(int y[N], const short x[N]) {
    const short h[TAPS] = {3, -1, 4, 2};
    int energy = 0;
    for (int n = 0; n < N; n++) {
        int acc = 0;
        for (int k = 0; k < TAPS; k++)
            if (n - k >= 0)
                acc += h[k] * x[n - k];
        y[n] = acc;
        energy += acc < 0 ? -acc : acc;
    }
    return energy;
}
