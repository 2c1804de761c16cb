/* VM offsets for the walker; see vm_offsets.h. */
#include "hotspot/vm_offsets.h"

#include <stdio.h>
#include <string.h>

#include "hotspot/method_map.h"
#include "hotspot/vm_structs.h"

static int field(long *out, const char *type, const char *name, char *why, size_t len)
{
  *out = fg_vm_field_offset(type, name);
  if (*out >= 0)
    return 0;
  snprintf(why, len, "the JVM exports no %s::%s", type, name);
  return -1;
}

/* Method::checked_resolve_jmethod_id from libjvm's own symbol table (a local
 * symbol on JDK 17 and 25): jmethodIDs are Method** up to JDK 24 and ids in a
 * table from JDK 25 (JDK-8268406), and the VM's function serves both. */
static void *resolver(struct fg_symbols *jvm)
{
  return (void *)fg_vm_function(jvm, "_ZN6Method26checked_resolve_jmethod_idEP10_jmethodID");
}

int fg_vm_offsets_read(struct fg_vm_offsets *o, long env_offset, struct fg_symbols *jvm, char *why, size_t len)
{
  memset(o, 0, sizeof *o);
  long state, anchor;
  if (env_offset < 0) {
    snprintf(why, len, "the JNIEnv's place in its JavaThread is unknown");
    return -1;
  }
  if (field(&state, "JavaThread", "_thread_state", why, len) || field(&anchor, "JavaThread", "_anchor", why, len) ||
      field(&o->anchor_sp, "JavaFrameAnchor", "_last_Java_sp", why, len) ||
      field(&o->anchor_pc, "JavaFrameAnchor", "_last_Java_pc", why, len) ||
      field(&o->anchor_fp, "JavaFrameAnchor", "_last_Java_fp", why, len) ||
      field(&o->wrapper_anchor, "JavaCallWrapper", "_anchor", why, len) ||
      field(&o->const_method, "Method", "_constMethod", why, len) ||
      field(&o->code_size, "ConstMethod", "_code_size", why, len))
    return -1;
  o->env_to_state = state - env_offset;
  o->env_to_anchor = anchor - env_offset;
  uintptr_t ret = fg_vm_static_field("StubRoutines", "_call_stub_return_address");
  if (!ret || !(o->call_stub_return = *(uintptr_t *)ret)) {
    snprintf(why, len, "the JVM exports no StubRoutines::_call_stub_return_address");
    return -1;
  }
  if (!fg_vm_int_constant("_thread_in_Java", &o->in_java)) {
    snprintf(why, len, "the JVM exports no constant _thread_in_Java");
    return -1;
  }
  if ((o->const_method_bytes = fg_vm_type_size("ConstMethod")) <= 0) {
    snprintf(why, len, "the JVM exports no size of ConstMethod");
    return -1;
  }
  if (!(o->resolve = resolver(jvm))) {
    snprintf(why, len, "libjvm has no symbol Method::checked_resolve_jmethod_id");
    return -1;
  }
  o->known = 1;
  return 0;
}

uintptr_t fg_vm_add_method(const struct fg_vm_offsets *o, struct fg_method_map *map, jmethodID id)
{
  uintptr_t method = (uintptr_t)o->resolve(id);
  if (!method)
    return 0;
  uintptr_t cm = *(const uintptr_t *)(method + o->const_method);
  if (!cm)
    return 0;
  uint16_t len = *(const uint16_t *)(cm + o->code_size);
  return fg_method_map_put(map, method, id, cm + (uintptr_t)o->const_method_bytes, len) == 0 ? method : 0;
}
