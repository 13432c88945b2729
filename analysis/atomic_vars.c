/*
 * atomic_vars.c - the static data of a module that its debug information
 * declares atomic: C11 _Atomic objects, C++ std::atomic<T> and
 * std::atomic_flag, Rust's Atomic* types, as globals, statics, members of
 * structures and elements of arrays.
 *
 * Why: on x86 an atomic load and a release store are plain movs, so the
 * race detector cannot tell them from data by the instruction, and a
 * correct release/acquire hand-off (a flag set after the data) was
 * reported as two races, the flag's and the data's.  An access to bytes
 * declared atomic is synchronisation instead (race_detect.c).  Heap
 * objects carry no such declaration; an atomic instruction on them (lock
 * prefix, xchg) is still recognised by the instruction.
 */
#include <string.h>

#include <dwarf.h>
#include <libdwarf.h>

#include "analysis.h"
#include "atomic_vars.h"
#include "dwarf_attrs.h"
#include "dwarf_no_abort.h"

/* Nesting of structures and arrays followed; elements of an array looked
 * at (a larger array of atomics is taken whole). */
#define MAX_DEPTH 12
#define MAX_ELEMENTS 256

/* What the readers below share: the module, the ranges found, and the
 * address and depth of the object being looked at. */
struct walk {
	Dwarf_Debug dbg;
	struct sc_addr_ranges *out;
	uint64_t addr;
	int depth;
};

