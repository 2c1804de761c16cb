/* Reads HotSpot's exported gHotSpotVMStructs table (the one the
 * serviceability agent uses) and its type and constant tables: the bounds
 * of the code cache, and the offsets the VM walker reads frames with. */
#ifndef FG_VM_STRUCTS_H
#define FG_VM_STRUCTS_H

#include <stdint.h>

/* Address of the static field type::field, or 0 when the JVM does not
 * export it. Call outside signal handlers. */
uintptr_t fg_vm_static_field(const char *type, const char *field);

/* Offset of the instance field type::field, or -1. */
long fg_vm_field_offset(const char *type, const char *field);

/* sizeof(type) as the VM was built, or -1. */
long fg_vm_type_size(const char *type);

/* The VM's integer constant name (an enum value such as _thread_in_Java);
 * 0 when it does not export it. */
int fg_vm_int_constant(const char *name, int32_t *value);

struct fg_symbols;

/* The address of libjvm's function raw_name (mangled, as the library's
 * symbol table has it: local symbols such as Method::checked_resolve_jmethod_id
 * are found too), looked up in jvm; 0 when this is no HotSpot, jvm is NULL
 * or the library has no such symbol. */
uintptr_t fg_vm_function(struct fg_symbols *jvm, const char *raw_name);

/* The code cache's [lo, hi) read from CodeCache::_low_bound/_high_bound;
 * 0 when unavailable. Valid once the VM has initialised its code cache. */
int fg_vm_code_cache_bounds(uintptr_t *lo, uintptr_t *hi);

/* Sets the VM's bool flag name (JVMFlag::flags, as -XX: would at start):
 * 0, or -1 when the VM exports no such flag. For flags the VM reads as it
 * goes (DebugNonSafepoints at each compilation). */
int fg_vm_set_bool_flag(const char *name, int value);

#endif
