/* JSON and HTML escaping; see json_text.h. */
#include "output/json_text.h"

#include <string.h>

int fg_put_json_string(FILE *out, const char *s)
{
  if (fputc('"', out) == EOF)
    return -1;
  for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
    int rc;
    if (*c == '"' || *c == '\\')
      rc = fprintf(out, "\\%c", *c);
    else if (*c < 0x20 || *c == '<' || *c == '>' || *c == '&')
      rc = fprintf(out, "\\u%04x", *c);
    else if (c[0] == 0xe2 && c[1] == 0x80 && (c[2] == 0xa8 || c[2] == 0xa9)) {
      rc = fprintf(out, "\\u20%s", c[2] == 0xa8 ? "28" : "29");
      c += 2;
    } else
      rc = fputc(*c, out) == EOF ? -1 : 0;
    if (rc < 0)
      return -1;
  }
  return fputc('"', out) == EOF ? -1 : 0;
}

int fg_put_template(FILE *out, const char *tmpl, int (*fill)(FILE *out, const char *name, void *ctx), void *ctx)
{
  for (const char *t = tmpl; *t;) {
    const char *mark = strstr(t, "@@");
    size_t plain = mark ? (size_t)(mark - t) : strlen(t);
    if (fwrite(t, 1, plain, out) != plain)
      return -1;
    if (!mark)
      return 0;
    size_t n = 0;
    char name[32];
    while (n + 1 < sizeof name && mark[2 + n] >= 'A' && mark[2 + n] <= 'Z') {
      name[n] = mark[2 + n];
      n++;
    }
    name[n] = '\0';
    int rc = n && strncmp(mark + 2 + n, "@@", 2) == 0 ? fill(out, name, ctx) : 1;
    if (rc < 0)
      return -1;
    if (rc == 0) {
      t = mark + 4 + n;
    } else {
      if (fputs("@@", out) < 0)
        return -1;
      t = mark + 2;
    }
  }
  return 0;
}

int fg_put_html_text(FILE *out, const char *s)
{
  for (; *s; s++) {
    const char *ref = NULL;
    switch (*s) {
    case '&': ref = "&amp;"; break;
    case '<': ref = "&lt;"; break;
    case '>': ref = "&gt;"; break;
    case '"': ref = "&quot;"; break;
    case '\'': ref = "&#39;"; break;
    }
    if (ref ? fputs(ref, out) < 0 : fputc(*s, out) == EOF)
      return -1;
  }
  return 0;
}

void fg_numbers_start(struct fg_numbers *n, FILE *out)
{
  n->out = out;
  n->len = 0;
  n->failed = 0;
}

static void flush_if_full(struct fg_numbers *n, size_t need)
{
  if (n->len + need <= sizeof n->buf)
    return;
  if (fwrite(n->buf, 1, n->len, n->out) != n->len)
    n->failed = 1;
  n->len = 0;
}

void fg_numbers_put(struct fg_numbers *n, char sep, uint64_t v)
{
  char digits[20];
  int k = 0;
  do {
    digits[k++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  flush_if_full(n, (size_t)k + 1);
  if (sep)
    n->buf[n->len++] = sep;
  while (k > 0)
    n->buf[n->len++] = digits[--k];
}

void fg_numbers_text(struct fg_numbers *n, const char *s)
{
  size_t len = strlen(s);
  if (len > sizeof n->buf) {
    flush_if_full(n, sizeof n->buf);
    if (fwrite(s, 1, len, n->out) != len)
      n->failed = 1;
    return;
  }
  flush_if_full(n, len);
  memcpy(n->buf + n->len, s, len);
  n->len += len;
}

int fg_numbers_end(struct fg_numbers *n)
{
  if (n->len && fwrite(n->buf, 1, n->len, n->out) != n->len)
    n->failed = 1;
  n->len = 0;
  return n->failed ? -1 : 0;
}
