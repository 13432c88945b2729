/* test_panic_notice.c - Rust panic lines become bug messages (both the
 * old and the >= 1.73 format, found behind a backtrace), and the warning
 * about runs with too few synchronisation points comes exactly below one
 * point per thread besides the main one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "assert_parse.h"
#include "panic_parse.h"
#include "run_notice.h"
#include "tap.h"

/* text (a panic's lines) gives the message want_msg and, unless NULL,
 * the location want_loc. */
static void parses(const char *text, const char *want_msg,
		   const char *want_loc, const char *what)
{
	char msg[512], loc[256];

	ok(sc_parse_panic(text, msg, sizeof(msg), loc, sizeof(loc)) &&
	   strcmp(msg, want_msg) == 0 && (!want_loc || strcmp(loc, want_loc) == 0),
	   "%s", what);
}

int main(void)
{
	char msg[512], loc[256], path[] = "/tmp/test_panic_notice.XXXXXX";
	char lines[2][SC_NOTICE_LEN];
	struct sc_run_result r;

	plan(37);
	parses("thread 'main' panicked at 'called `Result::unwrap()` on an "
	       "`Err` value: Any { .. }', src/main.rs:14:27",
	       "panicked: called `Result::unwrap()` on an `Err` value: "
	       "Any { .. } (thread 'main')", "src/main.rs:14:27",
	       "rustc < 1.73 panic line");
	parses("thread 'w' panicked at 'a ', b', x.rs:1:2",
	       "panicked: a ', b (thread 'w')", "x.rs:1:2",
	       "a message with quote-comma in it");
	parses("thread 'main' panicked at src/main.rs:2:5:\nboom",
	       "panicked: boom (thread 'main')", "src/main.rs:2:5",
	       "rustc >= 1.73 panic lines");
	parses("thread 'main' (9744) panicked at cta.rs:11:5:\n"
	       "balance went negative: -60",
	       "panicked: balance went negative: -60 (thread 'main')",
	       "cta.rs:11:5",
	       "rustc >= 1.88 panic lines: the thread id after the name");
	parses("thread '<unnamed>' (12) panicked at 'x', a.rs:1:1",
	       "panicked: x (thread '<unnamed>')", NULL,
	       "a thread id with the old message form");
	/* assert_eq! in rustc < 1.73: the quoted message spans lines. */
	parses("thread 'main' panicked at 'assertion failed: `(left == right)`\n"
	       "  left: `1`,\n right: `2`: lost update', race.rs:23:5\n"
	       "note: run with `RUST_BACKTRACE=1`\n",
	       "panicked: assertion failed: `(left == right)` left: `1`, "
	       "right: `2`: lost update (thread 'main')", "race.rs:23:5",
	       "rustc < 1.73 assert_eq!: the message over three lines");
	/* ... and in rustc >= 1.73, the backtrace after it. */
	parses("thread 'main' (7) panicked at race.rs:23:5:\n"
	       "assertion `left == right` failed: lost\n  left: 1\n right: 2\n"
	       "stack backtrace:\n   0: rust_begin_unwind\n",
	       "panicked: assertion `left == right` failed: lost left: 1 "
	       "right: 2 (thread 'main')", "race.rs:23:5",
	       "rustc >= 1.73 assert_eq!: the message over three lines");
	/* A quoted message that never ends in a location: no panic line. */
	ok(!sc_parse_panic("thread 'main' panicked at 'half\na line\n", msg,
			   sizeof(msg), loc, sizeof(loc)),
	   "an unterminated message is no panic line");
	ok(!sc_parse_panic("stack backtrace:", msg, sizeof(msg), loc,
			   sizeof(loc)), "not a panic line");
	ok(sc_parse_go_panic("hello\npanic: runtime error: index out of range "
			     "[5] with length 4\n\ngoroutine 6 [running]:\n"
			     "main.main.func1(...)\n\t/src/x.go:12 +0x1d\n"
			     "created by main.main\n\t/src/x.go:10 +0x45\n",
			     msg, sizeof(msg), loc, sizeof(loc)) &&
	   strcmp(msg, "panic: runtime error: index out of range [5] with "
		  "length 4 (goroutine 6)") == 0 &&
	   strcmp(loc, "/src/x.go:12") == 0, "Go panic: message, goroutine, line");
	ok(sc_parse_go_panic("fatal error: all goroutines are asleep - deadlock!\n"
			     "\ngoroutine 1 [chan receive]:\nmain.main()\n"
			     "\t/src/d.go:5 +0x2d\n", msg, sizeof(msg), loc,
			     sizeof(loc)) &&
	   strcmp(msg, "fatal error: all goroutines are asleep - deadlock! "
		  "(goroutine 1)") == 0 && strcmp(loc, "/src/d.go:5") == 0,
	   "Go fatal error");
	/* A WaitGroup deadlock: the runtime's frames first, the program's
	 * Wait below; the next goroutine's frames are not this one's. */
	ok(sc_parse_go_panic("fatal error: all goroutines are asleep - deadlock!\n"
			     "\ngoroutine 1 [semacquire]:\n"
			     "sync.runtime_Semacquire(0xc000012345?)\n"
			     "\t/usr/lib/go-1.19/src/runtime/sema.go:62 +0x25\n"
			     "sync.(*WaitGroup).Wait(0x1?)\n"
			     "\t/usr/lib/go-1.19/src/sync/waitgroup.go:139 +0x52\n"
			     "main.main()\n\t/src/wg.go:21 +0x9c\n\n"
			     "goroutine 6 [chan send]:\nmain.worker()\n"
			     "\t/src/wg.go:9 +0x1d\n", msg, sizeof(msg), loc,
			     sizeof(loc)) && strcmp(loc, "/src/wg.go:21") == 0,
	   "Go: the goroutine's first frame of the program, not the runtime's");
	ok(sc_parse_go_panic("fatal error: all goroutines are asleep - deadlock!\n"
			     "\ngoroutine 1 [semacquire]:\n"
			     "sync.runtime_Semacquire(0x1?)\n"
			     "\t/usr/lib/go-1.19/src/runtime/sema.go:62 +0x25\n"
			     "\ngoroutine 6 [chan send]:\nmain.worker()\n"
			     "\t/src/wg.go:9 +0x1d\n", msg, sizeof(msg), loc,
			     sizeof(loc)) &&
	   strcmp(loc, "/usr/lib/go-1.19/src/runtime/sema.go:62") == 0,
	   "Go: the runtime's frame when the goroutine has none of the program");
	ok(!sc_parse_go_panic("exit status 2\nno panic here\n", msg, sizeof(msg),
			      loc, sizeof(loc)), "Go: no panic line, no message");

	/* The first panic of the file, behind nothing, before backtraces. */
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f)
		bail_out("mkstemp");
	fprintf(f, "starting\nthread '<unnamed>' panicked at 'first', a.rs:1:1\n"
		"stack backtrace:\n   0: rust_begin_unwind\n");
	for (int i = 0; i < 300; i++)
		fprintf(f, "   %d: frame\n             at lib.rs:%d:5\n", i, i);
	fprintf(f, "thread 'main' panicked at 'second', a.rs:2:2\n");
	fclose(f);
	memset(&r, 0, sizeof(r));
	r.verdict = SC_VERDICT_EXIT;
	r.exit_status = 101;
	strcpy(msg, "exited with status 101");
	loc[0] = '\0';
	sc_describe_panic(&r, path, NULL, msg, sizeof(msg), loc, sizeof(loc));
	ok(strcmp(msg, "panicked: first (thread '<unnamed>')") == 0 &&
	   strcmp(loc, "a.rs:1:1") == 0, "status 101: the first panic of stderr");
	r.exit_status = 1;
	strcpy(msg, "exited with status 1");
	sc_describe_panic(&r, path, NULL, msg, sizeof(msg), loc, sizeof(loc));
	ok(strcmp(msg, "exited with status 1") == 0, "other statuses: unchanged");

	/* A cargo test binary: nothing on stderr, the failed test's
	 * captured output at the end of stdout. */
	char out_path[] = "/tmp/test_panic_out_XXXXXX";
	fd = mkstemp(out_path);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f)
		bail_out("mkstemp");
	fprintf(f, "\nrunning 2 tests\ntest tests::fine ... ok\n"
		"test tests::racy ... FAILED\n\nfailures:\n\n"
		"---- tests::racy stdout ----\n\n"
		"thread 'tests::racy' (14322) panicked at src/lib.rs:37:9:\n"
		"assertion `left == right` failed: lost update\n"
		"  left: 3\n right: 6\n"
		"note: run with `RUST_BACKTRACE=1` environment variable to "
		"display a backtrace\n\n\nfailures:\n    tests::racy\n\n"
		"test result: FAILED. 1 passed; 1 failed\n\n");
	fclose(f);
	f = fopen(path, "w");   /* empty, as libtest leaves it */
	if (!f)
		bail_out("fopen");
	fclose(f);
	r.exit_status = 101;
	strcpy(msg, "exited with status 101");
	loc[0] = '\0';
	sc_describe_panic(&r, path, out_path, msg, sizeof(msg), loc,
			  sizeof(loc));
	ok(strcmp(msg, "panicked: assertion `left == right` failed: lost "
		  "update left: 3 right: 6 (thread 'tests::racy')") == 0 &&
	   strcmp(loc, "src/lib.rs:37:9") == 0,
	   "cargo test: the failed test's panic from the end of stdout");
	diag("%s at %s", msg, loc);
	unlink(out_path);
	unlink(path);

	memset(&r, 0, sizeof(r));
	r.threads = r.process_threads = 1;
	ok(sc_run_notices(&r, lines, 2) == 0, "one thread: no warning");
	r.threads = 23;
	r.sync_steps = 0;
	ok(sc_run_notices(&r, lines, 2) == 0,
	   "23 processes of one thread each (a script): no warning");
	r.threads = r.process_threads = 3;
	r.sync_steps = 0;
	ok(sc_run_notices(&r, lines, 2) == 1 &&
	   strstr(lines[0], "3 threads") && strstr(lines[0], "Go"),
	   "3 threads, no point: one warning naming the causes");
	r.sync_steps = 1;
	ok(sc_run_notices(&r, lines, 2) == 0, "3 threads, 1 point: none");
	r.threads = r.process_threads = 81;
	r.sync_steps = 39;
	ok(sc_run_notices(&r, lines, 2) == 1, "81 threads, 39 points: a warning");
	r.sync_steps = 65;
	ok(sc_run_notices(&r, lines, 2) == 0,
	   "81 threads, 65 points (one atomic add each, some unseen): none");
	r.threads = r.process_threads = 3;
	strcpy(r.notice, "prog is a Go binary");
	ok(sc_run_notices(&r, lines, 2) == 1 &&
	   strcmp(lines[0], "prog is a Go binary") == 0, "the engine's notice");
	r.sync_steps = 0;
	ok(sc_run_notices(&r, lines, 2) == 2, "notice and warning");
	ok(sc_run_notices(&r, lines, 1) == 1, "no more than asked");
	ok(!strchr(lines[0], '\n'), "one line");

	/* GLib's assertions (an abort, like assert()'s). */
	memset(&r, 0, sizeof(r));
	r.verdict = SC_VERDICT_ASSERT;
	strcpy(r.message, "SIGABRT (Aborted) in T0");
	sc_bug_describe(&r, "**\nERROR:glib_pool.c:27:main: assertion failed "
			"(total == 10): (9 == 10)\n", msg, sizeof(msg), loc,
			sizeof(loc));
	ok(strcmp(msg, "ERROR:glib_pool.c:27:main: assertion failed "
		  "(total == 10): (9 == 10)") == 0 &&
	   strcmp(loc, "glib_pool.c:27 (main)") == 0,
	   "g_assert_cmpint: its line is the message, its file and line the "
	   "location");
	strcpy(r.message, "SIGABRT (Aborted) in T2 at "
	       "__pthread_kill_implementation+0x10c (libc.so.6), called from "
	       "buf_put at refcount.c:13 (refcount)");
	strcpy(r.location, "buf_put at refcount.c:13 (refcount)");
	sc_bug_describe(&r, "working\ndouble free or corruption (fasttop)\n",
			msg, sizeof(msg), loc, sizeof(loc));
	ok(strcmp(msg, "glibc: double free or corruption (fasttop): SIGABRT "
		  "(Aborted) in T2 at __pthread_kill_implementation+0x10c "
		  "(libc.so.6), called from buf_put at refcount.c:13 "
		  "(refcount)") == 0 &&
	   strcmp(loc, "buf_put at refcount.c:13 (refcount)") == 0,
	   "a glibc heap abort: its reason, then the thread and the caller");
	sc_bug_describe(&r, "free(): double free detected in tcache 2\n",
			msg, sizeof(msg), loc, sizeof(loc));
	ok(strncmp(msg, "glibc: free(): double free detected in tcache 2: "
		   "SIGABRT", 50) == 0, "tcache's double free too");
	sc_bug_describe(&r, "the answer is 42\n", msg, sizeof(msg), loc,
			sizeof(loc));
	ok(strcmp(msg, r.message) == 0,
	   "an abort without glibc's reason keeps the signal's account");
	/* libstdc++'s terminate handler: the exception leads. */
	strcpy(r.message, "SIGABRT (Aborted) in T0 at "
	       "__pthread_kill_implementation+0x10c (libc.so.6), called from "
	       "main at c_async.cc:21 (c_async)");
	sc_bug_describe(&r, "scan\nterminate called after throwing an instance "
			"of 'std::runtime_error'\n  what():  plugin registry "
			"empty\n", msg, sizeof(msg), loc, sizeof(loc));
	ok(strcmp(msg, "uncaught exception std::runtime_error: plugin "
		  "registry empty: SIGABRT (Aborted) in T0 at "
		  "__pthread_kill_implementation+0x10c (libc.so.6), called "
		  "from main at c_async.cc:21 (c_async)") == 0,
	   "an uncaught exception: its type and what(), then the signal's "
	   "account");
	sc_bug_describe(&r, "terminate called after throwing an instance of "
			"'int'\n", msg, sizeof(msg), loc, sizeof(loc));
	ok(strncmp(msg, "uncaught exception int: SIGABRT", 31) == 0,
	   "an exception without what()");
	sc_bug_describe(&r, "terminate called without an active exception\n",
			msg, sizeof(msg), loc, sizeof(loc));
	ok(strncmp(msg, "terminate called without an active exception: "
		   "SIGABRT", 53) == 0, "std::terminate with no exception "
	   "(a joinable std::thread destroyed)");
	ok(sc_parse_glib_assert("Bail out! ERROR:t.c:9:test_x: assertion "
				"failed: (n > 0)", loc, sizeof(loc)) &&
	   strcmp(loc, "t.c:9 (test_x)") == 0, "g_test's Bail out! line");
	ok(!sc_parse_glib_assert("ERROR: could not open file", loc,
				 sizeof(loc)), "an ERROR: line of the program");
	ok(!sc_parse_glib_assert("ERROR:x.c:1:f: something else", loc,
				 sizeof(loc)), "a GLib error that is no assertion");
	return done_testing();
}
