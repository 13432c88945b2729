/* test_system_source.c - sc_system_source(): which source files are the
 * toolchain's (C/C++ headers, Rust's standard library and crates, Go's
 * runtime and modules), so
 * that reports name the program's line that their inlined code serves. */
#include <stdbool.h>

#include "dwarf_inline.h"
#include "tap.h"

static void check(const char *path, bool want, const char *what)
{
	ok(sc_system_source(path) == want, "%s: %s", what, path);
}

int main(void)
{
	plan(14);
	check("/usr/include/c++/12/bits/atomic_base.h", true, "C++ header");
	check("/usr/include/x86_64-linux-gnu/bits/pthreadtypes.h", true,
	      "C header");
	check("/usr/lib/gcc/x86_64-linux-gnu/12/include/stdatomic.h", true,
	      "compiler header");
	check("/usr/src/rustc-1.63.0/library/core/src/sync/atomic.rs", true,
	      "Debian's Rust standard library");
	check("/rustc/90b35a6239c3d8bdabc530a6a0816f7ff89a0aaf/library/core/src/sync/atomic.rs",
	      true, "rustup's Rust standard library");
	check("/home/u/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/lib/rustlib/src/rust/library/std/src/thread/mod.rs",
	      true, "rust-src of a rustup toolchain");
	check("/root/.cargo/registry/src/index.crates.io-6f17d22bba15001f/crossbeam-utils-0.8.20/src/backoff.rs",
	      true, "a crate from cargo's registry");
	check("/usr/lib/go-1.19/src/runtime/sys_linux_amd64.s", true,
	      "Debian's Go runtime");
	check("/usr/local/go/src/os/proc.go", true, "upstream Go's library");
	check("/root/go/pkg/mod/golang.org/x/sync@v0.6.0/errgroup/errgroup.go",
	      true, "a Go module from the module cache");
	check("/work/app/cmd/server/main.go", false, "the program's Go source");
	check("/work/app/src/main.rs", false, "the program's Rust source");
	check("/home/u/rustc/src/main.rs", false,
	      "a program in a directory called rustc");
	check("race.c", false, "a relative C source");
	return done_testing();
}
