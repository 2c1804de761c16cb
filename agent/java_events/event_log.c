/* Allocation and lock events on their way to the profile; see event_log.h. */
#include "java_events/event_log.h"

#include <stdlib.h>
#include <string.h>

#include "fg/class_name.h"
#include "fg/grow_array.h"
#include "fg/utf8.h"

int fg_event_log_init(struct fg_event_log *l)
{
  memset(l, 0, sizeof *l);
  fg_profile_init(&l->classes);
  return pthread_mutex_init(&l->lock, NULL) == 0 ? 0 : -1;
}

void fg_event_log_destroy(struct fg_event_log *l)
{
  free(l->records);
  fg_profile_free(&l->classes);
  pthread_mutex_destroy(&l->lock);
}

void fg_event_log_reset(struct fg_event_log *l)
{
  pthread_mutex_lock(&l->lock);
  l->n = 0;
  memset(l->counts, 0, sizeof l->counts);
  atomic_store(&l->below, 0);
  pthread_mutex_unlock(&l->lock);
}

int64_t fg_event_log_class(struct fg_event_log *l, const char *sig)
{
  char name[512];
  if (fg_class_frame_name(sig, name, sizeof name) != 0)
    return -1;
  pthread_mutex_lock(&l->lock);
  int64_t id = fg_profile_intern(&l->classes, name, FG_KIND_CLASS);
  pthread_mutex_unlock(&l->lock);
  return id;
}

void fg_event_log_class_name(struct fg_event_log *l, uint32_t id, char *out, size_t len)
{
  pthread_mutex_lock(&l->lock);
  fg_utf8_copy(out, len, id < l->classes.nnames ? l->classes.names[id] : "[unknown class]");
  pthread_mutex_unlock(&l->lock);
}

void fg_event_log_add(struct fg_event_log *l, const struct fg_event_record *r)
{
  pthread_mutex_lock(&l->lock);
  struct fg_event_stats *c = &l->counts[r->event];
  c->taken++;
  if (!r->trace || l->n >= FG_EVENT_LOG_MAX ||
      fg_grow_array((void **)&l->records, &l->cap, sizeof *l->records, l->n + 1) != 0)
    c->no_memory++;
  else
    l->records[l->n++] = *r;
  pthread_mutex_unlock(&l->lock);
}

void fg_event_log_lost(struct fg_event_log *l, enum fg_stack_event e, int no_thread)
{
  pthread_mutex_lock(&l->lock);
  l->counts[e].taken++;
  if (no_thread)
    l->counts[e].no_thread++;
  else
    l->counts[e].no_memory++;
  pthread_mutex_unlock(&l->lock);
}

void fg_event_log_take(struct fg_event_log *l, struct fg_event_record **out, uint32_t *n,
                       struct fg_event_stats counts[FG_STACK_EVENTS])
{
  pthread_mutex_lock(&l->lock);
  *out = l->records;
  *n = l->n;
  l->records = NULL;
  l->n = l->cap = 0;
  memcpy(counts, l->counts, sizeof l->counts);
  memset(l->counts, 0, sizeof l->counts);
  counts[FG_STACK_LOCK].below = atomic_exchange(&l->below, 0);
  pthread_mutex_unlock(&l->lock);
}
