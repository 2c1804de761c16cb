/* Deoptimization sites of compiled methods; see vm_deopt.h. */
#include "hotspot/vm_deopt.h"

#include <stdio.h>
#include <string.h>

#include "hotspot/osr_entry.h"
#include "hotspot/vm_structs.h"

/* CodeCache::find_blob_unsafe(void*), or CodeCache::find_blob(void*) where
 * that is gone (JDK 25 has only find_blob, and no zombie methods to guard
 * against), from libjvm's own symbol table: local symbols on JDK 17 and 25.
 * JDK 17's find_blob stops the VM if it finds a zombie; the method a
 * CompiledMethodLoad names never is one, but the unguarded lookup is as
 * good and cannot. */
static void *find_blob_function(struct fg_symbols *jvm)
{
  uintptr_t f = fg_vm_function(jvm, "_ZN9CodeCache16find_blob_unsafeEPv");
  return (void *)(f ? f : fg_vm_function(jvm, "_ZN9CodeCache9find_blobEPv"));
}

int fg_vm_deopt_read(struct fg_vm_deopt *d, struct fg_symbols *jvm)
{
  memset(d, 0, sizeof *d);
  d->handler = fg_vm_field_offset("CompiledMethod", "_deopt_handler_begin");
  d->mh_handler = fg_vm_field_offset("CompiledMethod", "_deopt_mh_handler_begin");
  if (d->handler < 0 || d->mh_handler < 0) {
    d->handler = fg_vm_field_offset("nmethod", "_deopt_handler_offset");
    d->mh_handler = fg_vm_field_offset("nmethod", "_deopt_mh_handler_offset");
    d->handler_is_offset = 1;
  }
  d->orig_pc_offset = fg_vm_field_offset("nmethod", "_orig_pc_offset");
  d->entry_bci = fg_vm_field_offset("nmethod", "_entry_bci");   /* an int on JDK 17 and 25 */
  d->osr_entry = fg_vm_field_offset("nmethod", "_osr_entry_point");   /* an address on both */
  d->migration_end = fg_vm_function(jvm, "_ZN13SharedRuntime17OSR_migration_endEPl");
  d->code_begin = fg_vm_field_offset("CodeBlob", "_code_begin");
  if (d->code_begin < 0) {
    d->code_begin = fg_vm_field_offset("CodeBlob", "_code_offset");
    d->code_is_offset = 1;
  }
  const char *missing = d->handler < 0 || d->mh_handler < 0 ? "nmethod::_deopt_handler_offset (nor JDK 17's _begin)"
                        : d->orig_pc_offset < 0            ? "nmethod::_orig_pc_offset"
                        : d->code_begin < 0                ? "CodeBlob::_code_offset (nor JDK 17's _code_begin)"
                                                           : NULL;
  if (missing) {
    snprintf(d->why, sizeof d->why, "the JVM exports no %s", missing);
    return -1;
  }
  d->offsets_known = 1;
  if (!(d->find_blob = (void *(*)(void *))find_blob_function(jvm))) {
    snprintf(d->why, sizeof d->why, "libjvm has no symbol CodeCache::find_blob(_unsafe)");
    return -1;
  }
  d->known = 1;
  return 0;
}

/* A handler's address in the nmethod at nm, as an offset into [code, code
 * + len); 0 when outside it (JDK 17's NULL, JDK 25's -1: no such handler). */
static uint32_t site(const struct fg_vm_deopt *d, uintptr_t nm, long field, uintptr_t code, size_t len)
{
  uintptr_t at = d->handler_is_offset ? nm + (uintptr_t)(intptr_t) * (const int32_t *)(nm + field)
                                      : *(const uintptr_t *)(nm + field);
  return at > code && at < code + len ? (uint32_t)(at - code) : 0;
}

/* An OSR method's entry (InvocationEntryBci, -123, marks any other) and
 * its call of OSR_migration_end, looked for from the entry: osr_entry.h. */
static void osr_entry(const struct fg_vm_deopt *d, uintptr_t nm, uintptr_t code, size_t len,
                      struct fg_deopt_sites *sites)
{
  if (d->entry_bci < 0 || d->osr_entry < 0 || !d->migration_end)
    return;
  int32_t bci = *(const int32_t *)(nm + d->entry_bci);
  uintptr_t entry = *(const uintptr_t *)(nm + d->osr_entry);
  if (bci < 0 || entry < code || entry >= code + len)
    return;   /* a method's own compilation, or not the field we know */
  uint32_t ret = fg_osr_call_return((const uint8_t *)code, len, code, entry - code, d->migration_end);
  if (!ret)
    return;
  sites->osr_entry = (uint32_t)(entry - code);
  sites->osr_return = ret;
  sites->entry_bci = bci;
}

int fg_vm_deopt_sites_of(const struct fg_vm_deopt *d, uintptr_t nm, const void *code, size_t len,
                         struct fg_deopt_sites *sites)
{
  *sites = (struct fg_deopt_sites){.orig_pc = -1};
  if (!d->offsets_known || !nm || !code || len == 0)
    return -1;
  uintptr_t begins = d->code_is_offset ? nm + (uintptr_t)(intptr_t) * (const int32_t *)(nm + d->code_begin)
                                       : *(const uintptr_t *)(nm + d->code_begin);
  if (begins != (uintptr_t)code)
    return -1;   /* not the blob that holds this code */
  int32_t orig = *(const int32_t *)(nm + d->orig_pc_offset);
  sites->handler = site(d, nm, d->handler, (uintptr_t)code, len);
  sites->mh_handler = site(d, nm, d->mh_handler, (uintptr_t)code, len);
  sites->orig_pc = sites->handler && orig >= 0 ? orig : -1;
  osr_entry(d, nm, (uintptr_t)code, len, sites);
  return 0;
}

int fg_vm_deopt_sites(const struct fg_vm_deopt *d, const void *code, size_t len, struct fg_deopt_sites *sites)
{
  *sites = (struct fg_deopt_sites){.orig_pc = -1};
  if (!d->known || !code || len == 0)
    return -1;
  return fg_vm_deopt_sites_of(d, (uintptr_t)d->find_blob((void *)code), code, len, sites);
}
