/* /proc/PID/maps read chunk by chunk (fgets's pieces): the mapping that
 * holds an address. A line's path is any file's name, and a line longer
 * than the reader's buffer comes in pieces: only a piece that starts a line
 * is ever taken for one, so a name cannot pass for a mapping. */
#ifndef FG_PROC_MAPS_H
#define FG_PROC_MAPS_H

#include <stddef.h>
#include <stdint.h>

struct fg_maps_reader {
  int mid_line;   /* the last piece did not end its line */
};

/* The piece of len bytes read next (a whole line or part of one): 1 when it
 * starts a line "LO-HI ..." (both hexadecimal, LO < HI) whose range holds
 * addr, with it in *lo, *hi; else 0. */
int fg_maps_piece(struct fg_maps_reader *m, const char *piece, size_t len, uintptr_t addr, uintptr_t *lo, uintptr_t *hi);

#endif
