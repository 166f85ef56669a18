/* status.h - the exit statuses every chapter program shares (the README lists them). */
#ifndef COMMON_STATUS_H
#define COMMON_STATUS_H

enum {
    EXIT_OK = 0,         /* every stage ran and checked ok */
    EXIT_CHECK_FAIL = 1, /* a stage's result failed its check, or a run-time error */
    CLI_EXIT_USAGE = 2,  /* bad command line: nothing was run or written */
    EXIT_NO_GPU = 3,     /* a GPU chapter found no usable CUDA device */
    CLI_EXIT_LATE = 70   /* a bug: bad input refused after work began (cli_begin_work); sysexits' EX_SOFTWARE */
};

#endif
