/* report_tail.c - the last lines of a failing run's stderr in its bug
 * block: when a program exits non-zero the reason is usually what it said
 * last (a GoogleTest failure, an assert message, "terminate called after
 * throwing ..."), and the report should show it without a trip to the
 * .err file.  A program that said nothing on stderr may have said it on
 * stdout (GoogleTest prints its failures there): then stdout's last
 * lines are shown. */
#include <stdio.h>
#include <string.h>

#include "file_tail.h"
#include "report.h"

/* A line longer than this is cut: the block is a pointer to the file,
 * not a copy of it. */
#define TAIL_LINE_MAX 160
#define TAIL_LINES_MAX 8

/* Print one line of the tail, indented; bytes a terminal would act on
 * (escape sequences, carriage returns) print as '?'. */
static void put_line(const char *s, size_t n)
{
	size_t shown = n > TAIL_LINE_MAX ? TAIL_LINE_MAX : n;

	fputs("    ", stdout);
	for (size_t i = 0; i < shown; i++) {
		unsigned char c = (unsigned char)s[i];

		putchar(c == '\t' || c >= 0x20 ? c : '?');
	}
	if (shown < n)
		fputs(" [...]", stdout);
	putchar('\n');
}

void report_stderr_tail(const Scctl__Bug *b)
{
	const char *t = b->stderr_tail;
	const char *path = b->stderr_path, *name = "stderr";
	const char *end, *p;
	unsigned lines = 0;
	char out_tail[1024];

	if ((!t || !*t) && b->stdout_path && *b->stdout_path) {
		sc_file_tail(b->stdout_path, 5, out_tail, sizeof(out_tail));
		t = out_tail;
		path = b->stdout_path;
		name = "stdout";
	}
	if (!t || !*t)
		return;
	/* The daemon sends at most a few lines; keep the last ones anyway
	 * should that change. */
	end = t + strlen(t);
	while (end > t && end[-1] == '\n')
		end--;
	for (p = end; p > t; p--)
		if (p[-1] == '\n' && ++lines == TAIL_LINES_MAX)
			break;
	if (path && *path)
		printf("  %s (last lines of %s):\n", name, path);
	else
		printf("  %s (last lines):\n", name);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		put_line(p, n);
		p += n + (nl ? 1 : 0);
	}
}
