/* panic_parse.c - bug messages from Rust and Go panic lines
 * (panic_parse.h). */
#include "config.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dwarf_inline.h"
#include "file_tail.h"
#include "panic_parse.h"

/* Rust's exit status after an uncaught panic, and Go's after a panic or
 * a fatal error of its runtime. */
#define RUST_PANIC_STATUS 101
#define GO_PANIC_STATUS 2

/* In "thread 'NAME' panicked at " or, since Rust 1.88 or so, "thread
 * 'NAME' (TID) panicked at ": where NAME ends (its closing quote), and
 * *rest where the location or message begins; NULL when not a panic. */
static const char *panic_head(const char *name, const char **rest)
{
	static const char mid[] = " panicked at ";

	for (const char *at = strstr(name, mid); at; at = strstr(at + 1, mid)) {
		const char *q = at;

		if (q > name && q[-1] == ')') {   /* " (TID)" */
			const char *open = q - 1;
			while (open > name && open[-1] >= '0' && open[-1] <= '9')
				open--;
			if (open - 2 >= name && open[-1] == '(' &&
			    open[-2] == ' ' && open < q - 1)
				q = open - 2;
		}
		if (q > name && q[-1] == '\'') {
			*rest = at + sizeof(mid) - 1;
			return q - 1;
		}
	}
	return NULL;
}

/* Lines a panic's message spans at most, in either form (assert_eq!'s
 * "left:" and "right:" lines, a user message after them). */
#define MESSAGE_LINES 8

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Is s (up to end) "FILE:LINE:COL", a location? */
static bool is_location(const char *s, const char *end)
{
	int fields = 0;
	const char *p = end;

	while (fields < 2) {
		const char *d = p;
		while (d > s && d[-1] >= '0' && d[-1] <= '9')
			d--;
		if (d == p || d == s || d[-1] != ':')
			return false;
		p = d - 1;
		fields++;
	}
	return p > s && !memchr(s, ' ', (size_t)(p - s));
}

/* Append text[0, n) to msg at *used, every newline and the indentation
 * after it one space: a message over lines reads as one. */
static void append_flat(char *msg, size_t msglen, size_t *used,
			const char *text, size_t n)
{
	for (size_t i = 0; i < n && *used + 1 < msglen; i++) {
		if (text[i] == '\n') {
			while (i + 1 < n && (text[i + 1] == ' ' || text[i + 1] == '\t'))
				i++;
			msg[(*used)++] = ' ';
		} else {
			msg[(*used)++] = text[i];
		}
	}
	msg[*used] = '\0';
}

bool sc_parse_panic(const char *line, char *msg, size_t msglen, char *loc,
		    size_t loclen)
{
	static const char pre[] = "thread '";
	const char *name, *at, *rest;
	size_t len = strcspn(line, "\n"), used;

	if (strncmp(line, pre, sizeof(pre) - 1) != 0)
		return false;
	name = line + sizeof(pre) - 1;
	at = panic_head(name, &rest);
	if (!at || rest > line + len)
		return false;
	used = (size_t)snprintf(msg, msglen, "panicked: ");
	if (*rest == '\'') {
		/* 'MESSAGE', FILE:LINE:COL, the message possibly over several
		 * lines (assert_eq!'s left and right): the first line, from
		 * this one on, that ends in "', " and a location ends it (its
		 * last "', ": a message may hold one). */
		const char *l = line, *end = line + len, *comma = NULL;
		for (int n = 0; n < MESSAGE_LINES && !comma; n++) {
			for (const char *c = strstr(l, "', "); c && c < end;
			     c = strstr(c + 1, "', "))
				if (is_location(c + 3, end))
					comma = c;
			if (comma || !*end)
				break;
			l = end + 1;
			end = l + strcspn(l, "\n");
		}
		if (!comma)
			return false;
		append_flat(msg, msglen, &used, rest + 1,
			    (size_t)(comma - rest - 1));
		snprintf(msg + used, msglen - used, " (thread '%.*s')",
			 (int)(at - name), name);
		snprintf(loc, loclen, "%.*s", (int)(end - comma - 3), comma + 3);
		return true;
	}
	/* FILE:LINE:COL: and the message on the lines after it, up to a
	 * blank line, the backtrace or its note. */
	if (len < 2 || line[len - 1] != ':')
		return false;
	const char *m = line[len] ? line + len + 1 : "";
	const char *mend = m + strcspn(m, "\n");
	for (int n = 1; n < MESSAGE_LINES && *mend == '\n'; n++) {
		const char *l = mend + 1;
		if (!*l || *l == '\n' || starts(l, "stack backtrace:") ||
		    starts(l, "note: ") || starts(l, "thread '"))
			break;
		mend = l + strcspn(l, "\n");
	}
	append_flat(msg, msglen, &used, m, (size_t)(mend - m));
	snprintf(msg + used, msglen - used, " (thread '%.*s')",
		 (int)(at - name), name);
	snprintf(loc, loclen, "%.*s", (int)(line + len - 1 - rest), rest);
	return true;
}

