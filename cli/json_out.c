/* json_out.c - streaming JSON writer (json_out.h). */
#include "config.h"

#include <inttypes.h>
#include <math.h>

#include "json_out.h"

void json_init(struct json_out *j, FILE *f, bool pretty)
{
	j->f = f;
	j->depth = 0;
	j->first[0] = true;
	j->pretty = pretty;
}

static void indent(struct json_out *j)
{
	if (!j->pretty)
		return;
	fputc('\n', j->f);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* Separator, indentation and "key": before a value. */
static void member(struct json_out *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
	if (j->depth > 0)
		indent(j);
	if (key) {
		json_write_escaped(j->f, key);
		fputs(j->pretty ? ": " : ":", j->f);
	}
}

static void open_scope(struct json_out *j, const char *key, char c)
{
	member(j, key);
	fputc(c, j->f);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->first[j->depth] = true;
	j->closer[j->depth] = c == '{' ? '}' : ']';
}

void json_begin_object(struct json_out *j, const char *key)
{
	open_scope(j, key, '{');
}

void json_begin_array(struct json_out *j, const char *key)
{
	open_scope(j, key, '[');
}

void json_end(struct json_out *j)
{
	bool empty = j->first[j->depth];
	char c = j->closer[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (!empty)
		indent(j);
	fputc(c, j->f);
}

/* Length of the valid UTF-8 sequence at s, or 0 when it is not one. */
static int utf8_len(const unsigned char *s)
{
	int n;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and values past U+10FFFF. */
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) ||
	    (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

void json_write_escaped(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', f);
	while (*s) {
		int n;

		switch (*s) {
		case '"': fputs("\\\"", f); s++; continue;
		case '\\': fputs("\\\\", f); s++; continue;
		case '\n': fputs("\\n", f); s++; continue;
		case '\r': fputs("\\r", f); s++; continue;
		case '\t': fputs("\\t", f); s++; continue;
		case '\b': fputs("\\b", f); s++; continue;
		case '\f': fputs("\\f", f); s++; continue;
		default: break;
		}
		if (*s < 0x20 || *s == 0x7f) {
			fprintf(f, "\\u%04x", *s);
			s++;
			continue;
		}
		n = utf8_len(s);
		if (n == 0) {
			/* Not UTF-8: keep the byte's value, as Latin-1. */
			fprintf(f, "\\u%04x", *s);
			s++;
			continue;
		}
		fwrite(s, 1, (size_t)n, f);
		s += n;
	}
	fputc('"', f);
}

void json_string(struct json_out *j, const char *key, const char *v)
{
	if (!v) {
		json_null(j, key);
		return;
	}
	member(j, key);
	json_write_escaped(j->f, v);
}

void json_uint(struct json_out *j, const char *key, uint64_t v)
{
	member(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

void json_int(struct json_out *j, const char *key, int64_t v)
{
	member(j, key);
	fprintf(j->f, "%" PRId64, v);
}

void json_double(struct json_out *j, const char *key, double v, int decimals)
{
	member(j, key);
	if (!isfinite(v))
		fputs("null", j->f);    /* JSON has no NaN or infinity */
	else
		fprintf(j->f, "%.*f", decimals, v);
}

void json_bool(struct json_out *j, const char *key, bool v)
{
	member(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json_out *j, const char *key)
{
	member(j, key);
	fputs("null", j->f);
}

void json_finish(struct json_out *j)
{
	fputc('\n', j->f);
	fflush(j->f);
}
