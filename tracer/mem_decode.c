/* mem_decode.c - find the instructions that touch shared memory, with
 * Capstone, and describe each so the supervisor can compute its effective
 * address at a breakpoint and, for plain loads and stores, execute it
 * itself instead of single-stepping.
 *
 * Not events (DESIGN.md): operands based on rsp, or on rbp where it is
 * the frame pointer (SC_STACK_RSP_RBP; frame_functions.c) (the thread's
 * own stack; unless another thread was seen reaching into it,
 * stack_watch.c), push/pop/call/ret/leave/enter, fs/gs-relative operands
 * (thread-local storage, the stack protector), lea and nop (no access),
 * prefetches.  Lock-prefixed instructions and xchg with memory are atomic
 * read-modify-writes.
 */
#include <capstone/capstone.h>
#include <string.h>

#include "internal.h"

/* Capstone register id -> our register number (0..15, reg_slot order in
 * emulate.c) and operand size; -1 for registers we do not handle
 * (ah..dh, segment, vector registers). */
static int map_reg(unsigned reg, uint8_t *size)
{
	static const struct { unsigned id; int8_t num; uint8_t size; } map[] = {
		{ X86_REG_RAX, 0, 8 }, { X86_REG_EAX, 0, 4 }, { X86_REG_AX, 0, 2 }, { X86_REG_AL, 0, 1 },
		{ X86_REG_RCX, 1, 8 }, { X86_REG_ECX, 1, 4 }, { X86_REG_CX, 1, 2 }, { X86_REG_CL, 1, 1 },
		{ X86_REG_RDX, 2, 8 }, { X86_REG_EDX, 2, 4 }, { X86_REG_DX, 2, 2 }, { X86_REG_DL, 2, 1 },
		{ X86_REG_RBX, 3, 8 }, { X86_REG_EBX, 3, 4 }, { X86_REG_BX, 3, 2 }, { X86_REG_BL, 3, 1 },
		{ X86_REG_RSP, 4, 8 }, { X86_REG_ESP, 4, 4 }, { X86_REG_SP, 4, 2 }, { X86_REG_SPL, 4, 1 },
		{ X86_REG_RBP, 5, 8 }, { X86_REG_EBP, 5, 4 }, { X86_REG_BP, 5, 2 }, { X86_REG_BPL, 5, 1 },
		{ X86_REG_RSI, 6, 8 }, { X86_REG_ESI, 6, 4 }, { X86_REG_SI, 6, 2 }, { X86_REG_SIL, 6, 1 },
		{ X86_REG_RDI, 7, 8 }, { X86_REG_EDI, 7, 4 }, { X86_REG_DI, 7, 2 }, { X86_REG_DIL, 7, 1 },
		{ X86_REG_R8, 8, 8 }, { X86_REG_R8D, 8, 4 }, { X86_REG_R8W, 8, 2 }, { X86_REG_R8B, 8, 1 },
		{ X86_REG_R9, 9, 8 }, { X86_REG_R9D, 9, 4 }, { X86_REG_R9W, 9, 2 }, { X86_REG_R9B, 9, 1 },
		{ X86_REG_R10, 10, 8 }, { X86_REG_R10D, 10, 4 }, { X86_REG_R10W, 10, 2 }, { X86_REG_R10B, 10, 1 },
		{ X86_REG_R11, 11, 8 }, { X86_REG_R11D, 11, 4 }, { X86_REG_R11W, 11, 2 }, { X86_REG_R11B, 11, 1 },
		{ X86_REG_R12, 12, 8 }, { X86_REG_R12D, 12, 4 }, { X86_REG_R12W, 12, 2 }, { X86_REG_R12B, 12, 1 },
		{ X86_REG_R13, 13, 8 }, { X86_REG_R13D, 13, 4 }, { X86_REG_R13W, 13, 2 }, { X86_REG_R13B, 13, 1 },
		{ X86_REG_R14, 14, 8 }, { X86_REG_R14D, 14, 4 }, { X86_REG_R14W, 14, 2 }, { X86_REG_R14B, 14, 1 },
		{ X86_REG_R15, 15, 8 }, { X86_REG_R15D, 15, 4 }, { X86_REG_R15W, 15, 2 }, { X86_REG_R15B, 15, 1 },
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (map[i].id == reg) {
			*size = map[i].size;
			return map[i].num;
		}
	return -1;
}

static bool skipped_instruction(unsigned id)
{
	switch (id) {
	case X86_INS_PUSH: case X86_INS_POP: case X86_INS_CALL:
	case X86_INS_RET: case X86_INS_LEAVE: case X86_INS_ENTER:
	case X86_INS_LEA: case X86_INS_NOP: case X86_INS_PREFETCH:
	case X86_INS_PREFETCHW: case X86_INS_PREFETCHT0:
	case X86_INS_PREFETCHT1: case X86_INS_PREFETCHT2:
	case X86_INS_PREFETCHNTA: case X86_INS_CLFLUSH:
	case X86_INS_JMP: case X86_INS_PUSHFQ: case X86_INS_POPFQ:
		return true;
	default:
		return false;
	}
}

/* Which plain moves we execute ourselves. */
static void decode_emulation(const cs_insn *in, const cs_x86 *x,
			     struct sc_mem_insn *m)
{
	const cs_x86_op *a = &x->operands[0], *b = &x->operands[1];
	uint8_t rs;
	int r;

	m->emu = MEM_EMU_NONE;
	if (x->op_count != 2 || x->prefix[0] /* lock/rep */)
		return;
	switch (in->id) {
	case X86_INS_MOV:
		if (a->type == X86_OP_REG && b->type == X86_OP_MEM) {
			r = map_reg(a->reg, &rs);
			if (r >= 0 && rs == b->size) {
				m->emu = MEM_EMU_LOAD;
				m->reg = (int8_t)r;
				m->reg_size = rs;
			}
		} else if (a->type == X86_OP_MEM && b->type == X86_OP_REG) {
			r = map_reg(b->reg, &rs);
			if (r >= 0 && rs == a->size) {
				m->emu = MEM_EMU_STORE_REG;
				m->reg = (int8_t)r;
				m->reg_size = rs;
			}
		} else if (a->type == X86_OP_MEM && b->type == X86_OP_IMM) {
			m->emu = MEM_EMU_STORE_IMM;
			m->imm = b->imm;
		}
		break;
	case X86_INS_MOVZX:
	case X86_INS_MOVSX:
	case X86_INS_MOVSXD:
		if (a->type == X86_OP_REG && b->type == X86_OP_MEM) {
			r = map_reg(a->reg, &rs);
			if (r >= 0 && (rs == 4 || rs == 8)) {
				m->emu = in->id == X86_INS_MOVZX ? MEM_EMU_LOAD_ZX
								 : MEM_EMU_LOAD_SX;
				m->reg = (int8_t)r;
				m->reg_size = rs;
			}
		}
		break;
	default:
		break;
	}
}

/* Describe instruction in if it accesses shared memory.  Returns true and
 * fills *m when it is an event. */
bool sc_mem_describe(const cs_insn *in, enum sc_stack_rule stack,
		     struct sc_mem_insn *m)
{
	const cs_x86 *x = &in->detail->x86;
	const cs_x86_op *mem = NULL;
	uint8_t access = 0, unused;

	if (skipped_instruction(in->id))
		return false;
	for (int i = 0; i < x->op_count; i++) {
		if (x->operands[i].type != X86_OP_MEM)
			continue;
		if (mem)
			return false;   /* two memory operands (movs...): skip */
		mem = &x->operands[i];
	}
	if (!mem || mem->mem.segment != X86_REG_INVALID)
		return false;
	unsigned base = mem->mem.base, index = mem->mem.index;
	if (stack != SC_STACK_SHARED &&
	    (base == X86_REG_RSP || base == X86_REG_ESP ||
	     (stack == SC_STACK_RSP_RBP &&
	      (base == X86_REG_RBP || base == X86_REG_EBP))))
		return false;
	memset(m, 0, sizeof(*m));
	m->len = (uint8_t)in->size;
	m->size = mem->size;
	m->disp = mem->mem.disp;
	m->scale = (uint8_t)mem->mem.scale;
	if (base == X86_REG_RIP)
		m->base = SC_REG_RIP;
	else if (base == X86_REG_INVALID)
		m->base = SC_REG_NONE;
	else if ((m->base = (int8_t)map_reg(base, &unused)) < 0 || unused != 8)
		return false;   /* 32-bit addressing: leave it alone */
	if (index == X86_REG_INVALID)
		m->index = SC_REG_NONE;
	else if ((m->index = (int8_t)map_reg(index, &unused)) < 0 || unused != 8)
		return false;
	if (mem->access & CS_AC_READ)
		access |= 1;
	if (mem->access & CS_AC_WRITE)
		access |= 2;
	/* rmw means atomic: lock prefix or xchg.  A plain read-modify-write
	 * (add [m], 1) is not atomic, so it is a write: it conflicts with
	 * everything, and a race on it must not look like synchronisation. */
	if (x->prefix[0] == X86_PREFIX_LOCK || in->id == X86_INS_XCHG)
		m->access = SC_ACC_RMW;
	else if (access & 2)
		m->access = SC_ACC_WRITE;
	else
		m->access = SC_ACC_READ;   /* cmp, test, loads; unknown: read */
	decode_emulation(in, x, m);
	return true;
}

uint64_t sc_mem_effective_address(const struct sc_mem_insn *m,
				  const struct user_regs_struct *r,
				  uint64_t pc)
{
	uint64_t ea = (uint64_t)m->disp;

	if (m->base == SC_REG_RIP)
		ea += pc + m->len;
	else if (m->base >= 0)
		ea += sc_reg_value(r, m->base);
	if (m->index >= 0)
		ea += sc_reg_value(r, m->index) * (m->scale ? m->scale : 1);
	return ea;
}

/* Opcodes of map 1 (0F) that take an imm8 in their VEX/EVEX forms too:
 * the shifts by immediate, pshufd/pshufhw/pshuflw, cmpps, pinsrw,
 * pextrw, shufps. */
static bool map1_imm8(uint8_t op)
{
	return (op >= 0x70 && op <= 0x73) || op == 0xc2 || op == 0xc4 ||
	       op == 0xc5 || op == 0xc6;
}

size_t sc_vex_length(const uint8_t *c, size_t n)
{
	size_t i = 0, len;
	unsigned map;
	uint8_t op, modrm, mod, rm;

	/* Address-size and segment prefixes may come first. */
	while (i < n && i < 4 && (c[i] == 0x67 || c[i] == 0x2e ||
				  c[i] == 0x36 || c[i] == 0x3e ||
				  c[i] == 0x26 || c[i] == 0x64 || c[i] == 0x65))
		i++;
	if (i + 4 > n)
		return 0;
	switch (c[i]) {
	case 0x62:      /* EVEX: 62 P0 P1 P2 opcode modrm */
		map = c[i + 1] & 0x07;
		i += 4;
		break;
	case 0xc4:      /* VEX3: c4 R.X.B.map W.vvvv.L.pp opcode modrm */
		map = c[i + 1] & 0x1f;
		i += 3;
		break;
	case 0xc5:      /* VEX2: c5 R.vvvv.L.pp opcode modrm */
		map = 1;
		i += 2;
		break;
	default:
		return 0;
	}
	if (i + 2 > n)
		return 0;
	op = c[i];
	modrm = c[i + 1];
	len = i + 2;
	mod = modrm >> 6;
	rm = modrm & 7;
	if (mod != 3) {
		if (rm == 4) {
			if (len >= n)
				return 0;
			if (mod == 0 && (c[len] & 7) == 5)
				len += 4;       /* SIB without base: disp32 */
			len++;
		} else if (mod == 0 && rm == 5) {
			len += 4;               /* rip-relative */
		}
		len += mod == 1 ? 1 : mod == 2 ? 4 : 0;
	}
	if (map == 3 || (map == 1 && map1_imm8(op)))
		len++;
	return len <= 15 && len <= n ? len : 0;
}


size_t sc_undecoded_length(const uint8_t *c, size_t n)
{
	size_t len = sc_vex_length(c, n);

	return len ? len : 1;
}
