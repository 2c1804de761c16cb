/* Option verify, for compiled methods read from the code heap
 * (hotspot/code_heap.h): HotSpot's own decoding is the oracle.
 * CompiledMethodLoad stays on in such a session, and each method it
 * reports is read from the heap as a sample would have it read; the two
 * inline records (every pc with a scope, its frames' methods and bcis,
 * innermost first) and the code's bounds must be the same. The load events
 * add nothing to the code map then: the walks still depend on the heap. */
#ifndef FG_CODE_RECORDS_H
#define FG_CODE_RECORDS_H

#include <jni.h>
#include <pthread.h>
#include <stdint.h>

#include "hotspot/code_heap.h"

struct fg_code_records {
  pthread_mutex_t lock;
  uint64_t checked;             /* methods compared */
  uint64_t differ;              /* of those, whose records or bounds were not the same */
  uint64_t unread;              /* reported, but not found or read in the heap (freed meanwhile) */
  char first[240];              /* the first difference, "" when none */
};

void fg_code_records_init(struct fg_code_records *c);
void fg_code_records_reset(struct fg_code_records *c);

/* A CompiledMethodLoad's method, held to what h reads of the nmethod at
 * code. id_of names a Method* as the code map's reader does. */
void fg_code_records_check(struct fg_code_records *c, const struct fg_code_heap *h, fg_method_id_fn id_of,
                           void *ctx, const void *code, jint size, const void *compile_info);

#endif
