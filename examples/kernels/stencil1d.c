// Three-point 1-D stencil (1 2 1)/4 with clamped borders, into a separate output array.
// (Output array first: CIRCT 1.62 lowers an array parameter with several accesses only
// when no array parameter follows it.)
// TOP: stencil1d
// RUN: [] rand(6,0,1000)
// RUN: [] [0 0 0 16 0 0 0 0 0 0 0 0]
#define N 12
void stencil1d(int out[N], const int in[N]) {
    for (int i = 0; i < N; i++) {
        int l = i > 0 ? in[i - 1] : in[i];
        int r = i < N - 1 ? in[i + 1] : in[i];
        out[i] = (l + 2 * in[i] + r) >> 2;
    }
}
