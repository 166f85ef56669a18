/* ex_ch03_atomics.h - forced into exercise ch03's build (-include, from
 * chapters/ch03_threads/chapter.mk), so the test can make a race certain
 * instead of lucky. While ex_atomic_pause is set, every atomic_load in the
 * student's code waits, after reading, until another thread has read too (or
 * 20 ms pass): a counter read, then written back plus one, then always has two
 * threads holding the same row. A single read-modify-write (atomic_fetch_add,
 * a compare-and-swap loop, a mutex) is not affected. */
#ifndef EX_CH03_ATOMICS_H
#define EX_CH03_ATOMICS_H

#include <stdatomic.h>

extern atomic_int ex_atomic_pause;
void ex_atomic_after_load(void);

#undef atomic_load
#define atomic_load(p)                                                                                                 \
    __extension__({                                                                                                    \
        __auto_type ex_value_ = atomic_load_explicit((p), memory_order_seq_cst);                                       \
        ex_atomic_after_load();                                                                                        \
        ex_value_;                                                                                                     \
    })

#endif
