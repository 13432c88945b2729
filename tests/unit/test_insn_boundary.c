/*
 * test_insn_boundary.c - sc_insn_boundary() (tracer/race_sites.c) tells
 * an instruction's start from a byte inside it, from the code before and
 * after, as race granularity must before it puts an int3 on a racing pc
 * learnt in another image.  The bytes are dash 0.5.12's (Debian 12) at
 * 0x7933..0x7993, where a racing pc of SCTBench's aget-bug2 (0x7974) fell
 * inside "mov %fs:0x28,%rax" (0x7973) and decoded as "mov 0x28,%rax":
 * planting it crashed the shell that started the test.
 *
 * And sc_vex_length() (tracer/mem_decode.c), for what Capstone 4 cannot
 * decode: the bytes of a thread function of QA's evex_hi (gcc 12 -O2
 * -mavx512vl), where "vpcmpeqb %ymm19,%ymm16,%k0" at 0x120d did not
 * decode, the sweep went on a byte later, found "and %dh,-0x3b(%rbx,
 * %rax,8)" at 0x1210 and mem granularity put an int3 in the middle of
 * the vpcmpeqb: every run died of SIGILL.
 */
#include "config.h"

#include <capstone/capstone.h>
#include <stdint.h>

#include "internal.h"
#include "tap.h"

static const uint8_t dash[] = {
	0x78, 0x01, 0x00, 0x48, 0x8b, 0x74, 0x24, 0x08, 0x31, 0xd2, 0x48,
	0x83, 0xc0, 0x05, 0x48, 0x8d, 0x7e, 0x08, 0x48, 0x89, 0xc6, 0xe8,
	0x03, 0x05, 0x00, 0x00, 0x0f, 0x1f, 0x00, 0x41, 0x57, 0x41, 0x56,
	0x41, 0x55, 0x41, 0x54, 0x4c, 0x8d, 0x25, 0x19, 0xfb, 0x00, 0x00,
	0x55, 0x48, 0x89, 0xf5, 0x53, 0x48, 0x89, 0xfb, 0x48, 0x81, 0xec,
	0xa8, 0x00, 0x00, 0x00, 0x48, 0x89, 0x54, 0x24, 0x08, 0x64, 0x48,
	0x8b, 0x04, 0x25, 0x28, 0x00, 0x00, 0x00, 0x48, 0x89, 0x84, 0x24,
	0x98, 0x00, 0x00, 0x00, 0x31, 0xc0, 0x66, 0x2e, 0x0f, 0x1f, 0x84,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x48, 0x8b, 0x54,
};
#define DASH_AT 0x7933u         /* address of dash[0] */

static const uint8_t evex[] = {
	0x48, 0x89, 0xf8,                       /* 11f0 mov %rdi,%rax */
	0x48, 0x8d, 0x15, 0x86, 0x2e, 0x00, 0x00, /* 11f3 lea buf,%rdx */
	0x48, 0xc1, 0xe0, 0x05,                 /* 11fa shl $5,%rax */
	0x48, 0x01, 0xd0,                       /* 11fe add %rdx,%rax */
	0x62, 0xe1, 0xfe, 0x28, 0x6f, 0x18,     /* 1201 vmovdqu64 (%rax),%ymm19 */
	0x62, 0xa1, 0xfd, 0x20, 0xef, 0xc0,     /* 1207 vpxorq */
	0x62, 0xb1, 0x7d, 0x20, 0x74, 0xc3,     /* 120d vpcmpeqb ..,%k0 */
	0xc5, 0xfb, 0x93, 0xc0,                 /* 1213 kmovd %k0,%eax */
	0x48, 0x8d, 0x15, 0xb2, 0x2e, 0x00, 0x00, /* 1217 lea */
	0x89, 0x04, 0xba,                       /* 121e mov %eax,(%rdx,%rdi,4) */
	0x31, 0xc0, 0xc3,                       /* 1221 xor; ret */
};
#define EVEX_AT 0x11f0u

static csh cs;
static cs_insn *in;

/* Judge pc with the 64 bytes before it and 15 after, as the tracer does. */
static bool boundary(uint64_t pc)
{
	size_t at = (size_t)(pc - DASH_AT);

	return sc_insn_boundary(cs, in, dash + at - 64, 64, 15, pc);
}

