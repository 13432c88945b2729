/*
 * minimize.h - what schedctl minimize's parts share.
 */
#ifndef SCHEDCTL_MINIMIZE_H
#define SCHEDCTL_MINIMIZE_H

#include <stdbool.h>
#include <stdint.h>

struct sc_trace;

/* One of the two events of the racing pair. */
struct minimize_side {
	uint32_t thread;
	uint64_t step;
	const char *kind;               /* event kind name */
	char verb[40];                  /* "writes" / "read" ... */
	uint64_t object;
	char object_name[160];          /* a variable, or 0x... */
	char location[512];             /* file:line, module+0x..., 0x... */
	char function[256];
	bool in_program;                /* location is the program's own line */
};

/* `earlier` ran first in the failing run; `later` is the preempted
 * thread's event that moving the preemption put before it. */
struct minimize_pair {
	struct minimize_side earlier, later;
	bool conflict;                  /* same object, not two reads */
	bool same_object;
};

/* The pair around the preemption of `thread` after its counted event
 * switch_at - 1 (guide.h), whose counted event `decisive` must run after
 * the others for the failure: from trace t, the failing run, and when
 * the failure came before that event, from moved, the run where it came
 * earlier and passed (may be NULL).  0, or -1 when they do not hold them. */
int minimize_name_pair(const struct sc_trace *t, const struct sc_trace *moved,
		       uint32_t thread, uint32_t switch_at, uint32_t decisive,
		       struct minimize_pair *out);

#endif /* SCHEDCTL_MINIMIZE_H */
