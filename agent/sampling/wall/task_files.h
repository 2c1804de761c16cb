/* What the wall sampler reads of a thread in /proc/self/task/TID: its
 * state letter in stat (after the name, which the application chooses and
 * which may hold spaces and parentheses) and the three counts of schedstat. */
#ifndef FG_TASK_FILES_H
#define FG_TASK_FILES_H

#include <stdint.h>

/* The state letter of stat's text (NUL-ended): the byte after the ") "
 * that closes the name; '?' when there is none. */
char fg_task_stat_state(const char *stat);

/* schedstat's text (NUL-ended): three decimal numbers, each followed by a
 * space or a newline, into v (time on a CPU and waiting in a run queue in
 * ns, times put on a CPU). 1, or 0 for any other text. */
int fg_task_schedstat(const char *text, uint64_t v[3]);

#endif
