/* search_points.c - a failing chess run's preemptions in words
 * (search_points.h). */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analysis.h"
#include "search_points.h"

/* " lock_b (0x555555558060)", or " 0x7ffc..." without a symbol. */
static void describe_object(struct sc_symbolizer *sym,
			    const struct sc_trace_map *map, uint64_t object,
			    char *buf, size_t len)
{
	struct sc_symbol s;

	buf[0] = '\0';
	if (!object)
		return;
	if (sym && map &&
	    sc_symbolizer_data(sym, map->modules, map->nmodules, object,
			       &s) == 0 && s.location[0] &&
	    strncmp(s.location, "0x", 2) != 0)
		snprintf(buf, len, " %s (0x%" PRIx64 ")", s.location, object);
	else
		snprintf(buf, len, " 0x%" PRIx64, object);
}

/* " at file:line in function" when the pc has a source line (a memory
 * access of the program); nothing for an entry of libc, which the
 * event's kind already names. */
static void describe_pc(struct sc_symbolizer *sym,
			const struct sc_trace_map *map, uint64_t pc,
			char *buf, size_t len)
{
	struct sc_symbol s;

	buf[0] = '\0';
	if (sym && map &&
	    sc_symbolizer_pc(sym, map->modules, map->nmodules, pc, &s) == 0 &&
	    s.has_line)
		snprintf(buf, len, " at %s%s%s", s.location,
			 s.function[0] ? " in " : "", s.function);
}

void sc_search_describe_points(struct sc_search_stats *st,
			       const char *trace_path)
{
	struct sc_trace t;
	struct sc_symbolizer *sym = NULL;
	bool loaded = false;
	char err[256];

	memset(&t, 0, sizeof(t));
	if (trace_path && *trace_path &&
	    sc_trace_load(trace_path, &t, err, sizeof(err)) == 0) {
		loaded = true;
		sym = sc_symbolizer_new();
	}
	st->nbug_points = 0;
	for (uint32_t i = 0; i < st->npoints && i < SC_SEARCH_LEVELS; i++) {
		const struct sc_search_point *p = &st->points[i];
		char obj[160], where[192];
		const struct sc_trace_map *map =
			loaded ? sc_trace_map_at(&t, p->from, p->step) : NULL;

		describe_object(sym, map, p->object, obj, sizeof(obj));
		describe_pc(sym, map, p->pc, where, sizeof(where));
		snprintf(st->bug_points[st->nbug_points++],
			 sizeof(st->bug_points[0]),
			 "step %" PRIu64 ": T%u was about to %s%s%s; T%u ran "
			 "instead", p->step, p->from,
			 sc_event_kind_name(p->kind), obj, where, p->to);
	}
	sc_symbolizer_free(sym);
	if (loaded)
		sc_trace_free(&t);
}
