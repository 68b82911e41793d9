// Five-point 2-D stencil on the interior of a 6x6 grid; borders are copied.
// TOP: stencil2d
// RUN: rand(7,0,255) []
#define H 6
#define W 6
void stencil2d(const unsigned char img[H][W], unsigned short out[H][W]) {
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            if (y == 0 || x == 0 || y == H - 1 || x == W - 1) {
                out[y][x] = img[y][x];
            } else {
                unsigned s = img[y - 1][x] + img[y + 1][x] + img[y][x - 1] + img[y][x + 1];
                out[y][x] = (unsigned short)(s + 4u * img[y][x]) / 8u;
            }
        }
    }
}
