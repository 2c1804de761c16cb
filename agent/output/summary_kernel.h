/* The summary's section of each kernel event (event=NAME) the session
 * recorded: its events, the threads its counters followed, every sample
 * accounted for. */
#ifndef FG_SUMMARY_KERNEL_H
#define FG_SUMMARY_KERNEL_H

#include <stdio.h>

#include "fg/stats.h"

/* 0, or -1 when a write failed. */
int fg_write_kernel_summary(FILE *out, const struct fg_stats *s);

#endif
