/* json_out.c - JSON string escaping for the exporters (see json_escape.h). */
#include "json_escape.h"

/* Length of the well-formed UTF-8 sequence at p (NUL-terminated input), or
 * 0 when it is not one: bad lead byte, missing continuation, overlong form,
 * surrogate, or beyond U+10FFFF. */
static size_t utf8_len(const unsigned char *p)
{
	unsigned c = p[0];
	size_t n;
	uint32_t cp;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	/* The terminating NUL fails the continuation test, so this never
	 * reads past the end of the string. */
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if (n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff)))
		return 0;
	if (n == 4 && (cp < 0x10000 || cp > 0x10ffff))
		return 0;
	return n;
}

void sc_json_string(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	putc('"', out);
	while (*p) {
		unsigned c = *p;
		if (c == '"' || c == '\\') {
			putc('\\', out);
			putc((int)c, out);
			p++;
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(out, "\\u%04x", c);
			p++;
		} else {
			size_t n = utf8_len(p);
			if (n == 0) {
				fputs("\\ufffd", out);
				p++;
			} else {
				fwrite(p, 1, n, out);
				p += n;
			}
		}
	}
	putc('"', out);
}

void sc_json_hex_bytes(FILE *out, const uint8_t *p, size_t n)
{
	putc('"', out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%02x", p[i]);
	putc('"', out);
}
