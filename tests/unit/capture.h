/* Runs a writer into memory and returns what it wrote. */
#ifndef FG_CAPTURE_H
#define FG_CAPTURE_H

#include <stdio.h>
#include <stdlib.h>

#define CAPTURE(result, call_with_out)            \
  do {                                            \
    char *buf_ = NULL;                            \
    size_t len_ = 0;                              \
    FILE *out = open_memstream(&buf_, &len_);     \
    int rc_ = (call_with_out);                    \
    fclose(out);                                  \
    assert_int_equal(rc_, 0);                     \
    (result) = buf_;                              \
  } while (0)

#endif
