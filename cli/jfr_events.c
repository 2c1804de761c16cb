/* Events of a .jfr written from a profile; see jfr_events.h. */
#include "jfr_events.h"

#include "fg/profile.h"

uint64_t fg_jfr_events(const struct fg_profile *p)
{
  uint64_t n = p->timeline.n;
  for (uint32_t i = 0; i < p->nstacks; i++)
    n += p->stacks[i].event == FG_STACK_CPU ? p->stacks[i].count : 1;   /* counts add up below 2^53 */
  return n;
}

uint64_t fg_jfr_events_bound(uint64_t input_bytes)
{
  if (input_bytes > (UINT64_MAX - FG_JFR_EVENTS_FLOOR) / FG_JFR_EVENTS_PER_BYTE)
    return UINT64_MAX;
  return FG_JFR_EVENTS_FLOOR + FG_JFR_EVENTS_PER_BYTE * input_bytes;
}
