/* A small profile the output tests share: two threads, known stacks. */
#ifndef FG_PROFILE_FIXTURE_H
#define FG_PROFILE_FIXTURE_H

#include <string.h>

#include "fg/profile.h"

static inline void add_named(struct fg_profile *p, uint32_t thread, const char *const *names,
                             uint32_t n, uint64_t count)
{
  uint32_t ids[16];
  for (uint32_t i = 0; i < n; i++) {
    enum fg_frame_kind kind = names[i][0] == '[' ? FG_KIND_MARKER : FG_KIND_JAVA;
    ids[i] = (uint32_t)fg_profile_intern(p, names[i], kind);
  }
  fg_profile_add(p, thread, ids, n, count);
}

/* main-100:   Main.main;Main.work;Main.hot 60, Main.main;Main.work 10,
 *             Main.main;Main.cold 30
 * worker-101: Worker.run;Main.hot 5, [GC_active] 2 */
static inline void build_fixture(struct fg_profile *p)
{
  fg_profile_init(p);
  uint32_t main_t = (uint32_t)fg_profile_add_thread(p, 100, "main");
  uint32_t worker = (uint32_t)fg_profile_add_thread(p, 101, "worker;1");
  const char *hot[] = {"Main.main", "Main.work", "Main.hot"};
  const char *work[] = {"Main.main", "Main.work"};
  const char *cold[] = {"Main.main", "Main.cold"};
  const char *whot[] = {"Worker.run", "Main.hot"};
  const char *gc[] = {"[GC_active]"};
  add_named(p, main_t, hot, 3, 40);
  add_named(p, main_t, cold, 2, 30);
  add_named(p, main_t, work, 2, 10);
  add_named(p, main_t, hot, 3, 20);
  add_named(p, worker, whot, 2, 5);
  add_named(p, worker, gc, 1, 2);
  p->stats.interval_ns = 1000000;
  p->stats.taken = 107;
  p->stats.java = 105;
  p->stats.failed[2] = 2;
}

#endif
