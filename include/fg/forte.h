/* AsyncGetCallTrace's types and the forte tick codes it reports failures with.
 * HotSpot exports the function but ships no header for it; the layout and the
 * codes below are those of HotSpot's prims/forte.cpp. */
#ifndef FG_FORTE_H
#define FG_FORTE_H

#include <jni.h>

typedef struct {
  jint lineno;         /* bci, or -3 for a native method */
  jmethodID method_id;
} ASGCT_CallFrame;

typedef struct {
  JNIEnv *env_id;      /* the interrupted thread's own JNIEnv */
  jint num_frames;     /* > 0 frames written, <= 0 a tick code */
  ASGCT_CallFrame *frames; /* leaf first */
} ASGCT_CallTrace;

typedef void (*fg_asgct_fn)(ASGCT_CallTrace *trace, jint depth, void *ucontext);

/* num_frames values that mean "no stack"; 0 and the negatives. */
enum fg_tick {
  FG_TICK_NO_JAVA_FRAME = 0,
  FG_TICK_NO_CLASS_LOAD = -1,
  FG_TICK_GC_ACTIVE = -2,
  FG_TICK_UNKNOWN_NOT_JAVA = -3,
  FG_TICK_NOT_WALKABLE_NOT_JAVA = -4,
  FG_TICK_UNKNOWN_JAVA = -5,
  FG_TICK_NOT_WALKABLE_JAVA = -6,
  FG_TICK_UNKNOWN_STATE = -7,
  FG_TICK_THREAD_EXIT = -8,
  FG_TICK_DEOPT = -9,
  FG_TICK_SAFEPOINT = -10,
};

#define FG_TICK_COUNT 11
/* A code outside 0..-10 (a newer JDK's) is kept under this index. */
#define FG_TICK_OTHER FG_TICK_COUNT

/* Index 0..FG_TICK_COUNT for a num_frames <= 0. */
static inline int fg_tick_index(int num_frames)
{
  return (num_frames <= 0 && num_frames > -FG_TICK_COUNT) ? -num_frames : FG_TICK_OTHER;
}

/* "no_Java_frame", "GC_active", ... ; "unknown_tick" for FG_TICK_OTHER. */
const char *fg_tick_name(int index);

#endif
