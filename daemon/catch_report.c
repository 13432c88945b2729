/* catch_report.c - bug messages from Catch2 and doctest failures
 * (catch_report.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "catch_report.h"
#include "file_tail.h"

/* Lines after the failure's head that say what failed. */
#define DETAIL_LINES 6

/* "FILE:LINE: TAG" at the start of line (len bytes): the length of
 * "FILE:LINE", or 0. */
static size_t located(const char *line, size_t len, const char *tag)
{
	size_t tl = strlen(tag);
	const char *at = NULL;

	for (const char *p = line; p + tl <= line + len; p++)
		if (strncmp(p, tag, tl) == 0) {
			at = p;
			break;
		}
	if (!at)
		return 0;
	size_t end = (size_t)(at - line);
	if (!sc_is_file_line(line, end) || memchr(line, ' ', end))
		return 0;
	return end;
}

/* Append the indented or labelled lines after head, "; "-separated, up
 * to an empty line. */
static void details(const char *head, char *msg, size_t msglen)
{
	size_t used = strlen(msg);
	int n = 0;

	for (const char *d = sc_next_line(head); d && *d && n < DETAIL_LINES &&
	     used < msglen; d = sc_next_line(d), n++) {
		size_t dl = sc_line_len(d);
		const char *s = d + strspn(d, " ");
		size_t sl = dl - (size_t)(s - d);
		if (!sl || *s == '=' || *s == '-')
			break;
		int w = snprintf(msg + used, msglen - used, "%s%.*s",
				 n ? "; " : " ", (int)sl, s);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

static bool dashes(const char *line, size_t len)
{
	return len >= 20 && strspn(line, "-") == len;
}

bool sc_parse_catch(const char *text, char *msg, size_t msglen, char *loc,
		    size_t loclen)
{
	static const char doctest_case[] = "TEST CASE:  ";
	char test[256] = "";
	const char *prev = NULL;

	for (const char *line = text; line && *line;
	     prev = line, line = sc_next_line(line)) {
		size_t len = sc_line_len(line), head;

		/* Catch2: the test case's name between two rules. */
		if (prev && dashes(prev, sc_line_len(prev)) && !dashes(line, len) &&
		    sc_next_line(line) &&
		    dashes(sc_next_line(line), sc_line_len(sc_next_line(line))))
			snprintf(test, sizeof(test), "%.*s", (int)len, line);
		if (len > sizeof(doctest_case) - 1 &&
		    strncmp(line, doctest_case, sizeof(doctest_case) - 1) == 0)
			snprintf(test, sizeof(test), "%.*s",
				 (int)(len - (sizeof(doctest_case) - 1)),
				 line + sizeof(doctest_case) - 1);
		if ((head = located(line, len, ": FAILED:")) != 0) {
			snprintf(loc, loclen, "%.*s", (int)head, line);
			snprintf(msg, msglen, "%s%sfailed:", test,
				 test[0] ? " " : "");
			details(line, msg, msglen);
			return true;
		}
		if ((head = located(line, len, ": ERROR: ")) != 0) {
			const char *what = line + head + strlen(": ERROR: ");
			snprintf(loc, loclen, "%.*s", (int)head, line);
			snprintf(msg, msglen, "%s%sfailed: %.*s", test,
				 test[0] ? " " : "",
				 (int)(len - (size_t)(what - line)), what);
			details(line, msg, msglen);
			return true;
		}
	}
	return false;
}

void sc_describe_catch(const struct sc_run_result *r, const char *path,
		       char *msg, size_t msglen, char *loc, size_t loclen)
{
	if (r->verdict == SC_VERDICT_EXIT && r->exit_status != 0)
		sc_describe_from_head(path, sc_parse_catch, msg, msglen, loc,
				      loclen);
}
