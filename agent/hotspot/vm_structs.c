/* gHotSpotVMStructs reader; see vm_structs.h. */
#include "hotspot/vm_structs.h"

#include <dlfcn.h>
#include <string.h>

#include "native/symbols.h"

static void *jvm_symbol(const char *name)
{
  void *sym = dlsym(RTLD_DEFAULT, name);
  if (!sym) {
    void *jvm = dlopen("libjvm.so", RTLD_NOW | RTLD_NOLOAD);
    if (jvm)
      sym = dlsym(jvm, name);
  }
  return sym;
}

static uint64_t jvm_u64(const char *name)
{
  uint64_t *p = jvm_symbol(name);
  return p ? *p : 0;
}

/* The entry for type::field, or NULL. */
static char *find_entry(const char *type, const char *field)
{
  char **table = jvm_symbol("gHotSpotVMStructs");
  uint64_t stride = jvm_u64("gHotSpotVMStructEntryArrayStride");
  uint64_t type_off = jvm_u64("gHotSpotVMStructEntryTypeNameOffset");
  uint64_t field_off = jvm_u64("gHotSpotVMStructEntryFieldNameOffset");
  if (!table || !*table || !stride)
    return NULL;
  for (char *e = *table;; e += stride) {
    const char *t = *(const char **)(e + type_off);
    const char *f = *(const char **)(e + field_off);
    if (!t)
      return NULL;
    if (f && strcmp(t, type) == 0 && strcmp(f, field) == 0)
      return e;
  }
}

uintptr_t fg_vm_static_field(const char *type, const char *field)
{
  char *e = find_entry(type, field);
  if (!e || !*(int32_t *)(e + jvm_u64("gHotSpotVMStructEntryIsStaticOffset")))
    return 0;
  return (uintptr_t) * (void **)(e + jvm_u64("gHotSpotVMStructEntryAddressOffset"));
}

long fg_vm_field_offset(const char *type, const char *field)
{
  char *e = find_entry(type, field);
  if (!e || *(int32_t *)(e + jvm_u64("gHotSpotVMStructEntryIsStaticOffset")))
    return -1;
  return (long)*(uint64_t *)(e + jvm_u64("gHotSpotVMStructEntryOffsetOffset"));
}

uintptr_t fg_vm_function(struct fg_symbols *jvm, const char *raw_name)
{
  void *in_jvm = jvm_symbol("gHotSpotVMStructs");   /* any address inside libjvm */
  return in_jvm && jvm ? fg_symbols_lookup(jvm, in_jvm, raw_name) : 0;
}

int fg_vm_code_cache_bounds(uintptr_t *lo, uintptr_t *hi)
{
  uintptr_t l = fg_vm_static_field("CodeCache", "_low_bound");
  uintptr_t h = fg_vm_static_field("CodeCache", "_high_bound");
  if (!l || !h)
    return 0;
  *lo = *(uintptr_t *)l;
  *hi = *(uintptr_t *)h;
  return *lo && *hi > *lo;
}

/* The entry named name in one of the VM's name-keyed tables, or NULL. */
static char *find_named(const char *table_sym, const char *stride_sym, const char *name_off_sym, const char *name)
{
  char **table = jvm_symbol(table_sym);
  uint64_t stride = jvm_u64(stride_sym), name_off = jvm_u64(name_off_sym);
  if (!table || !*table || !stride)
    return NULL;
  for (char *e = *table;; e += stride) {
    const char *n = *(const char **)(e + name_off);
    if (!n)
      return NULL;
    if (strcmp(n, name) == 0)
      return e;
  }
}

long fg_vm_type_size(const char *type)
{
  char *e = find_named("gHotSpotVMTypes", "gHotSpotVMTypeEntryArrayStride", "gHotSpotVMTypeEntryTypeNameOffset", type);
  return e ? (long)*(uint64_t *)(e + jvm_u64("gHotSpotVMTypeEntrySizeOffset")) : -1;
}

int fg_vm_int_constant(const char *name, int32_t *value)
{
  char *e = find_named("gHotSpotVMIntConstants", "gHotSpotVMIntConstantEntryArrayStride",
                       "gHotSpotVMIntConstantEntryNameOffset", name);
  if (!e)
    return 0;
  *value = *(int32_t *)(e + jvm_u64("gHotSpotVMIntConstantEntryValueOffset"));
  return 1;
}

int fg_vm_set_bool_flag(const char *name, int value)
{
  uintptr_t table = fg_vm_static_field("JVMFlag", "flags"), count = fg_vm_static_field("JVMFlag", "numFlags");
  long name_off = fg_vm_field_offset("JVMFlag", "_name"), addr_off = fg_vm_field_offset("JVMFlag", "_addr");
  long size = fg_vm_type_size("JVMFlag");
  if (!table || !count || name_off < 0 || addr_off < 0 || size <= 0)
    return -1;
  char *flags = *(char **)table;
  size_t n = *(size_t *)count;
  for (size_t i = 0; flags && i < n; i++) {
    char *f = flags + i * (size_t)size;
    const char *fname = *(const char **)(f + name_off);
    if (fname && strcmp(fname, name) == 0) {
      _Bool *at = *(_Bool **)(f + addr_off);
      if (!at)
        return -1;
      *at = value != 0;
      return 0;
    }
  }
  return -1;
}
