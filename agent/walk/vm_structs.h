/* Reads HotSpot's exported gHotSpotVMStructs table (the one the
 * serviceability agent uses) for the addresses fgagent needs: today the
 * bounds of the code cache, so that the handler can tell JIT/interpreter
 * code from native code with two compares. */
#ifndef FG_VM_STRUCTS_H
#define FG_VM_STRUCTS_H

#include <stdint.h>

/* Address of the static field type::field, or 0 when the JVM does not
 * export it. Call outside signal handlers. */
uintptr_t fg_vm_static_field(const char *type, const char *field);

/* Offset of the instance field type::field, or -1. */
long fg_vm_field_offset(const char *type, const char *field);

/* The code cache's [lo, hi) read from CodeCache::_low_bound/_high_bound;
 * 0 when unavailable. Valid once the VM has initialised its code cache. */
int fg_vm_code_cache_bounds(uintptr_t *lo, uintptr_t *hi);

#endif
