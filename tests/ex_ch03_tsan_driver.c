/* ex_ch03_tsan_driver.c - built by test_ex_ch03 with the student's render.c
 * under ThreadSanitizer: renders a small image on 8 threads, a few times. Any
 * data race (a generator state shared by threads, a plain int as the row
 * counter) ends it with TSan's report and exit status 66. */
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
    image img;
    if (image_alloc(&img, 256, 64) != 0) /* rows long enough that threads render at the same time */
        return 2;
    for (int i = 0; i < 4; i++)
        ex_render(&img, 4, 8);
    image_free(&img);
    puts("no data race");
    return 0;
}
