/* ELF symbol tables of loaded libraries; see symbols.h. */
#include "native/symbols.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "native/unwind_rows.h"

struct symbol {
  uintptr_t start, end;   /* runtime addresses */
  const char *raw;        /* mangled, in the module's mapped file */
};

struct module {
  uintptr_t base;         /* dladdr's dli_fbase */
  char *short_name;       /* file name without directories */
  struct symbol *syms;
  size_t nsyms;
  const uint8_t *file;    /* the file the names are in (the library's or its debug file), mapped */
  size_t file_size;       /* 0: not mapped by us (the vDSO's image in memory) */
};

struct fg_symbols {
  struct module *modules;
  size_t nmodules, cap;
  char *(*demangle)(const char *, char *, size_t *, int *);
};

struct fg_symbols *fg_symbols_new(void)
{
  struct fg_symbols *s = calloc(1, sizeof *s);
  if (!s)
    return NULL;
  void *fn = dlsym(RTLD_DEFAULT, "__cxa_demangle");
  if (!fn) {   /* a JVM built with a static libstdc++ (Temurin's) exports none */
    void *lib = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
    fn = lib ? dlsym(lib, "__cxa_demangle") : NULL;
  }
  s->demangle = (char *(*)(const char *, char *, size_t *, int *))fn;
  return s;
}

void fg_symbols_free(struct fg_symbols *s)
{
  if (!s)
    return;
  for (size_t i = 0; i < s->nmodules; i++) {
    if (s->modules[i].file && s->modules[i].file_size)
      munmap((void *)s->modules[i].file, s->modules[i].file_size);
    free(s->modules[i].syms);
    free(s->modules[i].short_name);
  }
  free(s->modules);
  free(s);
}

/* "ns::Class::method(int) const" -> "ns::Class::method": the parameters
 * make flame graphs wide without telling functions apart any better. */
static char *readable(struct fg_symbols *s, const char *raw)
{
  char *out = NULL;
  if (s->demangle && raw[0] == '_' && raw[1] == 'Z') {
    int status = -1;
    char *d = s->demangle(raw, NULL, NULL, &status);
    if (d && status == 0) {
      int depth = 0;
      for (char *p = d; *p; p++) {
        if (*p == '<')
          depth++;
        else if (*p == '>')
          depth--;
        else if (*p == '(' && depth == 0 && p != d && strncmp(p - 8 > d ? p - 8 : d, "operator", 8) != 0) {
          *p = '\0';
          break;
        }
      }
      out = d;
    } else {
      free(d);
    }
  }
  return out ? out : strdup(raw);
}

static int by_start(const void *a, const void *b)
{
  const struct symbol *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start;
}

/* Whether [off, off + len) lies within size bytes, without overflow. */
static int within(uint64_t off, uint64_t len, size_t size)
{
  return off <= size && len <= size - off;
}

/* Function symbols of one section, relocated by bias: at most one symbol
 * for each 24 bytes of the file, their names NUL-ended inside it. */
static void add_section(struct module *m, const uint8_t *file, size_t size,
                        const Elf64_Shdr *symtab, const Elf64_Shdr *strtab, uintptr_t bias)
{
  if (!within(symtab->sh_offset, symtab->sh_size, size) || !within(strtab->sh_offset, strtab->sh_size, size) ||
      symtab->sh_entsize != sizeof(Elf64_Sym) || symtab->sh_offset % _Alignof(Elf64_Sym) != 0 ||
      strtab->sh_size == 0 || file[strtab->sh_offset + strtab->sh_size - 1] != '\0')
    return;   /* (a string table ends with a NUL: every name in it is ended) */
  const Elf64_Sym *syms = (const Elf64_Sym *)(file + symtab->sh_offset);
  size_t n = symtab->sh_size / sizeof *syms;
  const char *names = (const char *)file + strtab->sh_offset;
  struct symbol *grown = realloc(m->syms, (m->nsyms + n) * sizeof *grown);
  if (!grown)
    return;
  m->syms = grown;
  for (size_t i = 0; i < n; i++) {
    int type = ELF64_ST_TYPE(syms[i].st_info);
    if ((type != STT_FUNC && type != STT_GNU_IFUNC) || syms[i].st_shndx == SHN_UNDEF ||
        !syms[i].st_value || syms[i].st_name >= strtab->sh_size)
      continue;
    /* demangled only when asked for: a JVM's libjvm has some 60 000
     * functions and a profile names a few hundred of them */
    uintptr_t start = bias + syms[i].st_value;
    m->syms[m->nsyms++] = (struct symbol){start, start + syms[i].st_size, names + syms[i].st_name};
  }
}

