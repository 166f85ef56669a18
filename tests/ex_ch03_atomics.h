/* ex_ch03_atomics.h - forced into every build of exercise ch03's answer
 * (-include: the test's, from chapters/ch03_threads/chapter.mk, and the
 * ThreadSanitizer and UBSan drivers the test builds), so the test can see the
 * row counter's atomics and make a race certain instead of lucky.
 *
 * atomic_load, atomic_store and atomic_fetch_add (and their _explicit forms)
 * report each operation (its address and values) to ex_atomic_event, a
 * function of the test's (the drivers' is empty). It is called the same way in
 * every build and every run: no variable the answer can link to says whether
 * the test is watching or pausing (the switch is a static variable of the
 * test), so the code that runs is the code that is graded. While the test pauses, a thread that has just loaded
 * waits until another thread has loaded too (or 20 ms): a counter read, then
 * written back plus one, then always has two threads holding the same row. A
 * single read-modify-write (atomic_fetch_add, a compare-and-swap loop, a
 * mutex) is not affected. */
#ifndef EX_CH03_ATOMICS_H
#define EX_CH03_ATOMICS_H

#include <stdatomic.h>

enum { EX_ATOMIC_LOAD = 1, EX_ATOMIC_STORE, EX_ATOMIC_FETCH_ADD };
/* before: the value the operation found (a store: the one it wrote); after:
 * the value it left. */
void ex_atomic_event(int kind, const volatile void *p, long long before, long long after);

/* The operations themselves, in the compiler's own words (stdatomic.h's
 * macros are replaced below). */
#ifdef __clang__
#define EX_RAW_LOAD(p, order) __c11_atomic_load((p), (order))
#define EX_RAW_STORE(p, v, order) __c11_atomic_store((p), (v), (order))
#define EX_RAW_FETCH_ADD(p, v, order) __c11_atomic_fetch_add((p), (v), (order))
#else
#define EX_RAW_LOAD(p, order) __atomic_load_n((p), (order))
#define EX_RAW_STORE(p, v, order) __atomic_store_n((p), (v), (order))
#define EX_RAW_FETCH_ADD(p, v, order) __atomic_fetch_add((p), (v), (order))
#endif

#undef atomic_load
#undef atomic_load_explicit
#define atomic_load(p) atomic_load_explicit((p), memory_order_seq_cst)
#define atomic_load_explicit(p, order)                                                                                 \
    __extension__({                                                                                                    \
        __auto_type ex_p_ = (p);                                                                                       \
        __auto_type ex_value_ = EX_RAW_LOAD(ex_p_, (order));                                                           \
        ex_atomic_event(EX_ATOMIC_LOAD, ex_p_, (long long)ex_value_, (long long)ex_value_);                            \
        ex_value_;                                                                                                     \
    })

#undef atomic_store
#undef atomic_store_explicit
#define atomic_store(p, v) atomic_store_explicit((p), (v), memory_order_seq_cst)
#define atomic_store_explicit(p, v, order)                                                                             \
    __extension__({                                                                                                    \
        __auto_type ex_p_ = (p);                                                                                       \
        __typeof__(EX_RAW_LOAD(ex_p_, memory_order_relaxed)) ex_value_ = (v);                                          \
        EX_RAW_STORE(ex_p_, ex_value_, (order));                                                                       \
        ex_atomic_event(EX_ATOMIC_STORE, ex_p_, (long long)ex_value_, (long long)ex_value_);                           \
    })

#undef atomic_fetch_add
#undef atomic_fetch_add_explicit
#define atomic_fetch_add(p, v) atomic_fetch_add_explicit((p), (v), memory_order_seq_cst)
#define atomic_fetch_add_explicit(p, v, order)                                                                         \
    __extension__({                                                                                                    \
        __auto_type ex_p_ = (p);                                                                                       \
        __auto_type ex_add_ = (v);                                                                                     \
        __auto_type ex_old_ = EX_RAW_FETCH_ADD(ex_p_, ex_add_, (order));                                               \
        ex_atomic_event(EX_ATOMIC_FETCH_ADD, ex_p_, (long long)ex_old_, (long long)ex_old_ + (long long)ex_add_);      \
        ex_old_;                                                                                                       \
    })

#endif
