/* Kernel pc -> function name, from /proc/kallsyms, at drain time. */
#ifndef FG_KERNEL_SYMBOLS_H
#define FG_KERNEL_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

struct fg_kernel_symbols {
  uint64_t *addr;      /* sorted */
  uint32_t *name;      /* offset of each one's name in names */
  char *names;
  size_t n;
  int hidden;          /* the file showed no addresses (kptr_restrict) */
};

/* Reads the text symbols (t, T, w, W) of a kallsyms-format file. 0, or -1
 * when it cannot be read (then every pc is "[kernel]"). */
int fg_ksyms_load(struct fg_kernel_symbols *k, const char *path);
/* The same from the text of such a file, len bytes (whole lines only, as a
 * read of the file takes them). */
int fg_ksyms_parse(struct fg_kernel_symbols *k, const char *text, size_t len);
void fg_ksyms_free(struct fg_kernel_symbols *k);

/* The function containing pc: "iterate_dir", "ext4_readdir"; "[kernel]"
 * when no symbol is known (not loaded, hidden, below the first). */
void fg_ksyms_name(const struct fg_kernel_symbols *k, uint64_t pc, char *buf, size_t len);

#endif
