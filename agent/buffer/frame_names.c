/* The drainer's names of a trace's frames (the stack cache's namer):
 * native and kernel pcs through the symbol tables, once per pc; stubs by
 * their code map name; Java frames through the method names' cache; and
 * a frame a walk met in a compiled method the code map had not read yet
 * (FG_FRAME_UNREAD) by that method's debug record, read from the code heap
 * now if need be. */
#include <stdio.h>

#include "buffer/drainer_internal.h"
#include "hotspot/code_discovery.h"
#include "walk/vm_walker.h"

#define EXPANDED_FRAMES 64   /* a pc's frames, the method and what it inlined */
#define BCI_NATIVE_METHOD (-3)   /* what the walkers give a native method's frame */

static int64_t intern(struct fg_drainer *d, const char *name, enum fg_frame_kind kind)
{
  return fg_profile_intern(d->profile, name, kind);
}

/* The kernel function holding pc, from /proc/kallsyms (read at the first kernel frame). */
static void kernel_symbol(struct fg_drainer *d, uint64_t pc, char *name, size_t len)
{
  if (!d->ksyms_read) {
    d->ksyms_read = 1;
    if (fg_ksyms_load(&d->ksyms, "/proc/kallsyms") != 0 || d->ksyms.hidden)
      fprintf(stderr, "fgagent: kernel frames are named [kernel]: /proc/kallsyms %s (kptr_restrict; "
              "root with kptr_restrict 0 or 1 shows them)\n", d->ksyms.hidden ? "shows no addresses" : "cannot be read");
  }
  fg_ksyms_name(&d->ksyms, pc, name, len);
}

/* The name id of a native (user or kernel) pc, looked up once per pc. */
static int64_t pc_name(struct fg_drainer *d, uint64_t pc, enum fg_frame_kind kind)
{
  uint32_t id;
  if (fg_u64_map_get(&d->native_names, pc, &id))
    return id;
  char name[512];
  if (kind == FG_KIND_KERNEL)
    kernel_symbol(d, pc, name, sizeof name);
  else
    fg_symbols_name(d->symbols, (uintptr_t)pc, name, sizeof name);
  int64_t got = intern(d, name, kind);
  if (got >= 0)
    fg_u64_map_put(&d->native_names, pc, (uint32_t)got);
  return got;
}

static enum fg_frame_kind kind_of_type(uint8_t type)
{
  switch (type) {
  case FG_FRAME_INTERPRETED: return FG_KIND_INTERPRETED;
  case FG_FRAME_COMPILED: return FG_KIND_COMPILED;
  case FG_FRAME_INLINED: return FG_KIND_INLINED;
  default: return FG_KIND_JAVA;
  }
}

/* A Java frame's name id: method at bci, run as type says (ann). */
static int64_t java_name(struct fg_drainer *d, jmethodID method, jint bci, uint8_t type)
{
  int64_t id = fg_method_name(d->names, d->jvmti, d->jni, d->profile, method, bci);
  enum fg_frame_kind kind = kind_of_type(type);
  if (id >= 0 && kind != FG_KIND_JAVA && fg_profile_kind(d->profile, (uint32_t)id) == FG_KIND_JAVA) {
    /* the same method, how it ran told: its bci and descriptor (fg_method_name's key) with it */
    struct fg_profile *p = d->profile;
    uint32_t plain = (uint32_t)id;
    id = fg_profile_intern_method(p, fg_profile_name(p, plain), kind, fg_profile_bci(p, plain),
                                  p->keyed[plain] ? p->descriptors[plain] : NULL);
  }
  return id;
}

/* The name id of frame i of a trace (the drainer is ctx; Java names are
 * read with the pass's JNIEnv). */
