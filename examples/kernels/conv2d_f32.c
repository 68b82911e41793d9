// 3x3 convolution of a float image (valid region only) with a constant smoothing kernel held
// in a local table (an internal memory initialized with float constants), plus the sum of the
// absolute responses through fabsf.
// TOP: conv2d
// RUN: frand(71,0,255) []
#include <math.h>
#define H 6
#define W 6
float conv2d(const float img[H][W], float out[H - 2][W - 2]) {
    const float k[3][3] = {{0.0625f, 0.125f, 0.0625f}, {0.125f, 0.25f, 0.125f}, {0.0625f, 0.125f, -0.0625f}};
    float total = 0.0f;
    for (int y = 0; y < H - 2; y++)
        for (int x = 0; x < W - 2; x++) {
            float acc = 0.0f;
            for (int dy = 0; dy < 3; dy++)
                for (int dx = 0; dx < 3; dx++)
                    acc += k[dy][dx] * img[y + dy][x + dx];
            out[y][x] = acc;
            total += fabsf(acc);
        }
    return total;
}
