// C as older benchmark suites write it: old-style (K&R) function definitions with their
// parameter declarations after the parameter list (a parameter not declared is an int),
// a file-scope pointer into a file-scope buffer, moved by the functions that read through it,
// post-increments through a parenthesized dereference ((*p)++), and a union in a helper the
// kernel never calls (refused only where used).
// TOP: old_style
// RUN: [9 8 7 6 5 4 3 2 1 0 11 12 13 14 15 16] 3
// RUN: rand(41,0,255) 7
unsigned char buf[16];
unsigned char *rd;
int fetched;
static int
next_byte()
{
    fetched++;
    return *rd++;
}
static int
scaled(v, k)
    int v;
    short k;
{
    return v * k;
}
static void
bump(p, by)
    int *p;
{
    (*p)++;
    *p += by;
}
union bits { float f; unsigned u; };
static unsigned
float_bits(float f)
{
    union bits b;
    b.f = f;
    return b.u;
}
int old_style(unsigned char in[16], int k) {
    for (int i = 0; i < 16; i++)
        buf[i] = in[i];
    rd = buf;
    int s = 0, count = 0;
    while (rd < buf + 16) {
        s += scaled(next_byte(), k);
        bump(&count, 2);
    }
    rd = &buf[4];
    s += next_byte() * 1000;
    return s + count + fetched * 100000;
}
