// In-place prefix sum; returns the total.
// TOP: prefix
// RUN: rand(7,-20,20)
int prefix(int x[20]) {
    for (int i = 1; i < 20; i += 1)
        x[i] += x[i - 1];
    return x[19];
}