/* Whether the size bytes at file are a 64-bit ELF whose headers lie inside
 * them, aligned as the structures need. */
static int elf_ok(const uint8_t *file, size_t size)
{
  if (size < sizeof(Elf64_Ehdr) || (uintptr_t)file % _Alignof(Elf64_Ehdr) != 0)
    return 0;
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)file;
  return memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_ident[EI_CLASS] == ELFCLASS64 &&
         within(eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr), size) &&
         within(eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr), size) &&
         eh->e_shoff % _Alignof(Elf64_Shdr) == 0 && eh->e_phoff % _Alignof(Elf64_Phdr) == 0;
}

/* The file at path, mapped read-only; NULL when it cannot be, or is no
 * 64-bit ELF whose headers lie inside it. */
static const uint8_t *map_elf(const char *path, size_t *size)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0)
    return NULL;
  if (fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
    close(fd);
    return NULL;
  }
  *size = (size_t)st.st_size;
  const uint8_t *file = mmap(NULL, *size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (file == MAP_FAILED)
    return NULL;
  if (!elf_ok(file, *size)) {
    munmap((void *)file, *size);
    return NULL;
  }
  return file;
}

static const Elf64_Shdr *sections(const uint8_t *file)
{
  return (const Elf64_Shdr *)(file + ((const Elf64_Ehdr *)file)->e_shoff);
}

/* The section of that type, or NULL. */
static const Elf64_Shdr *section_of_type(const uint8_t *file, Elf64_Word type)
{
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)file;
  for (int i = 0; i < eh->e_shnum; i++)
    if (sections(file)[i].sh_type == type)
      return &sections(file)[i];
  return NULL;
}

/* Adds the function symbols of the file's symtab (or, failing that, its
 * dynsym) at runtime address vaddr + bias. 1 if it had any. */
static int add_symbols(struct module *m, const uint8_t *file, size_t size, uintptr_t bias, Elf64_Word type)
{
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)file;
  const Elf64_Shdr *sh = sections(file);
  size_t before = m->nsyms;
  for (int i = 0; i < eh->e_shnum; i++)
    if (sh[i].sh_type == type) {   /* the first only: a file has one of each (more would be read again and again) */
      if (sh[i].sh_link < eh->e_shnum)
        add_section(m, file, size, &sh[i], &sh[sh[i].sh_link], bias);
      break;
    }
  return m->nsyms > before;
}

/* Where the separate debug file of a library without a symtab (Debian's
 * -dbg packages) may be, most likely first: by its build id,
 * /usr/lib/debug/.build-id/ab/cdef....debug, else by its .gnu_debuglink
 * name, in /usr/lib/debug beside the library's directory or in its .debug
 * subdirectory. Up to max paths into out; how many. */
