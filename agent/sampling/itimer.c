/* setitimer(ITIMER_PROF): the classic process-wide profiling timer. */
#include <string.h>
#include <sys/time.h>

#include "sampling/timer.h"

int fg_itimer_arm(uint64_t interval_ns)
{
  struct itimerval tv;
  memset(&tv, 0, sizeof tv);
  uint64_t us = interval_ns / 1000;
  if (us == 0)
    us = 1;
  tv.it_interval.tv_sec = (time_t)(us / 1000000);
  tv.it_interval.tv_usec = (suseconds_t)(us % 1000000);
  tv.it_value = tv.it_interval;
  return setitimer(ITIMER_PROF, &tv, NULL);
}

void fg_itimer_disarm(void)
{
  struct itimerval tv;
  memset(&tv, 0, sizeof tv);
  setitimer(ITIMER_PROF, &tv, NULL);
}
