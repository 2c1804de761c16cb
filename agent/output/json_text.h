/* Text escaped for JSON and HTML. The JSON form is safe inside a <script>
 * element too: '<', '>', '&' and U+2028/2029 are written as \u escapes, so a
 * frame named "</script><script>..." stays a string. */
#ifndef FG_JSON_TEXT_H
#define FG_JSON_TEXT_H

#include <stdio.h>

/* "s" as a quoted JSON string. 0, or -1 when a write failed. */
int fg_put_json_string(FILE *out, const char *s);
/* s with & < > " ' as HTML character references. */
int fg_put_html_text(FILE *out, const char *s);

#endif
