/* ex_ch03_ubsan_driver.c - built by test_ex_ch03 with the student's render.c
 * under AddressSanitizer + UndefinedBehaviorSanitizer (-fno-sanitize-recover):
 * runs the generator from seeds whose first products overflow 32 bits, every
 * row seed the tests use, and a small render on 3 threads. Undefined behaviour
 * (an LCG in signed int: 214013 * state overflows, which C leaves undefined)
 * or a stray memory access ends it with the sanitizer's report and a non-zero
 * exit status, whether or not the numbers came out right. */
#include "render.h"

#include <stdatomic.h>
#include <stdio.h>

/* The atomics hook (tests/ex_ch03_atomics.h, forced into this build as into
 * the test's, so the answer runs the same code here): not watched here. */
void ex_atomic_event(int kind, const volatile void *p, long long before, long long after)
{
    (void)kind, (void)p, (void)before, (void)after;
}

int main(void)
{
    const uint32_t seeds[] = {1, 7, 12345, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu};
    float sum = 0;
    for (int k = 0; k < 6; k++) {
        uint32_t state = seeds[k];
        for (int i = 0; i < 1000; i++)
            sum += ex_random(&state);
    }
    for (int row = 0; row < 4096; row++) {
        uint32_t state = ex_row_seed(row);
        sum += ex_random(&state);
    }
    image img;
    if (image_alloc(&img, 33, 31) != 0)
        return 2;
    ex_render(&img, 4, 3);
    image_free(&img);
    printf("no undefined behaviour (sum of draws %.1f)\n", sum);
    return 0;
}
