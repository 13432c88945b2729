/* sanitizer_report.c - bug messages from sanitizer reports
 * (sanitizer_report.h). */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "file_tail.h"
#include "sanitizer_report.h"

/* Where the report of a line starts ("AddressSanitizer: ...", after
 * "ERROR: " or "WARNING: "; for UBSan the whole "FILE:LINE:COL: runtime
 * error: ..." line), or NULL. */
static const char *report_start(const char *line, size_t len, bool *ubsan)
{
	static const char *const names[] = { "AddressSanitizer: ",
		"LeakSanitizer: ", "ThreadSanitizer: ",
		"UndefinedBehaviorSanitizer: ", "MemorySanitizer: ", NULL };
	static const char *const kinds[] = { "ERROR: ", "WARNING: ", NULL };
	char copy[1024];

	snprintf(copy, sizeof(copy), "%.*s", (int)len, line);
	*ubsan = false;
	for (int k = 0; kinds[k]; k++) {
		const char *at = strstr(copy, kinds[k]);
		if (!at)
			continue;
		at += strlen(kinds[k]);
		for (int i = 0; names[i]; i++)
			if (strncmp(at, names[i], strlen(names[i])) == 0)
				return line + (at - copy);
	}
	if (strstr(copy, ": runtime error: ")) {
		*ubsan = true;
		return line;
	}
	return NULL;
}

/* A stack frame line: "#N 0xADDR in FUNC FILE:LINE[:COL]" (ASan) or
 * "#N FUNC FILE:LINE:COL (MODULE+0xOFF)" (TSan), or "(MODULE+0xOFF)" in
 * place of the file.  Writes "FILE:LINE (FUNC)", or "FUNC (MODULE+0xOFF)"
 * without a line; false when not a frame, or a frame of the sanitizer's
 * own runtime (an interceptor: the program's frame is the next one). */
static bool frame_location(const char *line, size_t len, char *loc,
			   size_t loclen)
{
	char copy[1024], func[256] = "", where[512] = "";
	const char *p;

	snprintf(copy, sizeof(copy), "%.*s", (int)len, line);
	p = copy + strspn(copy, " \t");
	if (*p != '#')
		return false;
	p += strcspn(p, " ");
	p += strspn(p, " ");
	if (strncmp(p, "0x", 2) == 0) {          /* ASan: "0xADDR in " */
		p += strcspn(p, " ");
		p += strspn(p, " ");
		if (strncmp(p, "in ", 3) == 0)
			p += 3;
	}
	if (sscanf(p, "%255s %511s", func, where) < 1 ||
	    strncmp(func, "__interceptor_", 14) == 0 ||
	    strncmp(func, "__sanitizer", 11) == 0 ||
	    strncmp(func, "__asan", 6) == 0 || strncmp(func, "__tsan", 6) == 0 ||
	    strstr(where, "/libsanitizer/") || strstr(where, "compiler-rt/") ||
	    strstr(copy, "(libtsan.so") || strstr(copy, "(libasan.so"))
		return false;
	/* FILE:LINE:COL -> FILE:LINE */
	char *colon = strrchr(where, ':');
	bool has_line = where[0] && where[0] != '(' && colon &&
			colon[1] >= '0' && colon[1] <= '9';
	if (has_line) {
		char *first = strchr(where, ':');
		char *second = first ? strchr(first + 1, ':') : NULL;
		if (second)
			*second = '\0';
	}
	if (has_line)
		snprintf(loc, loclen, "%s (%s)", where, func);
	else if (where[0])
		snprintf(loc, loclen, "%s %s", func, where);
	else
		snprintf(loc, loclen, "%s", func);
	return true;
}

bool sc_parse_sanitizer(const char *text, char *msg, size_t msglen,
			char *loc, size_t loclen)
{
	for (const char *line = text; line && *line; line = sc_next_line(line)) {
		size_t len = sc_line_len(line);
		bool ubsan;
		const char *start = report_start(line, len, &ubsan);
		if (!start)
			continue;
		size_t n = len - (size_t)(start - line);
		if (ubsan) {
			/* FILE:LINE:COL: runtime error: MESSAGE */
			const char *err = strstr(start, ": runtime error: ");
			snprintf(msg, msglen, "UndefinedBehaviorSanitizer: %.*s",
				 (int)(n - (size_t)(err + 17 - start)), err + 17);
			snprintf(loc, loclen, "%.*s", (int)(err - start), start);
			return true;
		}
		/* Cut ASan's " at pc 0x... bp 0x... sp 0x..." and TSan's
		 * " (pid=N)". */
		const char *cut = strstr(start, " at pc 0x");
		const char *pid = strstr(start, " (pid=");
		if (pid && (!cut || pid < cut))
			cut = pid;
		if (cut && cut < start + n)
			n = (size_t)(cut - start);
		int used = snprintf(msg, msglen, "%.*s", (int)n, start);
		/* The access: "WRITE of size 4 at 0x... thread T0", TSan's
		 * "  Write of size 4 at 0x... by thread T1:" */
		const char *access = sc_next_line(line);
		if (access && used > 0 && (size_t)used < msglen) {
			const char *a = access + strspn(access, " ");
			size_t alen = sc_line_len(a);
			if (strncasecmp(a, "READ of size", 12) == 0 ||
			    strncasecmp(a, "WRITE of size", 13) == 0 ||
			    strncmp(a, "Atomic ", 7) == 0) {
				if (alen && a[alen - 1] == ':')
					alen--;
				snprintf(msg + used, msglen - (size_t)used, " (%.*s)",
					 (int)alen, a);
			}
		}
		/* The first frame of the program in the report's first
		 * stack (within the next lines). */
		loc[0] = '\0';
		bool in_stack = false;
		int seen = 0;
		for (const char *f = sc_next_line(line); f && *f && seen < 24;
		     f = sc_next_line(f), seen++) {
			const char *s = f + strspn(f, " \t");
			if (*s != '#') {
				if (in_stack)
					break;  /* the end of the first stack */
				continue;
			}
			in_stack = true;
			if (frame_location(f, sc_line_len(f), loc, loclen))
				break;
		}
		return true;
	}
	return false;
}

void sc_describe_sanitizer(const struct sc_run_result *r, const char *path,
			   char *msg, size_t msglen, char *loc, size_t loclen)
{
	if (r->verdict == SC_VERDICT_EXIT || r->verdict == SC_VERDICT_ASSERT)
		sc_describe_from_head(path, sc_parse_sanitizer, msg, msglen,
				      loc, loclen);
}