int64_t fg_drainer_frame_name(void *ctx, const struct fg_trace *tr, uint32_t i)
{
  struct fg_drainer *d = ctx;
  uint8_t type = fg_trace_types(tr)[i];
  if (type == FG_FRAME_NATIVE_PC)
    return pc_name(d, fg_trace_methods(tr)[i], FG_KIND_NATIVE);
  if (type == FG_FRAME_KERNEL_PC)
    return pc_name(d, fg_trace_methods(tr)[i], FG_KIND_KERNEL);
  if (type == FG_FRAME_CLASS) {
    char name[512];
    fg_event_log_class_name(d->events, (uint32_t)fg_trace_methods(tr)[i], name, sizeof name);
    return intern(d, name, FG_KIND_CLASS);
  }
  if (type == FG_FRAME_UNREAD)   /* not named by fg_drainer_frame_expand: freed before it could be read */
    return intern(d, "[unread_compiled_method]", FG_KIND_MARKER);
  if (type == FG_FRAME_STUB) {
    const struct fg_code_blob *stub = (const struct fg_code_blob *)(uintptr_t)fg_trace_methods(tr)[i];
    return intern(d, stub->name[0] ? stub->name : "[stub]", FG_KIND_NATIVE);
  }
  return java_name(d, fg_trace_method(tr, i), fg_trace_bcis(tr)[i], type);
}

/* Frame i's records (FG_FRAME_UNREAD): how many (0: none at that pc), -1
 * when its method is not known; *method, *scoped as fg_vm_frames_at's. A
 * method not read yet is read now (the lookup left its want); one freed
 * since is named from its nmethod's header if that is still there
 * (*header_only, and *bci its entry bci in an OSR entry, else -1); *unnamed:
 * the nmethod is there, but no jmethodID names its method. */
static int unread_frames(struct fg_drainer *d, const struct fg_trace *tr, uint32_t i, struct fg_scope_frame *f,
                         jmethodID *method, int *scoped, int *header_only, int *unnamed, jint *bci)
{
  const struct fg_code_map *code = d->sampler->walker.code;
  uintptr_t pc = (uintptr_t)fg_trace_methods(tr)[i];
  int top = fg_trace_bcis(tr)[i] != 0;
  *scoped = 1;
  *header_only = *unnamed = 0;
  *bci = -1;
  int n = fg_vm_frames_at(code, pc, top, f, EXPANDED_FRAMES, method, scoped);
  if (n < 0 && d->discovery) {
    fg_code_discovery_take(d->discovery);
    n = fg_vm_frames_at(code, pc, top, f, EXPANDED_FRAMES, method, scoped);
  }
  if (n < 0) {
    *method = d->discovery ? fg_code_discovery_method_at(d->discovery, pc, unnamed, bci) : NULL;
    *header_only = !*unnamed;
    n = *method ? 0 : -1;
  }
  return n;
}

uint32_t fg_drainer_frame_expand(void *ctx, const struct fg_trace *tr, uint32_t i, uint32_t *out, uint32_t room)
{
  struct fg_drainer *d = ctx;
  struct fg_scope_frame f[EXPANDED_FRAMES];
  jmethodID method = NULL;
  int scoped, header_only, unnamed;
  jint bci;
  int n = unread_frames(d, tr, i, f, &method, &scoped, &header_only, &unnamed, &bci);
  if (!out)
    return n > 0 ? (uint32_t)n : n == 0 ? 1 : 0;
  if (header_only)
    d->profile->stats.code_header_only++;
  if (unnamed)
    d->profile->stats.code_unnamed_stacks++;
  int annotated = d->sampler->walker.annotate;
  if (n < 0)
    return 0;
  if (n == 0) {   /* no record at that pc: the method alone (a native method's wrapper has none at all) */
    int64_t id = java_name(d, method, !scoped ? BCI_NATIVE_METHOD : bci, annotated ? FG_FRAME_COMPILED : FG_FRAME_JAVA);
    if (id < 0 || room == 0)
      return 0;
    out[0] = (uint32_t)id;
    return 1;
  }
  uint32_t got = 0;
  for (int j = n; j-- > 0 && got < room;) {   /* root first: the method, then what it inlined */
    uint8_t type = !annotated ? FG_FRAME_JAVA : j == n - 1 ? FG_FRAME_COMPILED : FG_FRAME_INLINED;
    int64_t id = java_name(d, f[j].method, f[j].bci, type);
    if (id >= 0)
      out[got++] = (uint32_t)id;
  }
  return got;
}
