/* emulate.c - execute the instruction under a breakpoint in the
 * supervisor instead of single-stepping it.
 *
 * The classic step-over (restore byte, PTRACE_SINGLESTEP, wait, re-insert)
 * costs about four times a seccomp stop.  The entry instructions of the
 * libc functions we break on are nearly all simple: push, mov of an
 * immediate, a 32-bit load or store relative to a base register, endbr64.
 * Those are decoded once per breakpoint and emulated on the saved
 * registers; anything else falls back to single-stepping.  C11's
 * <threads.h> functions begin with sub $8,%rsp and others with a
 * register move, a compare with an immediate or a jmp: those too, flags
 * set as the CPU sets them.
 */
#include <string.h>

#include "internal.h"

static const unsigned long long *sc_reg_slot_const(const struct user_regs_struct *r,
						   int n);

enum emu_op {
	EMU_UNKNOWN = 0,    /* not decoded yet */
	EMU_NONE,           /* cannot emulate: single-step */
	EMU_NOP,            /* endbr64 */
	EMU_PUSH,           /* push r64 */
	EMU_MOV_IMM32,      /* mov r32, imm32 (zero-extends) */
	EMU_LOAD32,         /* mov r32, dword [base + disp] */
	EMU_STORE_IMM32,    /* mov dword [base + disp], imm32 */
	EMU_SUB_IMM,        /* sub r32/r64, imm (emu_base: operand bytes) */
	EMU_CMP_IMM,        /* cmp r32/r64, imm: the flags only */
	EMU_MOV_RR,         /* mov r64, r64 (emu_base: the source) */
	EMU_JMP,            /* jmp rel8/rel32 (emu_disp) */
};

static unsigned long long *reg_slot(struct user_regs_struct *r, int n)
{
	return (unsigned long long *)sc_reg_slot_const(r, n);
}

uint64_t sc_reg_value(const struct user_regs_struct *r, int n)
{
	return *sc_reg_slot_const(r, n);
}

static const unsigned long long *sc_reg_slot_const(const struct user_regs_struct *r,
						   int n)
{
	switch (n) {
	case 0: return &r->rax;
	case 1: return &r->rcx;
	case 2: return &r->rdx;
	case 3: return &r->rbx;
	case 4: return &r->rsp;
	case 5: return &r->rbp;
	case 6: return &r->rsi;
	case 7: return &r->rdi;
	case 8: return &r->r8;
	case 9: return &r->r9;
	case 10: return &r->r10;
	case 11: return &r->r11;
	case 12: return &r->r12;
	case 13: return &r->r13;
	case 14: return &r->r14;
	default: return &r->r15;
	}
}

/* Decode a memory operand without REX.B/SIB: [base], [base+disp8],
 * [base+disp32].  Returns the operand length after the opcode, or 0. */
static int decode_modrm(const uint8_t *p, int *reg, int *base, int32_t *disp)
{
	int mod = p[0] >> 6, rm = p[0] & 7;

	*reg = (p[0] >> 3) & 7;
	*base = rm;
	if (rm == 4 || (mod == 0 && rm == 5) || mod == 3)
		return 0;   /* SIB, RIP-relative, register operand */
	if (mod == 0) {
		*disp = 0;
		return 1;
	}
	if (mod == 1) {
		*disp = (int8_t)p[1];
		return 2;
	}
	memcpy(disp, p + 1, 4);
	return 5;
}

/* sub or cmp of a register with an immediate: [REX] 83 /5|/7 ib or
 * [REX] 81 /5|/7 id, register operand.  True when b is one. */
static bool decode_arith_imm(struct sc_breakpoint *bp, const uint8_t *b)
{
	int rex = (b[0] & 0xf0) == 0x40 ? b[0] : 0, i = rex ? 1 : 0;
	uint8_t op = b[i], modrm = b[i + 1];
	int ext = (modrm >> 3) & 7;

	if ((op != 0x83 && op != 0x81) || (modrm >> 6) != 3 ||
	    (ext != 5 && ext != 7) || (rex & 0x06))  /* no REX.R/X use */
		return false;
	bp->emu_op = ext == 5 ? EMU_SUB_IMM : EMU_CMP_IMM;
	bp->emu_reg = (uint8_t)((modrm & 7) | (rex & 1 ? 8 : 0));
	bp->emu_base = rex & 8 ? 8 : 4;
	if (op == 0x83) {
		bp->emu_imm = (uint32_t)(int32_t)(int8_t)b[i + 2];
		bp->emu_len = (uint8_t)(i + 3);
	} else {
		memcpy(&bp->emu_imm, b + i + 2, 4);
		bp->emu_len = (uint8_t)(i + 6);
	}
	return true;
}

