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
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <libdwarf.h>

#include "analysis.h"
#include "atomic_vars.h"
#include "dwarf_no_abort.h"

/* Nesting of structures and arrays followed; elements of an array looked
 * at (a larger array of atomics is taken whole). */
#define MAX_DEPTH 12
#define MAX_ELEMENTS 256

static int push(struct sc_atomic_ranges *r, uint64_t lo, uint64_t hi)
{
	if (hi <= lo)
		return 0;
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 32;
		void *p = realloc(r->v, cap * sizeof(*r->v));
		if (!p)
			return -1;
		r->v = p;
		r->cap = cap;
	}
	r->v[r->n].lo = lo;
	r->v[r->n].hi = hi;
	r->n++;
	return 0;
}

/* The DIE that attribute at of die refers to. */
static bool ref_die(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half at,
		    Dwarf_Die *out)
{
	Dwarf_Attribute a;
	Dwarf_Off off;
	bool ok;

	if (dwarf_attr(die, at, &a, NULL) != DW_DLV_OK)
		return false;
	ok = dwarf_global_formref(a, &off, NULL) == DW_DLV_OK &&
	     dwarf_offdie_b(dbg, off, 1, out, NULL) == DW_DLV_OK;
	dwarf_dealloc_attribute(a);
	return ok;
}

static bool unsigned_attr(Dwarf_Die die, Dwarf_Half at, Dwarf_Unsigned *v)
{
	Dwarf_Attribute a;
	bool ok;

	if (dwarf_attr(die, at, &a, NULL) != DW_DLV_OK)
		return false;
	ok = dwarf_formudata(a, v, NULL) == DW_DLV_OK;
	dwarf_dealloc_attribute(a);
	return ok;
}

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
	if (depth >= MAX_DEPTH || !ref_die(dbg, type, DW_AT_type, &next))
		return 0;
	size = type_size(dbg, next, depth + 1);
	dwarf_dealloc_die(next);
	return size;
}

/* Element count of an array type (its first dimension; later dimensions
 * multiply in through the element size). */
static Dwarf_Unsigned array_count(Dwarf_Debug dbg, Dwarf_Die array)
{
	Dwarf_Die child = NULL, next;
	Dwarf_Unsigned count = 0, upper;

	if (dwarf_child(array, &child, NULL) != DW_DLV_OK)
		return 0;
	for (; child; child = next) {
		Dwarf_Half tag = 0;
		dwarf_tag(child, &tag, NULL);
		if (tag == DW_TAG_subrange_type) {
			if (unsigned_attr(child, DW_AT_count, &count))
				;
			else if (unsigned_attr(child, DW_AT_upper_bound, &upper))
				count = upper + 1;
			dwarf_dealloc_die(child);
			break;
		}
		if (dwarf_siblingof_b(dbg, child, 1, &next, NULL) != DW_DLV_OK)
			next = NULL;
		dwarf_dealloc_die(child);
	}
	return count;
}

static int add_type(Dwarf_Debug dbg, Dwarf_Die type, uint64_t addr,
		    int depth, struct sc_atomic_ranges *out);

static int add_members(Dwarf_Debug dbg, Dwarf_Die type, uint64_t addr,
		       int depth, struct sc_atomic_ranges *out)
{
	Dwarf_Die child = NULL, next;
	int rc = 0;

	if (dwarf_child(type, &child, NULL) != DW_DLV_OK)
		return 0;
	for (; child && rc == 0; child = next) {
		Dwarf_Half tag = 0;
		Dwarf_Unsigned off;
		Dwarf_Die mtype;
		dwarf_tag(child, &tag, NULL);
		/* Members at a constant offset (static members have none;
		 * bit fields are never atomic). */
		if ((tag == DW_TAG_member || tag == DW_TAG_inheritance) &&
		    unsigned_attr(child, DW_AT_data_member_location, &off) &&
		    ref_die(dbg, child, DW_AT_type, &mtype)) {
			rc = add_type(dbg, mtype, addr + off, depth + 1, out);
			dwarf_dealloc_die(mtype);
		}
		if (dwarf_siblingof_b(dbg, child, 1, &next, NULL) != DW_DLV_OK)
			next = NULL;
		dwarf_dealloc_die(child);
	}
	if (child)
		dwarf_dealloc_die(child);
	return rc;
}

