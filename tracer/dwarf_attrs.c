/* dwarf_attrs.c - reading DIE attributes and children with libdwarf:
 * the pieces every DWARF reader of the project needs (dwarf_inline.c,
 * the analyzer's atomic_vars.c). */
#include <stddef.h>
#include <stdio.h>

#include "dwarf_attrs.h"

bool sc_dwarf_unsigned(Dwarf_Die die, Dwarf_Half at, Dwarf_Unsigned *v)
{
	Dwarf_Attribute attr;
	bool ok;

	if (dwarf_attr(die, at, &attr, NULL) != DW_DLV_OK)
		return false;
	ok = dwarf_formudata(attr, v, NULL) == DW_DLV_OK;
	if (!ok) {
		/* DWARF 5's DW_FORM_implicit_const (a constant in the
		 * abbreviation, as GCC gives call_file) is a signed form. */
		Dwarf_Signed sv;
		ok = dwarf_formsdata(attr, &sv, NULL) == DW_DLV_OK && sv >= 0;
		if (ok)
			*v = (Dwarf_Unsigned)sv;
	}
	dwarf_dealloc_attribute(attr);
	return ok;
}

bool sc_dwarf_string(Dwarf_Die die, Dwarf_Half at, char *buf, size_t len)
{
	Dwarf_Attribute attr;
	char *s = NULL;
	bool ok;

	if (dwarf_attr(die, at, &attr, NULL) != DW_DLV_OK)
		return false;
	ok = dwarf_formstring(attr, &s, NULL) == DW_DLV_OK && s;
	if (ok)
		snprintf(buf, len, "%s", s);
	dwarf_dealloc_attribute(attr);
	return ok;
}

Dwarf_Die sc_dwarf_ref(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half at)
{
	Dwarf_Attribute attr;
	Dwarf_Off off;
	Dwarf_Die to = NULL;

	if (dwarf_attr(die, at, &attr, NULL) != DW_DLV_OK)
		return NULL;
	if (dwarf_global_formref(attr, &off, NULL) == DW_DLV_OK &&
	    dwarf_offdie_b(dbg, off, 1, &to, NULL) != DW_DLV_OK)
		to = NULL;
	dwarf_dealloc_attribute(attr);
	return to;
}

int sc_dwarf_children(Dwarf_Debug dbg, Dwarf_Die die,
		      int (*fn)(Dwarf_Die child, Dwarf_Half tag, void *arg),
		      void *arg)
{
	Dwarf_Die child = NULL, next;
	int rc = 0;

	if (dwarf_child(die, &child, NULL) != DW_DLV_OK)
		return 0;
	while (child && rc == 0) {
		Dwarf_Half tag = 0;
		dwarf_tag(child, &tag, NULL);
		rc = fn(child, tag, arg);
		if (rc || dwarf_siblingof_b(dbg, child, 1, &next, NULL) != DW_DLV_OK)
			next = NULL;
		dwarf_dealloc_die(child);
		child = next;
	}
	return rc;
}
