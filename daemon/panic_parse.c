/* panic_parse.c - bug messages from Rust and Go panic lines
 * (panic_parse.h). */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

bool sc_parse_panic(const char *line, const char *next, char *msg,
		    size_t msglen, char *loc, size_t loclen)
{
	static const char pre[] = "thread '";
	const char *name, *at, *rest, *comma;
	size_t len = strlen(line);

	if (strncmp(line, pre, sizeof(pre) - 1) != 0)
		return false;
	name = line + sizeof(pre) - 1;
	at = panic_head(name, &rest);
	if (!at)
		return false;
	if (*rest == '\'') {
		/* 'MESSAGE', FILE:LINE:COL */
		comma = strstr(rest + 1, "', ");
		while (comma && strstr(comma + 3, "', "))
			comma = strstr(comma + 3, "', ");
		if (!comma)
			return false;
		snprintf(msg, msglen, "panicked: %.*s (thread '%.*s')",
			 (int)(comma - rest - 1), rest + 1, (int)(at - name),
			 name);
		snprintf(loc, loclen, "%s", comma + 3);
		return true;
	}
	/* FILE:LINE:COL: and the message on the next line */
	if (len < 2 || line[len - 1] != ':')
		return false;
	snprintf(msg, msglen, "panicked: %s (thread '%.*s')", next ? next : "",
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
	if (tab) {
		const char *file = tab + 2;
		size_t flen = strcspn(file, " \n");
		snprintf(loc, loclen, "%.*s", (int)flen, file);
	}
	return true;
}

void sc_describe_panic(const struct sc_run_result *r, const char *path,
		       char *msg, size_t msglen, char *loc, size_t loclen)
{
	if (r->verdict != SC_VERDICT_EXIT ||
	    (r->exit_status != RUST_PANIC_STATUS &&
	     r->exit_status != GO_PANIC_STATUS))
		return;
	char *buf = sc_file_head(path, SC_REPORT_HEAD_BYTES);
	if (!buf)
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
	size_t n = strlen(buf);
	for (char *line = buf; line && *line;) {
		char *nl = strchr(line, '\n'), *next = NULL;
		if (nl) {
			*nl = '\0';
			next = nl + 1;
			char *nl2 = strchr(next, '\n');
			if (nl2)
				*nl2 = '\0';
		}
		bool found = sc_parse_panic(line, next, msg, msglen, loc, loclen);
		if (next && strchr(next, '\0') != buf + n)
			next[strlen(next)] = '\n';   /* undo the look-ahead cut */
		if (found)
			break;
		line = next;
	}
	free(buf);
}
