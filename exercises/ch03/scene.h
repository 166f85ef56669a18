/* scene.h - exercise ch03's picture (given; do not change): a bright disc over
 * a dark gradient. A pixel's value is the average of the scene at spp random
 * points inside the pixel, so its edges are antialiased by random sampling. */
#ifndef EX_CH03_SCENE_H
#define EX_CH03_SCENE_H

static inline float scene_value(float px, float py, int width, int height)
{
    float cx = px - 0.5f * (float)width, cy = py - 0.5f * (float)height;
    float r = 0.35f * (float)(width < height ? width : height);
    if (cx * cx + cy * cy < r * r)
        return 220.0f;
    return 40.0f + 100.0f * py / (float)height;
}

#endif
