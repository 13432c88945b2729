/* demangle.h - C++ (and Rust legacy) symbol names as the user wrote them. */
#ifndef SC_DEMANGLE_H
#define SC_DEMANGLE_H

#include <stddef.h>

/* U+2026, the mark of a name or a stack cut short in a report; a stack's
 * last line "<ellipsis> (N more frames not shown)" (stack.c) is read back
 * by the CLI (report_stacks.c). */
#define SC_ELLIPSIS "\xe2\x80\xa6"

#ifdef __cplusplus
extern "C" {
#endif

/* A malloc'd copy of name demangled (_ZL2mu -> mu, _ZL6workerv ->
 * worker()), or of name itself when it is not a mangled C++ name (C
 * symbols, "?", anything the demangler rejects).  NULL only when memory
 * runs out or name is NULL.  The caller frees it. */
char *sc_demangle(const char *name);

/* name into buf (len bytes, NUL included); a name too long for it is cut
 * and ends with an ellipsis, so that a report says it was cut (QA: C++
 * template names cut at 255 bytes without a mark). */
void sc_name_copy(char *buf, size_t len, const char *name);

#ifdef __cplusplus
}
#endif

#endif
