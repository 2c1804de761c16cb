/* JSON and HTML escaping; see json_text.h. */
#include "json_text.h"

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
