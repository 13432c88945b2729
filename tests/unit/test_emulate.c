/*
 * test_emulate.c - the instructions the engine executes itself instead of
 * single-stepping them (tracer/emulate.c) give the registers and flags
 * the CPU gives: each is run natively here on the same values and the
 * results compared, edge cases of the flags (borrow, overflow, zero,
 * sign, parity, adjust) included.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "internal.h"
#include "tap.h"

#define FLAGS 0x8d5ull          /* CF PF AF ZF SF OF */

static const uint64_t values[] = {
	0, 1, 7, 8, 9, 0x10, 0xa8, 0x7f, 0x80, 0xff, 0x7fffffff, 0x80000000,
	0xffffffff, 0x100000000ull, 0x7fffffffffffffffull,
	0x8000000000000000ull, 0xfffffffffffffff8ull, ~0ull,
	0x123456789abcdef0ull,
};
#define NVALUES (sizeof(values) / sizeof(values[0]))

/* Native results: the value after the instruction and rflags. */
#define NATIVE(name, insn, constraint)                                     \
	static void name(uint64_t a, uint64_t *res, uint64_t *fl)          \
	{                                                                  \
		uint64_t f;                                                \
		__asm__ volatile(insn "\n\tpushfq\n\tpopq %1"              \
				 : constraint(a), "=r"(f) : : "cc");       \
		*res = a;                                                  \
		*fl = f;                                                   \
	}
NATIVE(sub8_q, "subq $8, %0", "+r")
NATIVE(subm16_q, "subq $-16, %0", "+r")
NATIVE(suba8_q, "subq $0xa8, %0", "+r")
NATIVE(cmp1_l, "cmpl $1, %k0", "+r")
NATIVE(cmp0_q, "cmpq $0, %0", "+r")
NATIVE(cmpbig_l, "cmpl $0x3b9ac9ff, %k0", "+r")

struct arith_case {
	const char *what;
	uint8_t code[16];
	int len;                        /* the instruction's bytes */
	int reg;                        /* register number of the operand */
	bool writes;                    /* sub: the register changes */
	void (*native)(uint64_t, uint64_t *, uint64_t *);
};

static const struct arith_case arith[] = {
	{ "sub $8,%rsp", { 0x48, 0x83, 0xec, 0x08 }, 4, 4, true, sub8_q },
	{ "sub $-16,%rsp", { 0x48, 0x83, 0xec, 0xf0 }, 4, 4, true, subm16_q },
	{ "sub $0xa8,%rsp (imm32)", { 0x48, 0x81, 0xec, 0xa8, 0, 0, 0 }, 7,
	  4, true, suba8_q },
	{ "cmp $1,%esi", { 0x83, 0xfe, 0x01 }, 3, 6, false, cmp1_l },
	{ "cmp $0,%r9", { 0x49, 0x83, 0xf9, 0x00 }, 4, 9, false, cmp0_q },
	{ "cmp $0x3b9ac9ff,%edx", { 0x81, 0xfa, 0xff, 0xc9, 0x9a, 0x3b }, 6,
	  2, false, cmpbig_l },
};

static unsigned long long *slot(struct user_regs_struct *r, int n)
{
	unsigned long long *by_number[16] = {
		&r->rax, &r->rcx, &r->rdx, &r->rbx, &r->rsp, &r->rbp, &r->rsi,
		&r->rdi, &r->r8, &r->r9, &r->r10, &r->r11, &r->r12, &r->r13,
		&r->r14, &r->r15,
	};
	return by_number[n];
}

static void test_arith(const struct arith_case *c)
{
	int bad = 0;

	for (size_t i = 0; i < NVALUES; i++) {
		for (int fin = 0; fin < 2; fin++) {
			struct user_regs_struct r;
			uint64_t want, wflags;
			memset(&r, 0, sizeof(r));
			r.rip = 0x1000;
			/* flags before: all arithmetic ones set, or none */
			r.eflags = 0x202 | (fin ? FLAGS : 0);
			*slot(&r, c->reg) = values[i];
			c->native(values[i], &want, &wflags);
			if (!sc_emulate_code(c->code, &r)) {
				if (!bad)
					diag("%s: not emulated", c->what);
				bad++;
				continue;
			}
			uint64_t got = *slot(&r, c->reg);
			if (!c->writes)
				want = values[i];
			if (got != want || (r.eflags & FLAGS) != (wflags & FLAGS) ||
			    (r.eflags & ~FLAGS) != 0x202 ||
			    r.rip != 0x1000u + (unsigned)c->len) {
				if (!bad)
					diag("%s on 0x%llx: got 0x%llx flags 0x%llx, "
						 "want 0x%llx flags 0x%llx",
						 c->what, (unsigned long long)values[i],
						 (unsigned long long)got,
						 r.eflags & FLAGS,
						 (unsigned long long)want,
						 (unsigned long long)(wflags & FLAGS));
				bad++;
			}
		}
	}
	ok(bad == 0, "%s: result, flags and rip as the CPU's on %zu values",
	       c->what, NVALUES);
}

static void test_moves_and_jumps(void)
{
	struct user_regs_struct r;
	const uint8_t mov_rsi_rdx[16] = { 0x48, 0x89, 0xf2 };
	const uint8_t mov_r8_rdi[16] = { 0x4c, 0x89, 0xc7 };
	const uint8_t mov_rdi_r8[16] = { 0x49, 0x89, 0xf8 };
	const uint8_t jmp32[16] = { 0xe9, 0x10, 0xff, 0xff, 0xff };
	const uint8_t jmp8[16] = { 0xeb, 0x05 };
	const uint8_t add_rsp[16] = { 0x48, 0x83, 0xc4, 0x08 };

	memset(&r, 0, sizeof(r));
	r.rsi = 0x1122334455667788ull;
	r.rip = 0x1000;
	ok(sc_emulate_code(mov_rsi_rdx, &r) && r.rdx == r.rsi &&
	       r.rip == 0x1003, "mov %%rsi,%%rdx");
	r.r8 = 42;
	ok(sc_emulate_code(mov_r8_rdi, &r) && r.rdi == 42 && r.rip == 0x1006,
	       "mov %%r8,%%rdi (REX.R)");
	r.rdi = 7;
	ok(sc_emulate_code(mov_rdi_r8, &r) && r.r8 == 7 && r.rip == 0x1009,
	       "mov %%rdi,%%r8 (REX.B)");
	r.rip = 0x2000;
	ok(sc_emulate_code(jmp32, &r) && r.rip == 0x2000 + 5 - 0xf0,
	       "jmp rel32 backwards");
	r.rip = 0x2000;
	ok(sc_emulate_code(jmp8, &r) && r.rip == 0x2007, "jmp rel8");
	struct user_regs_struct before = r;
	ok(!sc_emulate_code(add_rsp, &r) &&
	       memcmp(&before, &r, sizeof(r)) == 0,
	       "add is not emulated (single-stepped), registers untouched");
}

int main(void)
{
	plan(sizeof(arith) / sizeof(arith[0]) + 6);
	for (size_t i = 0; i < sizeof(arith) / sizeof(arith[0]); i++)
		test_arith(&arith[i]);
	test_moves_and_jumps();
	return done_testing();
}
