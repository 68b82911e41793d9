// Short-circuit evaluation with side effects in the right operand.
// TOP: sc
// RUN: 0 5 []
// RUN: 3 0 []
// RUN: -2 -2 []
int sc(int a, int b, int log[8]) {
    int cnt = 0;
    int r = 0;
    if (a && b++)
        r += 1;
    if (a || cnt++)
        r += 2;
    r += (a > 0 && ++cnt > 0) ? 4 : 8;
    int k = 0;
    while (k < 8 && (log[k] = a * k + b) != 7)
        k++;
    int t = a ? b++ : cnt--;
    int u = (a == b) || (log[0]++ == 0);
    return r * 1000000 + b * 10000 + cnt * 100 + k * 10 + t + u;
}
