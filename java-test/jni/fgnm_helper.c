/* Loaded and unloaded in a loop by NativeMem (dlcycle): mallocs and frees
 * through its own import slots, which a patch may have pointed at
 * fgagent's hooks before the dlclose. */
#include <stdlib.h>

long fgnm_helper_churn(int n)
{
  long sum = 0;
  for (int i = 0; i < n; i++) {
    char *p = malloc(1000 + (size_t)i);
    if (!p)
      return -1;
    p[0] = (char)i;
    sum += p[0];
    free(p);
  }
  return sum;
}
