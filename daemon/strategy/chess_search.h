/*
 * chess_search.h - the search tree of chess: what is left to explore,
 * across the runs of a launch.
 *
 * A run is a path of choices from the start of the program: at each
 * scheduling point with more than one candidate, which thread runs (or
 * which waiter a wake releases).  The tree holds the choices of the paths
 * explored so far; an unexplored alternative is a node (its path's last
 * choice) waiting on the stack of its preemption count.  The next run
 * takes the top of the lowest non-empty stack: depth-first within a
 * preemption count, and every schedule with c preemptions before any with
 * c + 1 (iterative bounding, so a bug is first found with the fewest
 * preemptions).  A state cache maps happens-before state keys to the
 * fewest preemptions they were reached with.
 */
#ifndef SCHEDCTL_CHESS_SEARCH_H
#define SCHEDCTL_CHESS_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "u64map.h"

enum sc_chess_choice_kind {
	SC_CHESS_PICK = 1,          /* which thread runs */
	SC_CHESS_WAKE = 2,          /* which waiter a wake releases */
};

/* One choice point of a path and the choice taken there. */
struct sc_chess_choice {
	uint8_t kind;               /* enum sc_chess_choice_kind */
	uint8_t preemptions;        /* of the path up to and with this choice */
	uint32_t choice;            /* logical id of the thread or waiter */
	/* A hash of the candidates (and of the running thread): a run that
	 * meets other candidates at this point did not behave the same. */
	uint32_t candidates;
};

#define SC_CHESS_NO_NODE UINT32_MAX
/* Nodes the tree may hold (24 bytes each): beyond, alternatives are
 * dropped and the search says it is not exhaustive. */
#define SC_CHESS_MAX_NODES (8u << 20)

struct sc_chess_node {
	uint32_t parent;            /* SC_CHESS_NO_NODE for the root */
	struct sc_chess_choice c;   /* the root's is unused */
	/* The state key the choice leads to when known in advance, else 0:
	 * an alternative whose state was reached meanwhile needs no run. */
	uint64_t key;
};

struct sc_chess_search {
	uint32_t bound;             /* C: most preemptions explored */
	bool cache;                 /* state caching on */
	struct sc_chess_node *nodes;
	size_t nnodes, capnodes;
	/* Unexplored alternatives per preemption count 0..bound. */
	uint32_t *stack[17];
	size_t nstack[17], capstack[17];
	struct u64map seen;         /* state key -> fewest preemptions */
	bool truncated;             /* a node or cache entry was dropped */
};

/* A search holding the root (the first run: no choice forced). NULL when
 * out of memory. */
struct sc_chess_search *sc_chess_search_new(uint32_t bound, bool cache);
void sc_chess_search_free(struct sc_chess_search *s);

/* Take the next alternative to run into *node; false when none is left
 * (the search is exhausted). */
bool sc_chess_search_next(struct sc_chess_search *s, uint32_t *node);
/* The lowest preemption count with alternatives left, -1 when none. */
int sc_chess_search_level(const struct sc_chess_search *s);

/* The choices from the root to node, in order, into a malloc'd *out.
 * Returns their number, or -1 when out of memory. */
long sc_chess_search_path(const struct sc_chess_search *s, uint32_t node,
			  struct sc_chess_choice **out);

/* Add a child of parent holding c; push it on the stack of
 * c->preemptions when push (an alternative to explore later).  Returns
 * its index, or SC_CHESS_NO_NODE when the tree is full (truncated). */
uint32_t sc_chess_search_add(struct sc_chess_search *s, uint32_t parent,
			     const struct sc_chess_choice *c, bool push,
			     uint64_t key);

/* Drop the alternatives on top of the stacks whose state (node key) was
 * reached meanwhile with no more preemptions; returns how many. */
uint32_t sc_chess_search_prune(struct sc_chess_search *s);

/* Was the state key reached before with at most preemptions?  If not,
 * remember it with preemptions and return false. */
bool sc_chess_search_seen(struct sc_chess_search *s, uint64_t key,
			  uint32_t preemptions);

/* Was the state key reached before with at most preemptions?  Looks
 * only, remembers nothing. */
bool sc_chess_search_known(const struct sc_chess_search *s, uint64_t key,
			   uint32_t preemptions);

#endif /* SCHEDCTL_CHESS_SEARCH_H */
