/* json_out.c - streaming JSON writer (json_out.h). */
#include "config.h"

#include <inttypes.h>
#include <math.h>

#include "json_escape.h"
#include "cli.h"
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


void json_write_escaped(FILE *f, const char *str)
{
	sc_json_string(f, str);
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

void json_double_g(struct json_out *j, const char *key, double v)
{
	member(j, key);
	if (!isfinite(v))
		fputs("null", j->f);
	else
		fprintf(j->f, "%.6g", v);
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
	if (j->f == stdout)
		cli_json_printed = true;
}
