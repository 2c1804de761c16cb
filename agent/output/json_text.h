/* Text escaped for JSON and HTML. The JSON form is safe inside a <script>
 * element too: '<', '>', '&' and U+2028/2029 are written as \u escapes, so a
 * frame named "</script><script>..." stays a string. */
#ifndef FG_JSON_TEXT_H
#define FG_JSON_TEXT_H

#include <stdint.h>
#include <stdio.h>

/* "s" as a quoted JSON string. 0, or -1 when a write failed. */
int fg_put_json_string(FILE *out, const char *s);
/* s with & < > " ' as HTML character references. */
int fg_put_html_text(FILE *out, const char *s);

/* A page template written out with each @@NAME@@ (capitals) filled by
 * fill(out, "NAME", ctx): 0 when written, -1 when a write failed, 1 when
 * NAME is not one of its own (then "@@" is written as text). 0, or -1. */
int fg_put_template(FILE *out, const char *tmpl, int (*fill)(FILE *out, const char *name, void *ctx), void *ctx);

/* Many numbers, fast: digits go into a buffer written out in large pieces
 * (fprintf per number is most of the time a big profile takes). */
struct fg_numbers {
  FILE *out;
  size_t len;
  int failed;
  char buf[1 << 16];
};

void fg_numbers_start(struct fg_numbers *n, FILE *out);
/* sep (if not 0) and then v in decimal. */
void fg_numbers_put(struct fg_numbers *n, char sep, uint64_t v);
void fg_numbers_text(struct fg_numbers *n, const char *s);
/* Writes what is buffered; 0, or -1 if any write failed. */
int fg_numbers_end(struct fg_numbers *n);

#endif
