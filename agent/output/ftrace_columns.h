/* ftrace function_graph columns: " task-tid | # 1234.567 us |  indent". Each
 * returns 0, or -1 when the write failed. */
#ifndef FG_FTRACE_COLUMNS_H
#define FG_FTRACE_COLUMNS_H

#include <stdint.h>
#include <stdio.h>

#include "fg/profile.h"

#define INDENT 2

int fg_ft_put(FILE *out, const char *s);
int fg_ft_spaces(FILE *out, int n);
/* "name-tid" centred in the task column, then the separator. */
int fg_ft_task(FILE *out, const struct fg_thread_info *th);
/* ftrace's overhead mark for a duration: + ! # * @ $ or a blank. */
char fg_ft_mark(uint64_t ns);
int fg_ft_duration(FILE *out, uint64_t ns);
int fg_ft_no_duration(FILE *out);
int fg_ft_indent(FILE *out, uint32_t depth);

#endif
