// Mixed signed/unsigned comparisons and arithmetic (usual arithmetic conversions).
// TOP: mixed
// RUN: -1 1 []
// RUN: 5 4000000000 []
// RUN: -100 0 []
int mixed(int s, unsigned u, int out[8]) {
    out[0] = s < u;
    out[1] = (long long)s < u;
    out[2] = s < (int)u;
    out[3] = (unsigned short)s > 1000;
    out[4] = (short)s < (unsigned char)u;
    out[5] = (s + u) > 10u;
    out[6] = -1 < 0u;
    out[7] = (long long)u * s < 0;
    unsigned long long w = s;
    return (int)(w >> 40) + (u > s ? 1 : 2);
}
