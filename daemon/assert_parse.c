/* assert_parse.c - bug messages from glibc's and GLib's assertion lines. */
#include "config.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "assert_parse.h"

/* glibc: "%s%s%s:%u: %s%sAssertion `%s' failed." with the program name
 * and ": ", the file, the line, then the function and ": " when known. */
bool sc_parse_assert(const char *line, char *loc, size_t loclen)
{
	const char *a = strstr(line, "Assertion `");
	const char *end = line + strlen(line);
	const char *p, *num = NULL, *file, *func;
	size_t funclen;

	if (!a || end - a < 20 || strcmp(end - 9, "' failed.") != 0)
		return false;
	/* Find ":<digits>: " before the assertion text: the line number. */
	for (p = line; p < a; p++) {
		const char *q = p + 1;

		if (*p != ':' || !isdigit((unsigned char)*q))
			continue;
		while (isdigit((unsigned char)*q))
			q++;
		if (q[0] == ':' && q[1] == ' ') {
			num = p;
			break;
		}
	}
	if (!num)
		return false;
	/* The file starts after the program name's ": " (if any). */
	file = line;
	for (p = line; p + 1 < num; p++)
		if (p[0] == ':' && p[1] == ' ')
			file = p + 2;
	/* The function sits between ":<line>: " and the ": " before a. */
	func = strchr(num + 1, ':') + 2;
	funclen = a >= func + 2 && a[-2] == ':' && a[-1] == ' '
		  ? (size_t)(a - 2 - func) : 0;
	if (funclen)
		snprintf(loc, loclen, "%.*s (%.*s)", (int)(strchr(num + 1, ':') - file),
			 file, (int)funclen, func);
	else
		snprintf(loc, loclen, "%.*s", (int)(strchr(num + 1, ':') - file),
			 file);
	return true;
}

/* GLib: "ERROR:%s:%d:%s: %s" (file, line, function, what failed), alone
 * on its line or after g_test's "Bail out! " or a "** " log prefix. */
bool sc_parse_glib_assert(const char *line, char *loc, size_t loclen)
{
	static const char *const prefixes[] = { "", "Bail out! ", "** " };
	const char *file = NULL, *p, *num, *func, *colon;

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t n = strlen(prefixes[i]);
		if (strncmp(line, prefixes[i], n) == 0 &&
		    strncmp(line + n, "ERROR:", 6) == 0) {
			file = line + n + 6;
			break;
		}
	}
	if (!file || !strstr(file, "assertion failed"))
		return false;
	/* The file is up to the first ":<digits>:". */
	for (p = file; *p; p++)
		if (*p == ':' && isdigit((unsigned char)p[1]))
			break;
	if (!*p || p == file)
		return false;
	num = p + 1;
	while (isdigit((unsigned char)*num))
		num++;
	if (*num != ':')
		return false;
	func = num + 1;
	colon = strstr(func, ": ");
	if (!colon)
		return false;
	if (colon > func)
		snprintf(loc, loclen, "%.*s (%.*s)", (int)(num - file), file,
			 (int)(colon - func), func);
	else
		snprintf(loc, loclen, "%.*s", (int)(num - file), file);
	return true;
}

/* glibc's own reasons to abort, printed alone on a line before it
 * raises SIGABRT: its heap checks (malloc_printerr), the stack protector,
 * fortified functions, and "Fatal glibc error". */
static bool glibc_abort_line(const char *line)
{
	static const char *const starts[] = {
		"free(): ", "malloc(): ", "realloc(): ", "calloc(): ",
		"double free or corruption", "corrupted size vs. prev_size",
		"corrupted double-linked list", "munmap_chunk(): ",
		"malloc_consolidate(): ", "_int_malloc(): ", "_int_free(): ",
		"*** stack smashing detected ***",
		"*** buffer overflow detected ***", "Fatal glibc error: ",
	};

	for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++)
		if (strncmp(line, starts[i], strlen(starts[i])) == 0)
			return true;
	return false;
}

/* libstdc++'s verbose terminate handler: "terminate called after
 * throwing an instance of 'T'" and, for a std::exception, the next line
 * "  what():  TEXT"; or "terminate called without an active exception".
 * The last such account in tail, as one line in out. */
static bool cxx_terminate(const char *tail, char *out, size_t outlen)
{
	static const char threw[] = "terminate called after throwing an "
				    "instance of '";
	static const char bare[] = "terminate called without an active "
				   "exception";
	static const char what[] = "  what():  ";
	const char *last = NULL;

	for (const char *p = tail; (p = strstr(p, "terminate called")); p++)
		if (p == tail || p[-1] == '\n')
			last = p;
	if (!last)
		return false;
	if (strncmp(last, bare, sizeof(bare) - 1) == 0) {
		snprintf(out, outlen, "%s", bare);
		return true;
	}
	if (strncmp(last, threw, sizeof(threw) - 1) != 0)
		return false;
	const char *type = last + sizeof(threw) - 1;
	const char *type_end = strchr(type, '\'');
	const char *nl = strchr(last, '\n');
	if (!type_end || (nl && type_end > nl))
		return false;
	if (nl && strncmp(nl + 1, what, sizeof(what) - 1) == 0) {
		const char *w = nl + sizeof(what);
		const char *w_end = strchr(w, '\n');
		int wlen = w_end ? (int)(w_end - w) : (int)strlen(w);
		snprintf(out, outlen, "uncaught exception %.*s: %.*s",
			 (int)(type_end - type), type, wlen, w);
	} else {
		snprintf(out, outlen, "uncaught exception %.*s",
			 (int)(type_end - type), type);
	}
	return true;
}

void sc_bug_describe(const struct sc_run_result *r, const char *stderr_tail,
		     char *msg, size_t msglen, char *loc, size_t loclen)
{
	snprintf(msg, msglen, "%s", r->message);
	snprintf(loc, loclen, "%s", r->location);
	if (r->verdict != SC_VERDICT_ASSERT || !stderr_tail)
		return;
	/* QA: std::async's exception rethrown by get() and not caught read
	 * "SIGABRT (Aborted) in T0 at __pthread_kill_implementation",
	 * the exception's type and what() only in the .err file. */
	char why[1024];
	if (cxx_terminate(stderr_tail, why, sizeof(why))) {
		snprintf(msg, msglen, "%s: %s", why, r->message);
		return;
	}
	/* Look at the lines from the last one back: another thread may
	 * have printed after the assertion. */
	for (const char *end = stderr_tail + strlen(stderr_tail);
	     end > stderr_tail;) {
		const char *b = end;
		char line[2048];

		while (b > stderr_tail && b[-1] != '\n')
			b--;
		snprintf(line, sizeof(line), "%.*s", (int)(end - b), b);
		if (sc_parse_assert(line, loc, loclen) ||
		    sc_parse_glib_assert(line, loc, loclen)) {
			snprintf(msg, msglen, "%s", line);
			return;
		}
		/* QA: a double free read "SIGABRT in T2 at
		 * __pthread_kill_implementation", glibc's reason only in
		 * the stderr tail.  Its line goes first, the signal's
		 * account (the thread, the caller) after it. */
		if (glibc_abort_line(line)) {
			snprintf(msg, msglen, "glibc: %s: %s", line, r->message);
			return;
		}
		end = b > stderr_tail ? b - 1 : b;
	}
}