static size_t debug_paths(const uint8_t *file, size_t size, const char *path, char (*out)[FG_SYMBOLS_PATH_MAX], size_t max)
{
  size_t found = 0;
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)file;
  for (int i = 0; i < eh->e_shnum && found < max; i++) {
    const Elf64_Shdr *n = &sections(file)[i];
    if (n->sh_type != SHT_NOTE || !within(n->sh_offset, n->sh_size, size) || n->sh_offset % 4 != 0)
      continue;
    for (size_t at = 0; at + sizeof(Elf64_Nhdr) <= n->sh_size && found < max;) {
      const Elf64_Nhdr *note = (const Elf64_Nhdr *)(file + n->sh_offset + at);
      size_t desc = at + sizeof *note + (((size_t)note->n_namesz + 3) & ~(size_t)3);
      if (desc > n->sh_size || note->n_descsz > n->sh_size - desc)
        break;
      if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 && note->n_descsz >= 2 && note->n_descsz <= 64 &&
          memcmp(note + 1, "GNU", 4) == 0) {
        const uint8_t *id = file + n->sh_offset + desc;
        char *name = out[found++];
        int len = snprintf(name, FG_SYMBOLS_PATH_MAX, "/usr/lib/debug/.build-id/%02x/", id[0]);
        for (uint32_t k = 1; k < note->n_descsz; k++)
          len += snprintf(name + len, FG_SYMBOLS_PATH_MAX - (size_t)len, "%02x", id[k]);
        snprintf(name + len, FG_SYMBOLS_PATH_MAX - (size_t)len, ".debug");
      }
      at = desc + (((size_t)note->n_descsz + 3) & ~(size_t)3);
    }
  }
  const Elf64_Shdr *names = &sections(file)[eh->e_shstrndx < eh->e_shnum ? eh->e_shstrndx : 0];
  static const char debuglink[] = ".gnu_debuglink";
  for (int i = 0; i < eh->e_shnum && within(names->sh_offset, names->sh_size, size); i++) {
    const Elf64_Shdr *link = &sections(file)[i];
    if (link->sh_name >= names->sh_size || sizeof debuglink > names->sh_size - link->sh_name ||
        !within(link->sh_offset, link->sh_size, size) || link->sh_size < 2 ||
        memcmp(file + names->sh_offset + link->sh_name, debuglink, sizeof debuglink) != 0 ||
        !memchr(file + link->sh_offset, '\0', link->sh_size))
      continue;
    const char *base = (const char *)file + link->sh_offset;
    const char *slash = strrchr(path, '/');
    int dir = slash ? (int)(slash - path) : 0;
    const char *const forms[] = {"/usr/lib/debug%.*s/%s", "%.*s/.debug/%s"};
    for (size_t f = 0; f < sizeof forms / sizeof *forms && found < max; f++)
      snprintf(out[found++], FG_SYMBOLS_PATH_MAX, forms[f], dir, path, base);
    break;   /* one link is read */
  }
  return found;
}

/* The first of the library's debug files that is installed, mapped; NULL
 * when none is. */
static const uint8_t *debug_file(const uint8_t *file, size_t size, const char *path, size_t *debug_size)
{
  char names[4][FG_SYMBOLS_PATH_MAX];
  size_t n = debug_paths(file, size, path, names, 4);
  for (size_t i = 0; i < n; i++) {
    const uint8_t *debug = map_elf(names[i], debug_size);
    if (debug)
      return debug;
  }
  return NULL;
}

/* runtime = base + (vaddr - the first PT_LOAD's page-aligned vaddr) */
static uintptr_t bias_of(const uint8_t *file, uintptr_t base)
{
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)file;
  const Elf64_Phdr *ph = (const Elf64_Phdr *)(file + eh->e_phoff);
  for (int i = 0; i < eh->e_phnum; i++)
    if (ph[i].p_type == PT_LOAD)
      return base - (ph[i].p_vaddr & ~(uintptr_t)0xfff);
  return base;
}

static void load_symbols(struct module *m, const char *path)
{
  size_t size, debug_size = 0;
  const uint8_t *file = map_elf(path, &size);
  if (!file)
    return;
  uintptr_t bias = bias_of(file, m->base);
  const uint8_t *debug = section_of_type(file, SHT_SYMTAB) ? NULL : debug_file(file, size, path, &debug_size);
  if (debug && add_symbols(m, debug, debug_size, bias, SHT_SYMTAB)) {
    munmap((void *)file, size);   /* the names are in the debug file */
    file = debug;
    size = debug_size;
  } else {
    if (debug)
      munmap((void *)debug, debug_size);
    add_symbols(m, file, size, bias, section_of_type(file, SHT_SYMTAB) ? SHT_SYMTAB : SHT_DYNSYM);
  }
  if (m->nsyms) {
    m->file = file;   /* the names point into it */
    m->file_size = size;
  } else {
    munmap((void *)file, size);
  }
  if (m->nsyms)   /* (qsort takes no NULL, even for 0 elements) */
    qsort(m->syms, m->nsyms, sizeof *m->syms, by_start);
}