int main(void)
{
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK ||
	    !(in = cs_malloc(cs))) {
		ok(0, "capstone opens");
		return done_testing();
	}
	ok(boundary(0x7973), "0x7973, mov %%fs:0x28,%%rax: a boundary");
	ok(!boundary(0x7974), "0x7974, inside it after the fs prefix: not one");
	ok(!boundary(0x7975), "0x7975, inside it: not one");
	ok(boundary(0x797c), "0x797c, the next instruction: a boundary");
	ok(!boundary(0x797d), "0x797d, inside that one: not one");
	ok(sc_insn_boundary(cs, in, dash, 8, 15, DASH_AT + 8),
	   "8 bytes of code before pc (a mapping's start): cannot judge, kept");

	static const struct { const char *what; uint8_t code[16]; size_t n, len; } vex[] = {
		{ "EVEX vmovdqu64 (%rax),%ymm19", { 0x62, 0xe1, 0xfe, 0x28, 0x6f, 0x18 }, 6, 6 },
		{ "EVEX vpcmpeqb %ymm19,%ymm16,%k0", { 0x62, 0xb1, 0x7d, 0x20, 0x74, 0xc3 }, 6, 6 },
		{ "EVEX with disp8", { 0x62, 0xe1, 0xfe, 0x28, 0x6f, 0x58, 0x01 }, 7, 7 },
		{ "EVEX with SIB, no base: disp32", { 0x62, 0xe1, 0xfe, 0x28, 0x6f, 0x1c, 0x25, 0, 0, 0, 0 }, 11, 11 },
		{ "EVEX rip-relative", { 0x62, 0xe1, 0xfe, 0x28, 0x6f, 0x1d, 1, 2, 3, 4 }, 10, 10 },
		{ "EVEX map 3 (vpternlogd): imm8", { 0x62, 0xf3, 0x75, 0x28, 0x25, 0xc2, 0x96 }, 7, 7 },
		{ "EVEX map 1 shift by imm8 (vpsrld)", { 0x62, 0xf1, 0x75, 0x28, 0x72, 0xd1, 0x03 }, 7, 7 },
		{ "VEX2 kmovd %k0,%eax", { 0xc5, 0xfb, 0x93, 0xc0 }, 4, 4 },
		{ "VEX3 vpbroadcastb (%rdi),%ymm0", { 0xc4, 0xe2, 0x7d, 0x78, 0x07 }, 5, 5 },
		{ "fs prefix, EVEX", { 0x64, 0x62, 0xe1, 0xfe, 0x28, 0x6f, 0x18 }, 7, 7 },
		{ "not VEX (mov %rdi,%rax)", { 0x48, 0x89, 0xf8 }, 3, 0 },
		{ "EVEX cut short", { 0x62, 0xe1, 0xfe, 0x28 }, 4, 0 },
		{ "EVEX disp32 cut short", { 0x62, 0xe1, 0xfe, 0x28, 0x6f, 0x98, 0, 0 }, 8, 0 },
	};
	for (size_t i = 0; i < sizeof(vex) / sizeof(vex[0]); i++)
		ok(sc_vex_length(vex[i].code, vex[i].n) == vex[i].len,
		   "sc_vex_length: %s: %zu", vex[i].what, vex[i].len);
	ok(sc_undecoded_length(vex[10].code, 3) == 1,
	   "sc_undecoded_length: a byte on past what is no VEX");

	/* The whole function: all its bytes before each pc (29-48), all
	 * after. */
	struct { uint64_t pc; bool want; } at[] = {
		{ 0x120d, true }, { 0x1210, false }, { 0x1213, true },
		{ 0x1217, true }, { 0x121e, true }, { 0x1220, false },
	};
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		size_t off = (size_t)(at[i].pc - EVEX_AT);
		ok(sc_insn_boundary(cs, in, evex, off, sizeof(evex) - off,
				    at[i].pc) == at[i].want,
		   "evex_hi 0x%lx: %s", (unsigned long)at[i].pc,
		   at[i].want ? "a boundary" : "inside an AVX-512 instruction, not one");
	}
	cs_free(in, 1);
	cs_close(&cs);
	return done_testing();
}
