// Structs: a typedef'd struct and a tagged one, nested structs and an array member, local
// struct variables with initializers, a local array of structs filled from the inputs, a
// constant global table of structs (brace elision), struct parameters by value and by
// pointer (to a variable and to an array element), member writes through '->', struct
// assignment (a swap), a pointer walking an array of structs, sizeof of a struct and of
// expressions, a prototype with unnamed parameters, and an enum.
// TOP: structs
// RUN: [3 1 4 1 5 9 2 6] [2 7 1 8 2 8 1 8] []
// RUN: rand(21,-20,20) rand(22,-20,20) []
#include <stdint.h>
#define N 8
enum axis { AX_X, AX_Y = 4, AX_Z };
typedef struct {
    int16_t x, y;
} point;
struct segment {
    point from, to;
    int weight[2];
};
static const struct segment table[3] = {{{0, 0}, {1, 1}, {1, 2}}, {2, 3, 4, 5, 6, 7}, {{-1}}};
static int dot(point, point);
static int dot(point a, point b) { return a.x * b.x + a.y * b.y; }
static void nudge(point *p, int d) {
    p->x += d;
    (*p).y -= d;
}
static int length2(const struct segment *s) {
    int dx = s->to.x - s->from.x, dy = s->to.y - s->from.y;
    return (dx * dx + dy * dy) * s->weight[0] + s->weight[1];
}
int structs(int xs[N], int ys[N], int out[N]) {
    point pts[N];
    for (int i = 0; i < N; i++) {
        pts[i].x = xs[i];
        pts[i].y = ys[i];
    }
    point origin = {1, -1};
    int total = 0;
    for (int i = 0; i < N; i++) {
        nudge(&pts[i], i);
        out[i] = dot(pts[i], origin) + length2(&table[i % 3]);
    }
    point t = pts[0];
    pts[0] = pts[N - 1];
    pts[N - 1] = t;
    nudge(&origin, 3);
    struct segment s = {origin, pts[2], {AX_Y, AX_Z}};
    total += length2(&s);
    for (point *p = pts; p < pts + N; p++)
        total = total * 3 + p->x - p->y;
    total += (int)(sizeof pts / sizeof pts[0]) + (int)sizeof(s.weight) * 10;
    return total + (int)sizeof(struct segment) * 100 + (int)sizeof(point);
}
