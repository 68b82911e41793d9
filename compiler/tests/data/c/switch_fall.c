// switch with fallthrough, default in the middle, break and continue inside a loop.
// TOP: sw
// RUN: [0 1 2 3 4 5 6 7 8 9 -1 100] []
int sw(const int ops[12], int res[12]) {
    int acc = 0;
    for (int i = 0; i < 12; i++) {
        int v = 0;
        switch (ops[i]) {
        case 0:
            v += 1;
        case 1:
            v += 10;
            break;
        case 2:
        case 3:
            v = 100;
        default:
            v += 1000;
            break;
        case 5:
            v = 5;
            continue;
        case 7:
            v = -7;
        case 8: {
            v *= 3;
        }
        }
        res[i] = v;
        acc += v;
    }
    switch (acc & 3) {
    case 1: acc += 1;
    }
    return acc;
}
