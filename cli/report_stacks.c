/* report_stacks.c - the stacks of a bug's threads, as a debugger shows
 * them ("#1  0x... in a_then_b at abba_deadlock.c:22 (abba_deadlock)"),
 * and as JSON arrays of frames with their parts.
 *
 * The daemon sends them as text, one frame per line, "T<n> 0x<pc>
 * <frame>", innermost first, where frame is "function at file:line
 * (module)", "function+0xoff (module)", "function (module)" or
 * "module+0xoff" (tracer.h, sc_run_result.stacks).  A call inlined at
 * the pc is a frame of its own with the same pc, "function at file:line
 * (module, inlined)", as gdb lists them.  The one frame of a thread that
 * has not started yet ends in " (not started yet)" (tracer/stack.c).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "report.h"

struct frame {
	unsigned thread;
	uint64_t pc;
	char text[600];
	char function[600], file[600], module[256];
	unsigned line;
	bool inlined;
	bool not_started;       /* the thread has not run yet */
	unsigned not_shown;     /* the stack's last line: frames left out */
};

/* The tracer's last line of a stack cut at its frame limit. */
static const char CUT[] = SC_ELLIPSIS " (";

static const char NOT_STARTED[] = " (not started yet)";

/* Parse one line; false when it is not a frame line. */
static bool parse_line(const char *s, size_t n, struct frame *f)
{
	char line[700];
	int used = 0;

	if (n >= sizeof(line))
		n = sizeof(line) - 1;
	memcpy(line, s, n);
	line[n] = '\0';
	memset(f, 0, sizeof(*f));
	if (sscanf(line, "T%u 0x%" SCNx64 " %n", &f->thread, &f->pc, &used) < 2 ||
	    used <= 0)
		return false;
	snprintf(f->text, sizeof(f->text), "%s", line + used);
	if (f->pc == 0 && strncmp(f->text, CUT, sizeof(CUT) - 1) == 0) {
		f->not_shown = (unsigned)strtoul(f->text + sizeof(CUT) - 1,
						 NULL, 10);
		return true;
	}

	char rest[600];
	snprintf(rest, sizeof(rest), "%s", f->text);
	size_t len = strlen(rest), note = sizeof(NOT_STARTED) - 1;
	if (len >= note && strcmp(rest + len - note, NOT_STARTED) == 0) {
		/* A note, not a module: the frame is what precedes it. */
		len -= note;
		rest[len] = '\0';
		f->not_started = true;
	}
	char *open = NULL;      /* the last " (": names hold parentheses */
	for (char *p = rest; (p = strstr(p, " (")); p++)
		open = p;
	if (open && len && rest[len - 1] == ')') {
		rest[len - 1] = '\0';
		snprintf(f->module, sizeof(f->module), "%s", open + 2);
		*open = '\0';
		char *inl = strstr(f->module, ", inlined");
		if (inl && inl[9] == '\0') {
			*inl = '\0';
			f->inlined = true;
		}
		char *at = strstr(rest, " at ");
		char *colon = at ? strrchr(at + 4, ':') : NULL;
		if (at && colon) {
			*at = '\0';
			*colon = '\0';
			snprintf(f->file, sizeof(f->file), "%s", at + 4);
			f->line = (unsigned)strtoul(colon + 1, NULL, 10);
		} else {
			char *plus = strstr(rest, "+0x");
			if (plus)
				*plus = '\0';
		}
		snprintf(f->function, sizeof(f->function), "%s", rest);
	} else {
		/* "module+0xoff": no symbol. */
		char *plus = strstr(rest, "+0x");
		if (plus)
			*plus = '\0';
		snprintf(f->module, sizeof(f->module), "%s", rest);
	}
	return true;
}

/* Call fn for each frame line of stacks. */
static void each_frame(const char *stacks, void (*fn)(const struct frame *,
						     unsigned, void *),
		       void *arg)
{
	unsigned depth = 0, thread = ~0u;
	struct frame f;

	for (const char *p = stacks; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (parse_line(p, n, &f)) {
			depth = f.thread == thread ? depth + 1 : 0;
			thread = f.thread;
			fn(&f, depth, arg);
		}
		p += n + (nl ? 1 : 0);
	}
}

static void print_frame(const struct frame *f, unsigned depth, void *arg)
{
	FILE *out = arg;

	if (depth == 0)
		fprintf(out, "  stack of T%u:\n", f->thread);
	if (f->not_shown)
		fprintf(out, "    #%-2u %s\n", depth, f->text);
	else
		fprintf(out, "    #%-2u 0x%012" PRIx64 " in %s\n", depth,
			f->pc, f->text);
}

void report_stacks_text(FILE *out, const char *stacks)
{
	each_frame(stacks, print_frame, out);
}

struct json_walk {
	struct json_out *j;
	bool open;                  /* a thread object is open */
};

static void json_frame(const struct frame *f, unsigned depth, void *arg)
{
	struct json_walk *w = arg;
	char pc[24];

	if (depth == 0) {
		if (w->open) {
			json_end(w->j);         /* frames */
			json_end(w->j);         /* thread */
		}
		json_begin_object(w->j, NULL);
		json_uint(w->j, "thread", f->thread);
		json_begin_array(w->j, "frames");
		w->open = true;
	}
	json_begin_object(w->j, NULL);
	snprintf(pc, sizeof(pc), "0x%" PRIx64, f->pc);
	json_string(w->j, "pc", pc);
	json_string(w->j, "function", *f->function ? f->function : NULL);
	json_string(w->j, "file", *f->file ? f->file : NULL);
	if (f->line)
		json_uint(w->j, "line", f->line);
	else
		json_null(w->j, "line");
	json_string(w->j, "module", *f->module ? f->module : NULL);
	json_bool(w->j, "inlined", f->inlined);
	if (f->not_started)
		json_bool(w->j, "not_started", true);
	if (f->not_shown)
		json_uint(w->j, "frames_not_shown", f->not_shown);
	json_string(w->j, "text", f->text);
	json_end(w->j);
}

void report_stacks_json(struct json_out *j, const char *stacks)
{
	struct json_walk w = { .j = j, .open = false };

	json_begin_array(j, "stacks");
	each_frame(stacks, json_frame, &w);
	if (w.open) {
		json_end(j);
		json_end(j);
	}
	json_end(j);
}