/* Add the atomic bytes of an object of this type at addr. */
static int add_type(Dwarf_Debug dbg, Dwarf_Die type, uint64_t addr,
		    int depth, struct sc_atomic_ranges *out)
{
	Dwarf_Half tag = 0;
	Dwarf_Die next;
	char *name = NULL;
	int rc = 0;

	if (depth > MAX_DEPTH || dwarf_tag(type, &tag, NULL) != DW_DLV_OK)
		return 0;
	switch (tag) {
	case DW_TAG_atomic_type:
		return push(out, addr, addr + type_size(dbg, type, 0));
	case DW_TAG_typedef:
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
		if (!ref_die(dbg, type, DW_AT_type, &next))
			return 0;
		rc = add_type(dbg, next, addr, depth + 1, out);
		dwarf_dealloc_die(next);
		return rc;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		if (dwarf_diename(type, &name, NULL) == DW_DLV_OK &&
		    atomic_class_name(name))
			return push(out, addr, addr + type_size(dbg, type, 0));
		return add_members(dbg, type, addr, depth, out);
	case DW_TAG_array_type: {
		Dwarf_Unsigned n = array_count(dbg, type), esize;
		if (!n || !ref_die(dbg, type, DW_AT_type, &next))
			return 0;
		esize = type_size(dbg, next, 0);
		struct sc_atomic_ranges one = { 0 };
		rc = add_type(dbg, next, 0, depth + 1, &one);
		dwarf_dealloc_die(next);
		if (rc == 0 && one.n && (n > MAX_ELEMENTS || !esize))
			/* Taken whole: an array of many atomics. */
			rc = push(out, addr, addr + (esize ? n * esize : 8));
		for (Dwarf_Unsigned i = 0; rc == 0 && one.n && esize &&
					     n <= MAX_ELEMENTS && i < n; i++)
			for (size_t k = 0; rc == 0 && k < one.n; k++)
				rc = push(out, addr + i * esize + one.v[k].lo,
					  addr + i * esize + one.v[k].hi);
		free(one.v);
		return rc;
	}
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

static int add_variable(Dwarf_Debug dbg, Dwarf_Die var,
			struct sc_atomic_ranges *out)
{
	Dwarf_Die type, decl;
	uint64_t addr;
	int rc;

	if (!static_address(var, &addr))
		return 0;
	/* A definition outside its class (a static member) has its type on
	 * the declaration it names. */
	if (!ref_die(dbg, var, DW_AT_type, &type)) {
		if (!ref_die(dbg, var, DW_AT_specification, &decl))
			return 0;
		bool ok = ref_die(dbg, decl, DW_AT_type, &type);
		dwarf_dealloc_die(decl);
		if (!ok)
			return 0;
	}
	rc = add_type(dbg, type, addr, 0, out);
	dwarf_dealloc_die(type);
	return rc;
}

/* Variables among die's children, in namespaces too; also function-local
 * statics (a variable with a static address inside a subprogram). */
static int walk(Dwarf_Debug dbg, Dwarf_Die die, int depth,
		struct sc_atomic_ranges *out)
{
	Dwarf_Die child = NULL, next;
	int rc = 0;

	if (depth > MAX_DEPTH || dwarf_child(die, &child, NULL) != DW_DLV_OK)
		return 0;
	for (; child && rc == 0; child = next) {
		Dwarf_Half tag = 0;
		dwarf_tag(child, &tag, NULL);
		if (tag == DW_TAG_variable)
			rc = add_variable(dbg, child, out);
		else if (tag == DW_TAG_namespace || tag == DW_TAG_subprogram ||
			 tag == DW_TAG_lexical_block)
			rc = walk(dbg, child, depth + 1, out);
		if (dwarf_siblingof_b(dbg, child, 1, &next, NULL) != DW_DLV_OK)
			next = NULL;
		dwarf_dealloc_die(child);
	}
	if (child)
		dwarf_dealloc_die(child);
	return rc;
}

static int cmp_range(const void *a, const void *b)
{
	const struct sc_atomic_range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

int sc_atomic_ranges_read(const char *path, struct sc_atomic_ranges *out)
{
	Dwarf_Debug dbg = NULL;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (dwarf_init_path(path, NULL, 0, DW_DLC_READ, DW_GROUPNUMBER_ANY,
			    sc_dwarf_no_abort, NULL, &dbg, NULL, 0, NULL,
			    NULL) != DW_DLV_OK)
		return 0;     /* no debug information: nothing declared */
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
		rc = walk(dbg, cu, 0, out);
		dwarf_dealloc_die(cu);
	}
	dwarf_finish(dbg, NULL);
	if (rc < 0) {
		sc_atomic_ranges_free(out);
		return -1;
	}
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp_range);
	/* Merge overlaps (an inline variable defined in several units). */
	size_t k = 0;
	for (size_t i = 0; i < out->n; i++) {
		if (k && out->v[i].lo <= out->v[k - 1].hi) {
			if (out->v[i].hi > out->v[k - 1].hi)
				out->v[k - 1].hi = out->v[i].hi;
		} else {
			out->v[k++] = out->v[i];
		}
	}
	out->n = k;
	return 0;
}

bool sc_atomic_ranges_overlap(const struct sc_atomic_ranges *r, uint64_t lo,
			      uint64_t hi)
{
	/* Ranges are sorted and disjoint (merged when read): only the last
	 * one starting below hi can reach into [lo, hi). */
	size_t a = 0, b = r->n;
	while (a < b) {
		size_t mid = a + (b - a) / 2;
		if (r->v[mid].lo < hi)
			a = mid + 1;
		else
			b = mid;
	}
	return a > 0 && r->v[a - 1].hi > lo;
}

void sc_atomic_ranges_free(struct sc_atomic_ranges *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}
