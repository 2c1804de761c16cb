/* Runs a writer into memory and returns what it wrote. */
#ifndef FG_CAPTURE_H
#define FG_CAPTURE_H

#include <stdio.h>
#include <stdlib.h>

#define CAPTURE(result, call_with_out)              \
  do {                                              \
    size_t len_ = 0;                                \
    (result) = NULL;                                \
    FILE *out = open_memstream(&(result), &len_);   \
    int rc_ = (call_with_out);                      \
    fclose(out);                                    \
    assert_int_equal(rc_, 0);                       \
  } while (0)

#endif
