/*
 * json_out.h - a tiny streaming JSON writer for --json output.
 *
 * Calls nest like the document: json_begin_object(j, key) ... json_end(j).
 * key is the member name inside an object and NULL inside an array (or at
 * the top).  Strings are escaped per RFC 8259; bytes that are not valid
 * UTF-8 are written as \u00XX so that the output always parses.
 */
#ifndef SCHEDCTL_CLI_JSON_OUT_H
#define SCHEDCTL_CLI_JSON_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json_out {
	FILE *f;
	int depth;
	bool first[JSON_MAX_DEPTH];     /* no member written yet at depth */
	char closer[JSON_MAX_DEPTH];    /* '}' or ']' of the scope at depth */
	bool pretty;
};

void json_init(struct json_out *j, FILE *f, bool pretty);
void json_begin_object(struct json_out *j, const char *key);
void json_begin_array(struct json_out *j, const char *key);
void json_end(struct json_out *j);     /* closes the innermost object/array */

void json_string(struct json_out *j, const char *key, const char *v); /* NULL -> null */
void json_uint(struct json_out *j, const char *key, uint64_t v);
void json_int(struct json_out *j, const char *key, int64_t v);
void json_double(struct json_out *j, const char *key, double v, int decimals);
/* v with 6 significant digits ("2.5e-07"): for probabilities. */
void json_double_g(struct json_out *j, const char *key, double v);
void json_bool(struct json_out *j, const char *key, bool v);
void json_null(struct json_out *j, const char *key);

/* Finish the document with a newline. */
void json_finish(struct json_out *j);

/* Write s as a JSON string literal (quotes included). */
void json_write_escaped(FILE *f, const char *s);

#endif /* SCHEDCTL_CLI_JSON_OUT_H */
