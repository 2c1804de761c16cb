/* fgspin's leaf, built without unwind tables: a sample in it is walked
 * out through the return address at sp, after reading the call before it. */
#include <time.h>

unsigned long fg_spin_leaf(unsigned long x, long long end_ns) __attribute__((visibility("hidden")));

unsigned long fg_spin_leaf(unsigned long x, long long end_ns)
{
  struct timespec t;
  do {
    for (int i = 0; i < 1000; i++)
      x = x * 6364136223846793005ul + 1442695040888963407ul;
    clock_gettime(CLOCK_MONOTONIC, &t);
  } while (t.tv_sec * 1000000000LL + t.tv_nsec < end_ns);
  return x;
}
