/* /proc/self/task/TID/{stat,schedstat}; see task_files.h. */
#include "sampling/wall/task_files.h"

#include <string.h>

char fg_task_stat_state(const char *stat)
{
  const char *close = strrchr(stat, ')');   /* the last: the name may hold ')' */
  return close && close[1] == ' ' && close[2] ? close[2] : '?';
}

int fg_task_schedstat(const char *text, uint64_t v[3])
{
  const char *p = text;
  for (int i = 0; i < 3; i++, p++) {
    if (*p < '0' || *p > '9')
      return 0;
    uint64_t x = 0;
    for (; *p >= '0' && *p <= '9'; p++)
      x = x * 10 + (uint64_t)(*p - '0');
    if (*p != ' ' && *p != '\n')
      return 0;
    v[i] = x;
  }
  return 1;
}
