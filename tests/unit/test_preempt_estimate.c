/*
 * test_preempt_estimate.c - how replay tells how far a computation is
 * from its recorded preemption: from two consecutive hits of the pc, the
 * registers that count the loop (up, down, by any step, a pointer
 * through an array) vote for the number of hits left.
 */
#include <stdint.h>
#include <string.h>

#include "internal.h"
#include "tap.h"

/* Register indexes of sc_preempt_state_words(). */
enum { R12 = 3, RBX = 5, RAX = 10, RDX = 12, RSI = 13, RDI = 14, RIP = 15,
       EFLAGS = 16 };

struct case_regs {
	uint64_t a[SC_PREEMPT_REGS], b[SC_PREEMPT_REGS], want[SC_PREEMPT_REGS];
};

static void base(struct case_regs *c)
{
	for (int r = 0; r < SC_PREEMPT_REGS; r++)
		c->a[r] = c->b[r] = c->want[r] = 0x1000u * (uint64_t)(r + 1);
}

int main(void)
{
	struct case_regs c;
	uint64_t k = 0;

	base(&c);
	c.a[R12] = 100, c.b[R12] = 101, c.want[R12] = 150;
	ok(sc_preempt_hits_left(c.a, c.b, c.want, &k) && k == 49,
	   "a counter going up by 1: 49 hits left");

	base(&c);
	c.a[RSI] = 5000, c.b[RSI] = 4999, c.want[RSI] = 1000;
	ok(sc_preempt_hits_left(c.a, c.b, c.want, &k) && k == 3999,
	   "a counter going down: 3999 hits left");

	base(&c);
	c.a[RDI] = 0x601000, c.b[RDI] = 0x601008, c.want[RDI] = 0x601800;
	c.a[RDX] = 1, c.b[RDX] = 2, c.want[RDX] = 257;
	/* A hash register that happens to divide: one vote only. */
	c.a[RAX] = 10, c.b[RAX] = 13, c.want[RAX] = 13 + 3 * 7;
	ok(sc_preempt_hits_left(c.a, c.b, c.want, &k) && k == 255,
	   "a pointer by 8 and a counter agree on 255 against a stray vote "
	   "of 7");

	base(&c);
	c.a[RBX] = 300, c.b[RBX] = 301, c.want[RBX] = 150;
	ok(!sc_preempt_hits_left(c.a, c.b, c.want, &k),
	   "the counter is past the recorded value: no estimate");

	base(&c);
	c.a[RIP] = 0x401000, c.b[RIP] = 0x401010, c.want[RIP] = 0x401020;
	c.a[EFLAGS] = 0x202, c.b[EFLAGS] = 0x246, c.want[EFLAGS] = 0x28a;
	ok(!sc_preempt_hits_left(c.a, c.b, c.want, &k),
	   "rip and the flags are not counters");

	base(&c);
	c.a[R12] = 7, c.b[R12] = 8, c.want[R12] = 8;
	c.a[RDX] = 1, c.b[RDX] = 0, c.want[RDX] = 0;
	ok(!sc_preempt_hits_left(c.a, c.b, c.want, &k),
	   "registers already at their recorded values give no vote");

	base(&c);
	c.a[R12] = UINT64_MAX - 1, c.b[R12] = UINT64_MAX, c.want[R12] = 4;
	ok(sc_preempt_hits_left(c.a, c.b, c.want, &k) && k == 5,
	   "a counter that wraps around 2^64: 5 hits left");

	return done_testing();
}
