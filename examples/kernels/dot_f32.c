// Single-precision dot product accumulated in double (a `sdsdot`-style kernel): each float
// product is widened with extf before the double sum, which is rounded back to float.
// TOP: sdot
// RUN: frand(91,-100,100) frand(92,-100,100)
// RUN: [1e30 1 -1e30] [1 1 1]
#define N 16
float sdot(const float x[N], const float y[N]) {
    double acc = 0.0;
    for (int i = 0; i < N; i++)
        acc += (double)x[i] * y[i];
    return (float)acc;
}