/* mov r64, r64: REX.W 89 /r, register operands. */
static bool decode_mov_rr(struct sc_breakpoint *bp, const uint8_t *b)
{
	if ((b[0] & 0xf8) != 0x48 || (b[0] & 2) || b[1] != 0x89 ||
	    (b[2] >> 6) != 3)
		return false;
	bp->emu_op = EMU_MOV_RR;
	bp->emu_base = (uint8_t)(((b[2] >> 3) & 7) | (b[0] & 4 ? 8 : 0));
	bp->emu_reg = (uint8_t)((b[2] & 7) | (b[0] & 1 ? 8 : 0));
	bp->emu_len = 3;
	return true;
}

static void decode(struct sc_breakpoint *bp, const uint8_t *b)
{
	int reg, base, n;
	int32_t disp;

	bp->emu_op = EMU_NONE;
	if (decode_arith_imm(bp, b) || decode_mov_rr(bp, b))
		return;
	if (b[0] == 0xe9 || b[0] == 0xeb) {
		bp->emu_op = EMU_JMP;
		if (b[0] == 0xeb) {
			bp->emu_disp = (int8_t)b[1];
			bp->emu_len = 2;
		} else {
			memcpy(&bp->emu_disp, b + 1, 4);
			bp->emu_len = 5;
		}
		return;
	}
	if (b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e && b[3] == 0xfa) {
		bp->emu_op = EMU_NOP;
		bp->emu_len = 4;
	} else if (b[0] >= 0x50 && b[0] <= 0x57 && b[0] != 0x54) {
		bp->emu_op = EMU_PUSH;
		bp->emu_reg = b[0] - 0x50;
		bp->emu_len = 1;
	} else if (b[0] == 0x41 && b[1] >= 0x50 && b[1] <= 0x57) {
		bp->emu_op = EMU_PUSH;
		bp->emu_reg = 8 + b[1] - 0x50;
		bp->emu_len = 2;
	} else if (b[0] >= 0xb8 && b[0] <= 0xbf) {
		bp->emu_op = EMU_MOV_IMM32;
		bp->emu_reg = b[0] - 0xb8;
		memcpy(&bp->emu_imm, b + 1, 4);
		bp->emu_len = 5;
	} else if (b[0] == 0x41 && b[1] >= 0xb8 && b[1] <= 0xbf) {
		bp->emu_op = EMU_MOV_IMM32;
		bp->emu_reg = 8 + b[1] - 0xb8;
		memcpy(&bp->emu_imm, b + 2, 4);
		bp->emu_len = 6;
	} else if (b[0] == 0x8b && (n = decode_modrm(b + 1, &reg, &base, &disp))) {
		bp->emu_op = EMU_LOAD32;
		bp->emu_reg = (uint8_t)reg;
		bp->emu_base = (uint8_t)base;
		bp->emu_disp = disp;
		bp->emu_len = (uint8_t)(1 + n);
	} else if (b[0] == 0xc7 && (n = decode_modrm(b + 1, &reg, &base, &disp)) &&
		   reg == 0) {
		bp->emu_op = EMU_STORE_IMM32;
		bp->emu_base = (uint8_t)base;
		bp->emu_disp = disp;
		memcpy(&bp->emu_imm, b + 1 + n, 4);
		bp->emu_len = (uint8_t)(1 + n + 4);
	}
}

/* Write the low `size` bytes of v into register n with x86-64 rules:
 * 32-bit writes zero the upper half, 8/16-bit writes keep it. */
static void write_reg(struct user_regs_struct *r, int n, uint8_t size,
		      uint64_t v)
{
	unsigned long long *slot = reg_slot(r, n);

	switch (size) {
	case 8: *slot = v; break;
	case 4: *slot = (uint32_t)v; break;
	case 2: *slot = (*slot & ~0xffffull) | (v & 0xffff); break;
	default: *slot = (*slot & ~0xffull) | (v & 0xff); break;
	}
}

static int64_t sign_extend(uint64_t v, uint8_t size)
{
	switch (size) {
	case 1: return (int8_t)v;
	case 2: return (int16_t)v;
	case 4: return (int32_t)v;
	default: return (int64_t)v;
	}
}

/* Plain loads and stores of a memory event, executed here. */
static bool emulate_mem(struct sc_thread *t, struct sc_breakpoint *bp)
{
	const struct sc_mem_insn *m = bp->mem;
	struct user_regs_struct *r = &t->regs;
	uint64_t ea = sc_mem_effective_address(m, r, bp->addr), v = 0;

	switch (m->emu) {
	case MEM_EMU_LOAD:
	case MEM_EMU_LOAD_ZX:
	case MEM_EMU_LOAD_SX:
		if (sc_mem_read(t->proc, ea, &v, m->size) < 0)
			return false;   /* let the CPU fault for real */
		if (m->emu == MEM_EMU_LOAD_SX)
			v = (uint64_t)sign_extend(v, m->size);
		write_reg(r, m->reg, m->reg_size, m->emu == MEM_EMU_LOAD ? v :
			  (m->reg_size == 4 ? (uint32_t)v : v));
		break;
	case MEM_EMU_STORE_REG:
		v = sc_reg_value(r, m->reg);
		if (sc_mem_write(t->proc, ea, &v, m->size) < 0)
			return false;
		break;
	case MEM_EMU_STORE_IMM:
		v = (uint64_t)m->imm;
		if (sc_mem_write(t->proc, ea, &v, m->size) < 0)
			return false;
		break;
	default:
		return false;
	}
	r->rip += m->len;
	t->regs_dirty = true;
	return true;
}

