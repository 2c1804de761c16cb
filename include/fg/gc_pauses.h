/* The JVM's GC pauses as JVMTI reports them (GarbageCollectionStart and
 * GarbageCollectionFinish), on their way from the callbacks to the drainer,
 * which makes each a mark of the profile (fg/profile.h).
 *
 * The callbacks run while the VM is stopped for the collection: no JNI, no
 * JVMTI call but the few the spec allows, no lock (a thread holding one may
 * be stopped), no malloc. So they only read the clock and write a fixed
 * ring: begin keeps the start, end publishes {start, end} in the next slot
 * (a release store of the slot's sequence), the drainer reads the published
 * slots in order (an acquire load) and frees them by moving tail. HotSpot
 * posts both events from the thread running the collection's VM operation
 * (JvmtiGCMarker in SvcGCMarker), one collection at a time; a claim by
 * compare-and-swap keeps the ring whole should two ever overlap. A pause
 * that finds the ring full is counted as dropped. */
#ifndef FG_GC_PAUSES_H
#define FG_GC_PAUSES_H

#include <stdatomic.h>
#include <stdint.h>

#define FG_GC_PAUSES_RING 1024u   /* a power of two; the drainer empties it every pass */

struct fg_gc_pause {
  uint64_t start_ns, end_ns;   /* CLOCK_MONOTONIC, the samples' clock */
};

struct fg_gc_pauses {
  _Atomic uint64_t head;       /* slots claimed by the callbacks */
  _Atomic uint64_t tail;       /* slots the drainer took */
  _Atomic uint64_t dropped;    /* pauses that found the ring full */
  _Atomic uint64_t start_ns;   /* the pause under way; 0: none */
  struct {
    _Atomic uint64_t seq;      /* index + 1 once the slot holds pause index */
    struct fg_gc_pause pause;
  } slots[FG_GC_PAUSES_RING];
};

/* Empties it (no callback may run meanwhile). */
void fg_gc_pauses_reset(struct fg_gc_pauses *g);
/* The callbacks' half: async-signal-safe, lock-free, no allocation. A
 * finish without its start (the events were enabled mid-pause) adds none. */
void fg_gc_pauses_begin(struct fg_gc_pauses *g, uint64_t now_ns);
void fg_gc_pauses_end(struct fg_gc_pauses *g, uint64_t now_ns);
/* The drainer's half (one reader): up to max published pauses into out, in
 * the order they finished; returns how many. */
uint32_t fg_gc_pauses_take(struct fg_gc_pauses *g, struct fg_gc_pause *out, uint32_t max);

#endif
