/*
 * chess_hb.h - the happens-before fingerprint of the events a run has
 * executed so far, the state signature of chess's cache.
 *
 * Two runs that executed the same events in orders that differ only in
 * independent events (different objects, or two reads) reached the same
 * partial order, hence the same state of a deterministic program.  The
 * fingerprint is a sum of one hash per event, each over the event and
 * its direct predecessors on its object (named by thread and index in the
 * thread): a sum does not depend on the order of the terms, and the
 * predecessors of an event are the same in every linearisation of one
 * partial order.  Program order is in the index; thread creation is the
 * same in every run of a prefix and needs no term.
 */
#ifndef SCHEDCTL_CHESS_HB_H
#define SCHEDCTL_CHESS_HB_H

#include <stddef.h>
#include <stdint.h>

#include "tracer.h"
#include "u64map.h"

struct sc_chess_hb_object {
	uint64_t last_write;        /* id of the last writing event, 0: none */
	uint64_t reads;             /* sum of the ids of reads since */
	uint32_t nreads;
};

struct sc_chess_hb {
	uint64_t sum;               /* the fingerprint */
	uint32_t *index;            /* events so far per logical thread */
	size_t nindex;
	struct u64map objects;      /* object -> slot in obj[] */
	struct sc_chess_hb_object *obj;
	size_t nobj, capobj;
	int failed;                 /* out of memory: fingerprints unusable */
};

void sc_chess_hb_init(struct sc_chess_hb *h);
void sc_chess_hb_free(struct sc_chess_hb *h);
/* The fingerprint the run would have after executing ev next (exact for
 * an event that wakes nobody: the waiters a wake releases are part of
 * its term). */
uint64_t sc_chess_hb_after(const struct sc_chess_hb *h,
			   const struct sc_event *ev);
/* Add one executed event. */
void sc_chess_hb_event(struct sc_chess_hb *h, const struct sc_event *ev);

#endif /* SCHEDCTL_CHESS_HB_H */
