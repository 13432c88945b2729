/* gtest_report.c - bug messages from GoogleTest failures
 * (gtest_report.h). */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "file_tail.h"
#include "gtest_report.h"

/* Lines after "FILE:LINE: Failure": EXPECT_EQ's takes five before the
 * user's own message ("Expected equality of these values:", each value
 * and its "Which is:"), which four lines lost. */
#define DETAIL_LINES 10

/* "FILE:LINE: Failure" (also "FILE(LINE): error: ..." is not gtest on
 * Linux): the length of "FILE:LINE", or 0. */
static size_t failure_head(const char *line, size_t len)
{
	static const char tail[] = ": Failure";
	size_t tl = sizeof(tail) - 1;

	if (len <= tl || memcmp(line + len - tl, tail, tl) != 0 ||
	    !sc_is_file_line(line, len - tl))
		return 0;
	return len - tl;
}

bool sc_parse_gtest(const char *text, char *msg, size_t msglen, char *loc,
		    size_t loclen)
{
	static const char run[] = "[ RUN      ] ";
	char test[256] = "";

	for (const char *line = text; line && *line; line = sc_next_line(line)) {
		size_t len = sc_line_len(line);
		if (len > sizeof(run) - 1 &&
		    strncmp(line, run, sizeof(run) - 1) == 0) {
			snprintf(test, sizeof(test), "%.*s",
				 (int)(len - (sizeof(run) - 1)),
				 line + sizeof(run) - 1);
			continue;
		}
		size_t head = failure_head(line, len);
		if (!head)
			continue;
		snprintf(loc, loclen, "%.*s", (int)head, line);
		int used = snprintf(msg, msglen, "%s%sfailed:",
				    test[0] ? test : "", test[0] ? " " : "");
		int n = 0;
		for (const char *d = sc_next_line(line);
		     d && *d && n < DETAIL_LINES && used > 0 &&
		     (size_t)used < msglen; d = sc_next_line(d), n++) {
			size_t dl = sc_line_len(d);
			const char *s = d + strspn(d, " ");
			size_t sl = dl - (size_t)(s - d);
			if (!sl || *s == '[' || failure_head(d, dl))
				break;
			used += snprintf(msg + used, msglen - (size_t)used,
					 "%s %.*s", n ? ";" : "", (int)sl, s);
		}
		return true;
	}
	return false;
}

void sc_describe_gtest(const struct sc_run_result *r, const char *path,
		       char *msg, size_t msglen, char *loc, size_t loclen)
{
	if (r->verdict == SC_VERDICT_EXIT && r->exit_status == 1)
		sc_describe_from_head(path, sc_parse_gtest, msg, msglen, loc,
				      loclen);
}
