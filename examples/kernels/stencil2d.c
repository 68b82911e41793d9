// Five-point 2-D stencil on the interior of a 6x6 grid; borders are copied.
// (Output array first, written once per pixel: CIRCT 1.62 lowers an array parameter with
// several accesses only when no array parameter follows it.)
// TOP: stencil2d
// RUN: [] rand(7,0,255)
// RUN: [] [0 0 0 0 0 0 0 0 0 0 0 0 0 0 64 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 255]
#define H 6
#define W 6
void stencil2d(unsigned short out[H][W], const unsigned char img[H][W]) {
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            unsigned short v;
            if (y == 0 || x == 0 || y == H - 1 || x == W - 1) {
                v = img[y][x];
            } else {
                unsigned s = img[y - 1][x] + img[y + 1][x] + img[y][x - 1] + img[y][x + 1];
                v = (unsigned short)(s + 4u * img[y][x]) / 8u;
            }
            out[y][x] = v;
        }
    }
}
