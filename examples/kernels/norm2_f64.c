// Euclidean norm with sqrt and normalization of the vector in place (a `nrm2`-style kernel);
// a zero vector is left as it is. Returns the norm.
// TOP: normalize
// RUN: frand(81,-20,20)
// RUN: [3 4]
// RUN: []
#include <math.h>
#define N 8
double normalize(double v[N]) {
    double ss = 0.0;
    for (int i = 0; i < N; i++)
        ss += v[i] * v[i];
    double nrm = sqrt(ss);
    if (nrm > 0.0)
        for (int i = 0; i < N; i++)
            v[i] = v[i] / nrm;
    return nrm;
}