/* a - b on `bytes` (4 or 8) bytes: the result, and in *flags the
 * arithmetic flags as SUB and CMP set them (CF PF AF ZF SF OF). */
static uint64_t sub_flags(uint64_t a, uint64_t b, int bytes,
			  unsigned long long *flags)
{
	uint64_t mask = bytes == 8 ? ~0ull : 0xffffffffull;
	int top = bytes * 8 - 1;
	uint64_t res;
	unsigned long long f = *flags & ~0x8d5ull;   /* CF PF AF ZF SF OF */

	a &= mask;
	b &= mask;
	res = (a - b) & mask;
	if (a < b)
		f |= 1u << 0;
	if (!(__builtin_popcount((unsigned)(res & 0xff)) & 1))
		f |= 1u << 2;
	if ((a ^ b ^ res) & 0x10)
		f |= 1u << 4;
	if (!res)
		f |= 1u << 6;
	if ((res >> top) & 1)
		f |= 1u << 7;
	if ((((a ^ b) & (a ^ res)) >> top) & 1)
		f |= 1u << 11;
	*flags = f;
	return res;
}

/* The instructions that only touch registers (and the flags), except
 * rip's advance past them: false for any other. */
static bool emulate_regs(const struct sc_breakpoint *bp,
			 struct user_regs_struct *r)
{
	switch (bp->emu_op) {
	case EMU_NOP:
		return true;
	case EMU_MOV_IMM32:
		*reg_slot(r, bp->emu_reg) = bp->emu_imm;
		return true;
	case EMU_SUB_IMM:
	case EMU_CMP_IMM: {
		uint64_t imm = (uint64_t)(int64_t)(int32_t)bp->emu_imm;
		uint64_t v = sub_flags(*reg_slot(r, bp->emu_reg), imm,
				       bp->emu_base, &r->eflags);
		if (bp->emu_op == EMU_SUB_IMM)
			write_reg(r, bp->emu_reg, bp->emu_base, v);
		return true;
	}
	case EMU_MOV_RR:
		*reg_slot(r, bp->emu_reg) = *reg_slot(r, bp->emu_base);
		return true;
	case EMU_JMP:
		r->rip += (uint64_t)(int64_t)bp->emu_disp;
		return true;
	default:
		return false;
	}
}

bool sc_emulate_code(const uint8_t code[16], struct user_regs_struct *r)
{
	struct sc_breakpoint bp = { .orig = code[0] };

	decode(&bp, code);
	if (!emulate_regs(&bp, r))
		return false;
	r->rip += bp.emu_len;
	return true;
}

/* Emulate the instruction at bp for t (stopped with rip == bp->addr).
 * Returns true when done (registers marked dirty, memory written). */
bool sc_emulate_at_breakpoint(struct sc_thread *t, struct sc_breakpoint *bp)
{
	struct user_regs_struct *r = &t->regs;

	if (bp->mem)
		return emulate_mem(t, bp);

	if (bp->emu_op == EMU_UNKNOWN) {
		uint8_t b[16];
		if (sc_mem_read(t->proc, bp->addr, b, sizeof(b)) < 0) {
			bp->emu_op = EMU_NONE;
			return false;
		}
		b[0] = bp->orig;
		decode(bp, b);
	}
	if (!emulate_regs(bp, r)) {
		switch (bp->emu_op) {
		case EMU_PUSH: {
			uint64_t v = *reg_slot(r, bp->emu_reg);
			if (sc_mem_write(t->proc, r->rsp - 8, &v, sizeof(v)) < 0)
				return false;
			r->rsp -= 8;
			break;
		}
		case EMU_LOAD32: {
			uint32_t v;
			uint64_t a = *reg_slot(r, bp->emu_base) +
				     (int64_t)bp->emu_disp;
			if (sc_mem_read(t->proc, a, &v, sizeof(v)) < 0)
				return false;   /* let the CPU fault for real */
			*reg_slot(r, bp->emu_reg) = v;
			break;
		}
		case EMU_STORE_IMM32: {
			uint64_t a = *reg_slot(r, bp->emu_base) +
				     (int64_t)bp->emu_disp;
			if (sc_mem_write(t->proc, a, &bp->emu_imm, 4) < 0)
				return false;
			break;
		}
		default:
			return false;
		}
	}
	r->rip += bp->emu_len;
	t->regs_dirty = true;
	return true;
}