/* The vDSO, which has no file: its image in memory is a whole ELF, section
 * headers and dynsym included (__vdso_clock_gettime, ...). */
static void load_vdso_symbols(struct module *m)
{
  const uint8_t *image = (const uint8_t *)m->base;
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)image;
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shnum == 0)
    return;
  size_t size = eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr);   /* the headers end the image */
  add_symbols(m, image, size, bias_of(image, m->base), SHT_DYNSYM);
  m->file = image;
  m->file_size = 0;   /* not ours to unmap */
  if (m->nsyms)   /* (qsort takes no NULL, even for 0 elements) */
    qsort(m->syms, m->nsyms, sizeof *m->syms, by_start);
}

static struct module *module_for(struct fg_symbols *s, uintptr_t base, const char *path)
{
  for (size_t i = 0; i < s->nmodules; i++)
    if (s->modules[i].base == base)
      return &s->modules[i];
  if (s->nmodules == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 32;
    struct module *grown = realloc(s->modules, cap * sizeof *grown);
    if (!grown)
      return NULL;
    s->modules = grown;
    s->cap = cap;
  }
  struct module *m = &s->modules[s->nmodules++];
  memset(m, 0, sizeof *m);
  m->base = base;
  const char *slash = strrchr(path, '/');
  m->short_name = strdup(slash ? slash + 1 : path);
  if (base == (uintptr_t)getauxval(AT_SYSINFO_EHDR)) {
    load_vdso_symbols(m);
    return m;
  }
  char exe[4096];
  if (!path[0]) {   /* the main program */
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    path = exe;
  }
  load_symbols(m, path);
  return m;
}

struct eh_frame_of {
  uintptr_t pc;
  const uint8_t *hdr;     /* the .eh_frame_hdr of the library holding pc */
  const uint8_t *lo, *hi; /* the segment holding it, all the reader may read */
};

static int eh_frame_hdr_of(struct dl_phdr_info *info, size_t size, void *arg)
{
  (void)size;
  struct eh_frame_of *e = arg;
  const uint8_t *hdr = NULL;
  int holds = 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t at = info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type == PT_LOAD && e->pc >= at && e->pc - at < ph->p_memsz)
      holds = 1;
    else if (ph->p_type == PT_GNU_EH_FRAME)
      hdr = (const uint8_t *)at;
  }
  if (!holds)
    return 0;
  if (hdr && fg_unwind_segment_of(info, hdr, &e->lo, &e->hi) == 0)
    e->hdr = hdr;
  return 1;
}

/* The name of m's function holding pc into buf: 1, or 0 when none does. */
static int module_name(struct fg_symbols *s, const struct module *m, uintptr_t pc, char *buf, size_t len)
{
  if (!m->nsyms)
    return 0;
  size_t lo = 0, hi = m->nsyms;   /* last symbol starting at or below pc */
  while (hi - lo > 1) {
    size_t mid = (lo + hi) / 2;
    if (m->syms[mid].start <= pc)
      lo = mid;
    else
      hi = mid;
  }
  /* a symbol of size 0 (a function written in assembly without .size,
   * such as libjvm's SpinPause) runs up to the next one's start */
  const struct symbol *sym = &m->syms[lo];
  if (sym->start > pc || (pc >= sym->end && sym->end != sym->start))
    return 0;
  char *name = readable(s, sym->raw);
  snprintf(buf, len, "%s", name ? name : sym->raw);
  free(name);
  return 1;
}

