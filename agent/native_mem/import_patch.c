/* Import slots of every loaded object pointed at hooks; see import_patch.h. */
#include "native_mem/import_patch.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct patch_run {
  const struct fg_import_hook *hooks;
  int n;
  uintptr_t definer[FG_IMPORT_MAX_HOOKS];   /* base of the object defining hooks[i].original, 0: unknown */
  uintptr_t skip_base;
  int restore;
  struct fg_import_patch_counts *counts;
};

/* The dynamic loader records most d_ptr entries relocated (glibc adds the
 * base in place); one still below the base is an offset. */
static uintptr_t dyn_ptr(uintptr_t base, ElfW(Addr) v)
{
  return v < base ? base + v : v;
}

static int skipped_object(const struct dl_phdr_info *info, uintptr_t skip_base)
{
  const char *name = info->dlpi_name ? info->dlpi_name : "";
  if (info->dlpi_addr == skip_base)
    return 1;
  if (strstr(name, "linux-vdso") || strstr(name, "ld-linux") || strstr(name, "/ld-2.") || strstr(name, "ld64.so"))
    return 1;
  return 0;
}

/* Writes v into slot, making a read-only (RELRO) page writable around it. 0 or -1. */
static int write_slot(uintptr_t slot, void *v, uintptr_t relro_lo, uintptr_t relro_hi)
{
  if (slot >= relro_lo && slot + sizeof v <= relro_hi) {
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t start = slot & ~(uintptr_t)(page - 1);
    if (mprotect((void *)start, (size_t)page, PROT_READ | PROT_WRITE) != 0)
      return -1;
    __atomic_store_n((void **)slot, v, __ATOMIC_RELEASE);
    mprotect((void *)start, (size_t)page, PROT_READ);
    return 0;
  }
  __atomic_store_n((void **)slot, v, __ATOMIC_RELEASE);
  return 0;
}

struct object_tables {
  uintptr_t base;
  const ElfW(Sym) *symtab;
  const char *strtab;
  const ElfW(Rela) *jmprel, *rela;
  size_t jmprel_size, rela_size;
  uintptr_t relro_lo, relro_hi;
  uintptr_t end;   /* past its last PT_LOAD segment */
};

static int read_tables(const struct dl_phdr_info *info, struct object_tables *t)
{
  memset(t, 0, sizeof *t);
  t->base = info->dlpi_addr;
  const ElfW(Dyn) *dyn = NULL;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type == PT_LOAD && t->base + ph->p_vaddr + ph->p_memsz > t->end)
      t->end = t->base + ph->p_vaddr + ph->p_memsz;
    if (ph->p_type == PT_DYNAMIC)
      dyn = (const ElfW(Dyn) *)(t->base + ph->p_vaddr);
    else if (ph->p_type == PT_GNU_RELRO) {
      t->relro_lo = t->base + ph->p_vaddr;
      t->relro_hi = t->relro_lo + ph->p_memsz;
    }
  }
  if (!dyn)
    return -1;
  int pltrel_is_rela = 1;
  for (; dyn->d_tag != DT_NULL; dyn++) {
    switch (dyn->d_tag) {
    case DT_SYMTAB: t->symtab = (const ElfW(Sym) *)dyn_ptr(t->base, dyn->d_un.d_ptr); break;
    case DT_STRTAB: t->strtab = (const char *)dyn_ptr(t->base, dyn->d_un.d_ptr); break;
    case DT_JMPREL: t->jmprel = (const ElfW(Rela) *)dyn_ptr(t->base, dyn->d_un.d_ptr); break;
    case DT_PLTRELSZ: t->jmprel_size = dyn->d_un.d_val; break;
    case DT_RELA: t->rela = (const ElfW(Rela) *)dyn_ptr(t->base, dyn->d_un.d_ptr); break;
    case DT_RELASZ: t->rela_size = dyn->d_un.d_val; break;
    case DT_PLTREL: pltrel_is_rela = dyn->d_un.d_val == DT_RELA; break;
    default: break;
    }
  }
  if (!pltrel_is_rela)
    t->jmprel = NULL;   /* x86-64 objects use RELA only */
  return t->symtab && t->strtab ? 0 : -1;
}

static void patch_relocs(struct patch_run *run, const struct object_tables *t, const ElfW(Rela) *r, size_t bytes)
{
  if (!r)
    return;
  for (size_t k = 0; k < bytes / sizeof *r; k++) {
    uint32_t type = ELF64_R_TYPE(r[k].r_info);
    if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT)
      continue;
    const ElfW(Sym) *sym = &t->symtab[ELF64_R_SYM(r[k].r_info)];
    if (sym->st_shndx != SHN_UNDEF || sym->st_name == 0)
      continue;   /* the object's own definition: its internal calls */
    const char *name = t->strtab + sym->st_name;
    for (int i = 0; i < run->n; i++) {
      const struct fg_import_hook *h = &run->hooks[i];
      if (strcmp(name, h->name) != 0)
        continue;
      if (h->skip_definer && run->definer[i] == t->base)
        break;
      uintptr_t slot = t->base + r[k].r_offset;
      void *now = __atomic_load_n((void **)slot, __ATOMIC_ACQUIRE);
      void *want = run->restore ? h->original : h->hook;
      if (run->restore ? now != h->hook : now == h->hook)
        break;
      if (!run->restore && now != h->original && !((uintptr_t)now >= t->base && (uintptr_t)now < t->end)) {
        run->counts->foreign++;   /* bound elsewhere (RTLD_DEEPBIND, another tool's hook): left alone */
        break;
      }
      if (write_slot(slot, want, t->relro_lo, t->relro_hi) == 0)
        run->counts->slots++;
      else
        run->counts->failed++;
      break;
    }
  }
}

static int on_object(struct dl_phdr_info *info, size_t size, void *ctx)
{
  (void)size;
  struct patch_run *run = ctx;
  if (skipped_object(info, run->skip_base))
    return 0;
  struct object_tables t;
  if (read_tables(info, &t) != 0)
    return 0;
  run->counts->objects++;
  patch_relocs(run, &t, t.jmprel, t.jmprel_size);
  patch_relocs(run, &t, t.rela, t.rela_size);
  return 0;
}

void fg_import_patch(const struct fg_import_hook *hooks, int n, uintptr_t skip_base, int restore,
                     struct fg_import_patch_counts *counts)
{
  struct patch_run run = {.hooks = hooks, .n = n < FG_IMPORT_MAX_HOOKS ? n : FG_IMPORT_MAX_HOOKS, .skip_base = skip_base,
                          .restore = restore, .counts = counts};
  memset(counts, 0, sizeof *counts);
  for (int i = 0; i < run.n; i++) {
    Dl_info d;
    if (hooks[i].skip_definer && hooks[i].original && dladdr(hooks[i].original, &d) && d.dli_fbase)
      run.definer[i] = (uintptr_t)d.dli_fbase;
  }
  dl_iterate_phdr(on_object, &run);
}
