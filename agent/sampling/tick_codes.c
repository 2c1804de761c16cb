/* Names of the forte tick codes, as HotSpot's forte.cpp spells them. */
#include "fg/forte.h"

static const char *const tick_names[FG_TICK_COUNT + 1] = {
  "no_Java_frame",        /*   0 */
  "no_class_load",        /*  -1 */
  "GC_active",            /*  -2 */
  "unknown_not_Java",     /*  -3 */
  "not_walkable_not_Java", /* -4 */
  "unknown_Java",         /*  -5 */
  "not_walkable_Java",    /*  -6 */
  "unknown_state",        /*  -7 */
  "thread_exit",          /*  -8 */
  "deopt",                /*  -9 */
  "safepoint",            /* -10 */
  "unknown_tick",
};

const char *fg_tick_name(int index)
{
  if (index < 0 || index > FG_TICK_OTHER)
    index = FG_TICK_OTHER;
  return tick_names[index];
}