void fg_symbols_name(struct fg_symbols *s, uintptr_t pc, char *buf, size_t len)
{
  Dl_info info;
  if (!dladdr((void *)pc, &info) || !info.dli_fbase) {
    snprintf(buf, len, "[unknown_native]");
    return;
  }
  struct module *m = module_for(s, (uintptr_t)info.dli_fbase, info.dli_fname ? info.dli_fname : "");
  if (m && module_name(s, m, pc, buf, len))
    return;
  if (info.dli_sname && info.dli_saddr) {
    snprintf(buf, len, "%s", info.dli_sname);
    return;
  }
  /* A stripped library: name the function by where its unwind entry says it
   * starts, so that all of one function's samples share one frame. */
  struct eh_frame_of find = {pc, NULL, NULL, NULL};
  dl_iterate_phdr(eh_frame_hdr_of, &find);
  uintptr_t start = find.hdr ? fg_unwind_function_start(find.hdr, find.lo, find.hi, pc) : 0;
  if (!start)
    start = pc;
  snprintf(buf, len, "%s+0x%lx", m && m->short_name ? m->short_name : "?",
           (unsigned long)(start - (uintptr_t)info.dli_fbase));
}

uintptr_t fg_symbols_lookup(struct fg_symbols *s, const void *in_library, const char *raw_name)
{
  Dl_info info;
  if (!dladdr(in_library, &info) || !info.dli_fbase)
    return 0;
  struct module *m = module_for(s, (uintptr_t)info.dli_fbase, info.dli_fname ? info.dli_fname : "");
  if (!m)
    return 0;
  for (size_t i = 0; i < m->nsyms; i++)
    if (strcmp(m->syms[i].raw, raw_name) == 0)
      return m->syms[i].start;
  return 0;
}

struct fg_symbols *fg_symbols_of_image(const uint8_t *file, size_t size, uintptr_t base)
{
  if (!elf_ok(file, size))
    return NULL;
  struct fg_symbols *s = fg_symbols_new();
  struct module *m = s ? calloc(1, sizeof *m) : NULL;
  if (!m) {
    free(s);
    return NULL;
  }
  s->modules = m;
  s->nmodules = s->cap = 1;
  m->base = base;
  m->file = file;   /* the caller's: file_size 0, never unmapped */
  add_symbols(m, file, size, bias_of(file, base), section_of_type(file, SHT_SYMTAB) ? SHT_SYMTAB : SHT_DYNSYM);
  if (m->nsyms)   /* (qsort takes no NULL, even for 0 elements) */
    qsort(m->syms, m->nsyms, sizeof *m->syms, by_start);
  return s;
}

/* The file offset of address vaddr: inside a PT_LOAD segment's bytes in
 * the file. 1 and *offset, or 0. */
static int file_offset_of(const uint8_t *file, size_t size, uint64_t vaddr, uint64_t *offset)
{
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)file;
  const Elf64_Phdr *ph = (const Elf64_Phdr *)(file + eh->e_phoff);   /* inside the file: elf_ok */
  for (int i = 0; i < eh->e_phnum; i++) {
    if (ph[i].p_type != PT_LOAD || vaddr < ph[i].p_vaddr || vaddr - ph[i].p_vaddr >= ph[i].p_filesz ||
        !within(ph[i].p_offset, ph[i].p_filesz, size))
      continue;
    *offset = ph[i].p_offset + (vaddr - ph[i].p_vaddr);
    return 1;
  }
  return 0;
}

int fg_symbols_image_offset(const uint8_t *file, size_t size, const char *raw_name, uint64_t *offset)
{
  if (!elf_ok(file, size))
    return 0;
  struct module m;
  memset(&m, 0, sizeof m);
  add_symbols(&m, file, size, 0, section_of_type(file, SHT_SYMTAB) ? SHT_SYMTAB : SHT_DYNSYM);
  int found = 0;
  for (size_t i = 0; i < m.nsyms && !found; i++)
    if (strcmp(m.syms[i].raw, raw_name) == 0)
      found = file_offset_of(file, size, m.syms[i].start, offset);
  free(m.syms);
  return found;
}

int fg_symbols_image_name(struct fg_symbols *s, uintptr_t pc, char *buf, size_t len)
{
  return s->nmodules > 0 && module_name(s, &s->modules[0], pc, buf, len);
}

size_t fg_symbols_debug_paths(const uint8_t *file, size_t size, const char *path, char (*out)[FG_SYMBOLS_PATH_MAX],
                              size_t max)
{
  return elf_ok(file, size) ? debug_paths(file, size, path, out, max) : 0;
}