static bool atomic_class_name(const char *name)
{
	static const char *const prefixes[] = {
		"atomic<", "__atomic_base<", "__atomic_float<", "atomic_ref<",
		"atomic_flag", "__atomic_flag_base",
		/* Rust core::sync::atomic */
		"AtomicBool", "AtomicPtr<", "AtomicI8", "AtomicU8", "AtomicI16",
		"AtomicU16", "AtomicI32", "AtomicU32", "AtomicI64", "AtomicU64",
		"AtomicIsize", "AtomicUsize",
	};
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

/* Size in bytes of a type, following qualifiers and typedefs. */
static Dwarf_Unsigned type_size(Dwarf_Debug dbg, Dwarf_Die type, int depth)
{
	Dwarf_Unsigned size = 0;
	Dwarf_Die next;

	if (dwarf_bytesize(type, &size, NULL) == DW_DLV_OK)
		return size;
	if (depth >= MAX_DEPTH ||
	    !(next = sc_dwarf_ref(dbg, type, DW_AT_type)))
		return 0;
	size = type_size(dbg, next, depth + 1);
	dwarf_dealloc_die(next);
	return size;
}

/* sc_dwarf_children: the element count of an array's first dimension
 * (later dimensions multiply in through the element size). */
static int subrange_count(Dwarf_Die child, Dwarf_Half tag, void *arg)
{
	Dwarf_Unsigned *count = arg, upper;

	if (tag != DW_TAG_subrange_type)
		return 0;
	if (!sc_dwarf_unsigned(child, DW_AT_count, count) &&
	    sc_dwarf_unsigned(child, DW_AT_upper_bound, &upper))
		*count = upper + 1;
	return 1;
}

static int add_type(const struct walk *w, Dwarf_Die type);

/* sc_dwarf_children: a structure's members at a constant offset (static
 * members have none; bit fields are never atomic). */
static int add_member(Dwarf_Die child, Dwarf_Half tag, void *arg)
{
	const struct walk *w = arg;
	Dwarf_Unsigned off;
	Dwarf_Die mtype;
	int rc;

	if ((tag != DW_TAG_member && tag != DW_TAG_inheritance) ||
	    !sc_dwarf_unsigned(child, DW_AT_data_member_location, &off) ||
	    !(mtype = sc_dwarf_ref(w->dbg, child, DW_AT_type)))
		return 0;
	struct walk m = { w->dbg, w->out, w->addr + off, w->depth + 1 };
	rc = add_type(&m, mtype);
	dwarf_dealloc_die(mtype);
	return rc;
}

/* The atomic bytes of an array of this type at w->addr. */
static int add_array(const struct walk *w, Dwarf_Die type)
{
	Dwarf_Unsigned n = 0, esize;
	struct sc_addr_ranges one = { 0 };
	Dwarf_Die elem;
	int rc;

	sc_dwarf_children(w->dbg, type, subrange_count, &n);
	if (!n || !(elem = sc_dwarf_ref(w->dbg, type, DW_AT_type)))
		return 0;
	esize = type_size(w->dbg, elem, 0);
	struct walk e = { w->dbg, &one, 0, w->depth + 1 };
	rc = add_type(&e, elem);
	dwarf_dealloc_die(elem);
	if (rc == 0 && one.n && (n > MAX_ELEMENTS || !esize))
		/* Taken whole: an array of many atomics. */
		rc = sc_addr_ranges_push(w->out, w->addr,
					 w->addr + (esize ? n * esize : 8));
	for (Dwarf_Unsigned i = 0; rc == 0 && one.n && esize &&
				     n <= MAX_ELEMENTS && i < n; i++)
		for (size_t k = 0; rc == 0 && k < one.n; k++)
			rc = sc_addr_ranges_push(w->out,
						 w->addr + i * esize + one.v[k].lo,
						 w->addr + i * esize + one.v[k].hi);
	sc_addr_ranges_free(&one);
	return rc;
}

/* Add the atomic bytes of an object of this type at w->addr. */
static int add_type(const struct walk *w, Dwarf_Die type)
{
	Dwarf_Half tag = 0;
	Dwarf_Die next;
	char *name = NULL;
	int rc;

	if (w->depth > MAX_DEPTH || dwarf_tag(type, &tag, NULL) != DW_DLV_OK)
		return 0;
	switch (tag) {
	case DW_TAG_atomic_type:
		return sc_addr_ranges_push(w->out, w->addr,
					   w->addr + type_size(w->dbg, type, 0));
	case DW_TAG_typedef:
	case DW_TAG_const_type:
	case DW_TAG_volatile_type: {
		if (!(next = sc_dwarf_ref(w->dbg, type, DW_AT_type)))
			return 0;
		struct walk q = { w->dbg, w->out, w->addr, w->depth + 1 };
		rc = add_type(&q, next);
		dwarf_dealloc_die(next);
		return rc;
	}
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		if (dwarf_diename(type, &name, NULL) == DW_DLV_OK &&
		    atomic_class_name(name))
			return sc_addr_ranges_push(w->out, w->addr, w->addr +
						   type_size(w->dbg, type, 0));
		return sc_dwarf_children(w->dbg, type, add_member, (void *)w);
	case DW_TAG_array_type:
		return add_array(w, type);
	default:
		return 0;
	}
}

/* The static address of a variable: a location of exactly one DW_OP_addr
 * (thread-local and register variables have other expressions). */
static bool static_address(Dwarf_Die var, uint64_t *addr)
{
	Dwarf_Attribute a;
	Dwarf_Loc_Head_c head = NULL;
	Dwarf_Unsigned count = 0, nops = 0, op1, op2, op3, r1, r2, r3, br;
	Dwarf_Small lle, src, atom = 0;
	Dwarf_Unsigned rawlo, rawhi, eoff, loff;
	Dwarf_Bool unavailable;
	Dwarf_Addr lo, hi;
	Dwarf_Locdesc_c desc;
	bool ok = false;

	if (dwarf_attr(var, DW_AT_location, &a, NULL) != DW_DLV_OK)
		return false;
	if (dwarf_get_loclist_c(a, &head, &count, NULL) == DW_DLV_OK &&
	    count == 1 &&
	    dwarf_get_locdesc_entry_d(head, 0, &lle, &rawlo, &rawhi,
				      &unavailable, &lo, &hi, &nops, &desc,
				      &src, &eoff, &loff, NULL) == DW_DLV_OK &&
	    nops == 1 &&
	    dwarf_get_location_op_value_d(desc, 0, &atom, &op1, &op2, &op3,
					  &r1, &r2, &r3, &br, NULL) == DW_DLV_OK &&
	    (atom == DW_OP_addr || atom == DW_OP_addrx ||
	     atom == DW_OP_GNU_addr_index)) {
		*addr = op1;
		ok = true;
	}
	if (head)
		dwarf_loc_head_c_dealloc(head);
	dwarf_dealloc_attribute(a);
	return ok;
}

static int add_variable(const struct walk *w, Dwarf_Die var)
{
	Dwarf_Die type, decl;
	uint64_t addr;
	int rc;

	if (!static_address(var, &addr))
		return 0;
	/* A definition outside its class (a static member) has its type on
	 * the declaration it names. */
	type = sc_dwarf_ref(w->dbg, var, DW_AT_type);
	if (!type && (decl = sc_dwarf_ref(w->dbg, var, DW_AT_specification))) {
		type = sc_dwarf_ref(w->dbg, decl, DW_AT_type);
		dwarf_dealloc_die(decl);
	}
	if (!type)
		return 0;
	struct walk v = { w->dbg, w->out, addr, 0 };
	rc = add_type(&v, type);
	dwarf_dealloc_die(type);
	return rc;
}

/* sc_dwarf_children: variables, in namespaces too; also function-local
 * statics (a variable with a static address inside a subprogram). */
static int add_scope(Dwarf_Die child, Dwarf_Half tag, void *arg)
{
	const struct walk *w = arg;

	if (tag == DW_TAG_variable)
		return add_variable(w, child);
	if ((tag == DW_TAG_namespace || tag == DW_TAG_subprogram ||
	     tag == DW_TAG_lexical_block) && w->depth < MAX_DEPTH) {
		struct walk in = { w->dbg, w->out, 0, w->depth + 1 };
		return sc_dwarf_children(w->dbg, child, add_scope, &in);
	}
	return 0;
}

int sc_atomic_ranges_read(const char *path, struct sc_addr_ranges *out)
{
	Dwarf_Debug dbg = NULL;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (dwarf_init_path(path, NULL, 0, DW_DLC_READ, DW_GROUPNUMBER_ANY,
			    sc_dwarf_no_abort, NULL, &dbg, NULL, 0, NULL,
			    NULL) != DW_DLV_OK)
		return 0;     /* no debug information: nothing declared */
	struct walk w = { dbg, out, 0, 0 };
	while (rc == 0) {
		Dwarf_Unsigned next;
		Dwarf_Half cu_type;
		Dwarf_Die cu = NULL;
		if (dwarf_next_cu_header_d(dbg, 1, NULL, NULL, NULL, NULL,
					   NULL, NULL, NULL, NULL, &next,
					   &cu_type, NULL) != DW_DLV_OK)
			break;
		if (dwarf_siblingof_b(dbg, NULL, 1, &cu, NULL) != DW_DLV_OK)
			continue;
		rc = sc_dwarf_children(dbg, cu, add_scope, &w);
		dwarf_dealloc_die(cu);
	}
	dwarf_finish(dbg, NULL);
	if (rc < 0) {
		sc_addr_ranges_free(out);
		return -1;
	}
	/* Merged where they overlap (an inline variable defined in several
	 * units), for sc_addr_ranges_overlap. */
	sc_addr_ranges_normalize(out);
	return 0;
}
