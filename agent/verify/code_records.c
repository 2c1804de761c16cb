/* The code heap's records held to CompiledMethodLoad's; see code_records.h. */
#include "verify/code_records.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hotspot/pc_scopes.h"

void fg_code_records_init(struct fg_code_records *c)
{
  memset(c, 0, sizeof *c);
  pthread_mutex_init(&c->lock, NULL);
}

void fg_code_records_reset(struct fg_code_records *c)
{
  pthread_mutex_lock(&c->lock);
  c->checked = c->differ = c->unread = 0;
  c->first[0] = '\0';
  pthread_mutex_unlock(&c->lock);
}

/* The first difference between theirs and ours, written to why; 0 when none. */
static int differ(const jvmtiCompiledMethodLoadInlineRecord *theirs, const jvmtiCompiledMethodLoadInlineRecord *ours,
                  char *why, size_t len)
{
  jint tn = theirs ? theirs->numpcs : 0, on = ours ? ours->numpcs : 0;
  if (tn != on) {
    snprintf(why, len, "%d pcs with a scope, the heap's %d", (int)tn, (int)on);
    return 1;
  }
  for (jint i = 0; i < tn; i++) {
    const PCStackInfo *x = &theirs->pcinfo[i], *y = &ours->pcinfo[i];
    if (x->pc != y->pc || x->numstackframes != y->numstackframes) {
      snprintf(why, len, "pc %d: %p with %d frames, the heap's %p with %d", (int)i, x->pc, (int)x->numstackframes,
               y->pc, (int)y->numstackframes);
      return 1;
    }
    for (jint j = 0; j < x->numstackframes; j++)
      if (x->methods[j] != y->methods[j] || x->bcis[j] != y->bcis[j]) {
        snprintf(why, len, "pc %p frame %d: method %p bci %d, the heap's %p bci %d", x->pc, (int)j,
                 (void *)x->methods[j], (int)x->bcis[j], (void *)y->methods[j], (int)y->bcis[j]);
        return 1;
      }
  }
  return 0;
}

void fg_code_records_check(struct fg_code_records *c, const struct fg_code_heap *h, fg_method_id_fn id_of,
                           void *ctx, const void *code, jint size, const void *compile_info)
{
  struct fg_code_heap copy = *h;   /* find learns the name string: this thread's own */
  struct fg_nmethod n;
  int unnamed = 0, bad = 0;
  char why[200] = "";
  jvmtiCompiledMethodLoadInlineRecord *ours = NULL;
  int found = fg_code_heap_find(&copy, (uintptr_t)code, &n) == 0;
  if (found) {
    ours = fg_code_heap_inline_record(&copy, &n, id_of, ctx, &unnamed);
    if (n.code_begin != (uintptr_t)code || n.code_end - n.code_begin != (uintptr_t)(uint32_t)size) {
      snprintf(why, sizeof why, "code [%p, +%d), the heap's [%p, +%lu)", code, (int)size, (void *)n.code_begin,
               (unsigned long)(n.code_end - n.code_begin));
      bad = 1;
    } else if (unnamed) {
      snprintf(why, sizeof why, "a frame's Method* has no jmethodID in the heap's reading");
      bad = 1;
    } else {
      bad = differ(fg_pc_inline_record(compile_info), ours, why, sizeof why);
    }
    found = fg_code_heap_same(&copy, &n);   /* freed while read: nothing to judge */
  }
  free(ours);
  pthread_mutex_lock(&c->lock);
  if (!found) {
    c->unread++;
  } else {
    c->checked++;
    if (bad && c->differ++ == 0)
      snprintf(c->first, sizeof c->first, "the method at %p: %s", code, why);
  }
  pthread_mutex_unlock(&c->lock);
}
