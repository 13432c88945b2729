/*
 * json_escape.h - JSON string escaping shared by every JSON writer
 * (the exporters of libanalysis and the CLI's --json output).
 */
#ifndef SCHEDCTL_JSON_ESCAPE_H
#define SCHEDCTL_JSON_ESCAPE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Write s as a JSON string literal, quotes included.  Control characters
 * become \u00XX and bytes that are not valid UTF-8 become U+FFFD, so the
 * output is valid JSON whatever the target put in its argv or messages.
 * NULL writes "". */
void sc_json_string(FILE *out, const char *s);

/* Write bytes as a string of lowercase hex digits, quotes included. */
void sc_json_hex_bytes(FILE *out, const uint8_t *p, size_t n);

#endif /* SCHEDCTL_JSON_ESCAPE_H */
