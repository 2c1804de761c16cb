/* Redirecting a loaded ELF object's calls to a few imported functions:
 * the slots its relocations R_X86_64_JUMP_SLOT (calls through the PLT) and
 * R_X86_64_GLOB_DAT (-fno-plt calls, a taken address) fill with an
 * undefined symbol's address, written with our hook's. Only undefined
 * symbols: an object's slots for its own definitions (libc's malloc,
 * jemalloc's) are its internal calls, not its callers'.
 *
 * Stateless: a slot holding hook h is restored to h's original, and a slot
 * holding anything else is patched, so the same call serves every object
 * loaded so far and the ones loaded since (dlopen after start); an object
 * unloaded since is simply not met (dl_iterate_phdr lists loaded ones, under
 * the loader's lock, which dlclose takes too). A slot of a full-RELRO object
 * is read-only once relocated: made writable for the write and read-only
 * again. An 8-byte aligned store is atomic on x86-64: a caller on another
 * thread calls either the old target or the new one.
 *
 * Not through here: a static binary, an object loaded with dlmopen into
 * another namespace, calls to a symbol's local alias (-Bsymbolic, protected
 * visibility), and memory got by mmap or brk directly. */
#ifndef FG_IMPORT_PATCH_H
#define FG_IMPORT_PATCH_H

#include <stdint.h>

#define FG_IMPORT_MAX_HOOKS 32   /* hooks a call of fg_import_patch takes */

struct fg_import_hook {
  const char *name;       /* the imported symbol ("malloc") */
  void *hook;             /* what its slots get */
  void *original;         /* what they get back: the symbol's global definition (dlsym RTLD_DEFAULT) */
  int skip_definer;       /* not in the object that defines original (the allocator's own calls) */
};

struct fg_import_patch_counts {
  uint32_t objects;       /* objects looked at */
  uint32_t slots;         /* slots written */
  uint32_t failed;        /* slots that could not be made writable */
  uint32_t foreign;       /* slots bound to neither the original nor the object's own PLT (RTLD_DEEPBIND, another
                             tool's hook): left alone, their calls not seen */
};

/* Writes hooks[i].hook (n of them, at most FG_IMPORT_MAX_HOOKS) into every matching import slot of every loaded
 * object but skip_base's (ours: its own calls go straight to the
 * allocator), the dynamic loader's and the vDSO's (restore: writes
 * hooks[i].original where the slot holds hooks[i].hook). Takes the loader's
 * lock (dl_iterate_phdr): never from a hook. */
void fg_import_patch(const struct fg_import_hook *hooks, int n, uintptr_t skip_base, int restore,
                     struct fg_import_patch_counts *counts);

#endif
