/*
 * race_detect.h - data races of one run (internal to libanalysis).
 */
#ifndef SCHEDCTL_RACE_DETECT_H
#define SCHEDCTL_RACE_DETECT_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis.h"
#include "atomic_vars.h"

/* Called once per racing pair of events (indexes into t->events, first <
 * second). */
typedef int (*race_fn)(void *ctx, size_t first, size_t second);
/* Whether memory event ev is made by the code of an atomic type (the
 * load or store of std::atomic, Rust's atomics): synchronisation. */
typedef bool (*atomic_code_fn)(void *ctx, size_t ev);

/* Find the data races of a run: memory events (read, write, rmw) of
 * different threads on overlapping bytes, at least one writing, unordered
 * by the synchronisation-only happens-before of hb_rules.h.  For each
 * access, the latest read and latest write of every other thread on the
 * same bytes are checked (a thread's earlier accesses are ordered before
 * its later ones, so this finds every statement pair that races at least
 * once, and counts one pair per access and other thread).  Returns 0, or
 * -1 with a one-line reason (too many threads, out of memory, or fn's
 * non-zero answer). */
/* atomics (one set per module map of t, t->nmaps of them; may be NULL):
 * the static data that debug information declares atomic.  An access to
 * it is synchronisation (an acquire for a read, a release for a write),
 * never a data race, like any access to a word an atomic instruction
 * touched.  So is an access atomic_code (may be NULL) says an atomic
 * type's code made, and so are the other accesses to its word.
 * The processes of a --follow-forks trace have their own memory: the
 * same address in two of them is two words, which never race.
 * reported: the races analyze reports.  A synchronisation word that an
 * instruction lifted at t->mem_site_cap touches is taken to order every
 * later event (see count_site in race_detect.c): what analyze reports
 * must not be made of the unseen end of a spin loop; and data passed
 * through a descriptor is ordered (hb_rules.h).  The race pilot leaves
 * both out: it wants candidates to schedule, and the accesses after
 * such a loop or around a write to a file are worth scheduling all the
 * same (more order there could only take points away). */
int race_detect(const struct sc_trace *t, const struct sc_atomic_set *atomics,
		atomic_code_fn atomic_code, bool reported, race_fn fn,
		void *ctx, char *err, size_t errlen);

#endif /* SCHEDCTL_RACE_DETECT_H */
