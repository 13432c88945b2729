/* demangle.h - C++ (and Rust legacy) symbol names as the user wrote them. */
#ifndef SC_DEMANGLE_H
#define SC_DEMANGLE_H

#ifdef __cplusplus
extern "C" {
#endif

/* A malloc'd copy of name demangled (_ZL2mu -> mu, _ZL6workerv ->
 * worker()), or of name itself when it is not a mangled C++ name (C
 * symbols, "?", anything the demangler rejects).  NULL only when memory
 * runs out or name is NULL.  The caller frees it. */
char *sc_demangle(const char *name);

#ifdef __cplusplus
}
#endif

#endif