bool sc_parse_go_panic(const char *text, char *msg, size_t msglen,
		       char *loc, size_t loclen)
{
	static const char *const heads[] = { "panic: ", "fatal error: " };
	const char *line = text, *what = NULL;

	/* The first line that starts a panic or a fatal error. */
	while (line && *line && !what) {
		for (size_t i = 0; i < 2 && !what; i++)
			if (strncmp(line, heads[i], strlen(heads[i])) == 0)
				what = line;
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	if (!what)
		return false;
	size_t what_len = strcspn(what, "\n");
	/* "goroutine N [running]:", its function, then "\tFILE:LINE +0x..". */
	const char *g = strstr(what, "\ngoroutine ");
	const char *tab = g ? strstr(g, "\n\t") : NULL;
	if (g) {
		size_t glen = strcspn(g + 1, " ");
		const char *num = g + 1 + glen + 1;
		snprintf(msg, msglen, "%.*s (goroutine %.*s)", (int)what_len,
			 what, (int)strcspn(num, " \n"), num);
	} else {
		snprintf(msg, msglen, "%.*s", (int)what_len, what);
	}
	loc[0] = '\0';
	/* The goroutine's first frame of the program's own code: a fatal
	 * deadlock's first frame is the runtime's (sema.go), and the
	 * program's WaitGroup.Wait comes below it.  The first frame when
	 * none is the program's.  The goroutine's block ends at a blank
	 * line. */
	const char *end = g ? strstr(g + 1, "\n\n") : NULL;
	for (const char *t = tab; t && (!end || t < end);
	     t = strstr(t + 2, "\n\t")) {
		const char *file = t + 2;
		size_t flen = strcspn(file, " \n");
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%.*s", (int)flen, file);
		bool own = !sc_system_source(path);
		if (t == tab || own)
			snprintf(loc, loclen, "%s", path);
		if (own)
			break;
	}
	return true;
}

/* The first panic of text, line by line. */
static bool first_panic(const char *text, char *msg, size_t msglen,
			char *loc, size_t loclen)
{
	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		if (sc_parse_panic(line, msg, msglen, loc, loclen))
			return true;
		line = nl ? nl + 1 : NULL;
	}
	return false;
}

void sc_describe_panic(const struct sc_run_result *r, const char *path,
		       const char *out_path, char *msg, size_t msglen,
		       char *loc, size_t loclen)
{
	if (r->verdict != SC_VERDICT_EXIT ||
	    (r->exit_status != RUST_PANIC_STATUS &&
	     r->exit_status != GO_PANIC_STATUS))
		return;
	char *buf = sc_file_head(path, SC_REPORT_HEAD_BYTES);
	if (!buf && r->exit_status == GO_PANIC_STATUS)
		return;
	if (r->exit_status == GO_PANIC_STATUS) {
		char m[1024], l[512];
		if (sc_parse_go_panic(buf, m, sizeof(m), l, sizeof(l))) {
			snprintf(msg, msglen, "%s", m);
			if (l[0])
				snprintf(loc, loclen, "%s", l);
		}
		free(buf);
		return;
	}
	/* An empty stderr (sc_file_head: NULL) is no panic. */
	bool found = buf && first_panic(buf, msg, msglen, loc, loclen);
	free(buf);
	if (found || !out_path)
		return;
	/* A cargo test binary: libtest captures each test's output and
	 * prints a failed test's at the end, on stdout, under "---- NAME
	 * stdout ----" (the panic's thread is the test's name). */
	char *tail = malloc(SC_REPORT_HEAD_BYTES);
	if (!tail)
		return;
	sc_file_tail(out_path, SC_REPORT_HEAD_BYTES / 16, tail,
		     SC_REPORT_HEAD_BYTES);
	const char *section = strstr(tail, "\n---- ");
	first_panic(section ? section + 1 : tail, msg, msglen, loc, loclen);
	free(tail);
}
