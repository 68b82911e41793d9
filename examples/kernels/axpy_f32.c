// y = a * x + y on float vectors (`saxpy`) with a scalar float parameter; returns how many
// elements became negative (a float comparison counted in an int).
// TOP: saxpy
// RUN: 2.5 frand(101,-10,10) frand(102,-10,10)
// RUN: -1 [1 2 3] [1 2 3]
#define N 16
int saxpy(float a, const float x[N], float y[N]) {
    int neg = 0;
    for (int i = 0; i < N; i++) {
        y[i] = a * x[i] + y[i];
        if (y[i] < 0.0f)
            neg++;
    }
    return neg;
}
