/* test_sanitizer_report.c - the first report of AddressSanitizer,
 * ThreadSanitizer and UBSan output (as GCC 12's runtimes print them)
 * becomes the bug's message and location: what and where, not the
 * shadow-byte legend at the end of stderr; so does the first failure a
 * GoogleTest binary prints on stdout. */
#include <stdio.h>
#include <string.h>

#include "catch_report.h"
#include "gtest_report.h"
#include "sanitizer_report.h"
#include "tap.h"

static const char asan[] =
	"some output of the program\n"
	"=================================================================\n"
	"==32586==ERROR: AddressSanitizer: heap-use-after-free on address "
	"0x602000000010 at pc 0x555555555368 bp 0x7fffffffe580 sp 0x7fffffffe578\n"
	"WRITE of size 4 at 0x602000000010 thread T0\n"
	"    #0 0x7ffff78b76a8 in __interceptor_memset ../../../../src/libsanitizer/sanitizer_common/sanitizer_common_interceptors.inc:799\n"
	"    #1 0x555555555367 in main /tmp/me/asanrace.c:6\n"
	"    #1 0x7ffff7645249 in __libc_start_call_main ../sysdeps/nptl/libc_start_call_main.h:58\n"
	"    #3 0x555555555140 in _start (/tmp/me/asanrace+0x1140)\n"
	"\n"
	"freed by thread T1 here:\n"
	"    #0 0x7ffff78b76a8 in __interceptor_free ../../../../src/libsanitizer/asan/asan_malloc_linux.cpp:52\n"
	"    #1 0x55555555523e in f /tmp/me/asanrace.c:5\n";

static const char asan_nolines[] =
	"==7==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000 "
	"(pc 0x55d5 bp 0x7ffc sp 0x7ffc T1)\n"
	"==7==The signal is caused by a WRITE memory access.\n"
	"    #0 0x55d5e in worker (/usr/bin/prog+0x11e9)\n"
	"    #1 0x7f10 in start_thread nptl/pthread_create.c:442\n";

static const char tsan[] =
	"==================\n"
	"WARNING: ThreadSanitizer: data race (pid=4242)\n"
	"  Write of size 4 at 0x55f1c3a4c014 by thread T2:\n"
	"    #0 free ../../../../src/libsanitizer/tsan/tsan_interceptors_posix.cpp:706 (libtsan.so.2+0x3e6d8)\n"
	"    #1 worker /src/counter.c:12:11 (counter+0x12d9)\n"
	"    #1 <null> <null> (libtsan.so.2+0x3b0d8)\n"
	"\n"
	"  Previous read of size 4 at 0x55f1c3a4c014 by thread T1:\n"
	"    #0 worker /src/counter.c:12:13 (counter+0x12c3)\n";

static const char gtest[] =
	"[==========] Running 2 tests from 1 test suite.\n"
	"[ RUN      ] Bank.Deposit\n"
	"[       OK ] Bank.Deposit (0 ms)\n"
	"[ RUN      ] Bank.Withdraw\n"
	"/src/bank_test.cc:20: Failure\n"
	"Expected: (balance) >= (0), actual: -60 vs 0\n"
	"overdrawn\n"
	"[  FAILED  ] Bank.Withdraw (0 ms)\n"
	"[  FAILED  ] 1 test, listed below:\n";

static const char gtest_eq[] =
	"[ RUN      ] Counter.Racy\n"
	"gt.cc:35: Failure\n"
	"Expected equality of these values:\n"
	"  racy_counter(3)\n"
	"    Which is: 4\n"
	"  6\n"
	"lost update\n"
	"[  FAILED  ] Counter.Racy (1 ms)\n";

static const char catch2[] =
	"catch is a Catch v2.13.10 host application.\n"
	"Run with -? for options\n\n"
	"-------------------------------------------------------------------------------\n"
	"racy counter loses no update\n"
	"-------------------------------------------------------------------------------\n"
	"catch.cc:4\n"
	"...............................................................................\n\n"
	"catch.cc:4: FAILED:\n"
	"  REQUIRE( racy_counter(3) == 6 )\n"
	"with expansion:\n"
	"  5 == 6\n\n"
	"===============================================================================\n"
	"test cases: 2 | 1 passed | 1 failed\n";

static const char doctest[] =
	"[doctest] doctest version is \"2.4.9\"\n"
	"===============================================================================\n"
	"doct.cc:4:\n"
	"TEST CASE:  racy counter loses no update\n\n"
	"doct.cc:4: ERROR: CHECK( racy_counter(3) == 6 ) is NOT correct!\n"
	"  values: CHECK( 5 == 6 )\n\n"
	"===============================================================================\n";

static const char ubsan[] =
	"/src/ovf.c:9:11: runtime error: signed integer overflow: 2147483647 "
	"+ 1 cannot be represented in type 'int'\n";

int main(void)
{
	char msg[1024], loc[256];

	plan(15);
	ok(sc_parse_sanitizer(asan, msg, sizeof(msg), loc, sizeof(loc)),
	   "an AddressSanitizer report is found behind program output");
	is_str(msg, "AddressSanitizer: heap-use-after-free on address "
	       "0x602000000010 (WRITE of size 4 at 0x602000000010 thread T0)",
	       "its message: what, where in memory, the access");
	is_str(loc, "/tmp/me/asanrace.c:6 (main)",
	       "its location: the program's first frame (not the interceptor's)");
	ok(sc_parse_sanitizer(asan_nolines, msg, sizeof(msg), loc, sizeof(loc)) &&
	   strncmp(msg, "AddressSanitizer: SEGV on unknown address", 41) == 0,
	   "a SEGV report is found");
	is_str(loc, "worker (/usr/bin/prog+0x11e9)",
	       "without debug info: the program's function and offset");
	ok(sc_parse_sanitizer(tsan, msg, sizeof(msg), loc, sizeof(loc)) &&
	   strcmp(msg, "ThreadSanitizer: data race (Write of size 4 at "
		  "0x55f1c3a4c014 by thread T2)") == 0,
	   "ThreadSanitizer: the race and the access (got: %s)", msg);
	is_str(loc, "/src/counter.c:12 (worker)", "ThreadSanitizer: the program's frame, not the interceptor's");
	ok(sc_parse_sanitizer(ubsan, msg, sizeof(msg), loc, sizeof(loc)) &&
	   strcmp(loc, "/src/ovf.c:9:11") == 0 &&
	   strstr(msg, "signed integer overflow") != NULL,
	   "UBSan's runtime error line");
	ok(!sc_parse_sanitizer("Assertion failed\nnothing else\n", msg,
			       sizeof(msg), loc, sizeof(loc)),
	   "no report: nothing found");
	ok(sc_parse_gtest(gtest, msg, sizeof(msg), loc, sizeof(loc)),
	   "a GoogleTest failure is found on stdout");
	ok(strcmp(msg, "Bank.Withdraw failed: Expected: (balance) >= (0), "
		  "actual: -60 vs 0; overdrawn") == 0 &&
	   strcmp(loc, "/src/bank_test.cc:20") == 0,
	   "its test, expectation and message, at its line (got: %s at %s)",
	   msg, loc);
	ok(sc_parse_gtest(gtest_eq, msg, sizeof(msg), loc, sizeof(loc)) &&
	   strcmp(msg, "Counter.Racy failed: Expected equality of these "
		  "values:; racy_counter(3); Which is: 4; 6; lost update") == 0,
	   "EXPECT_EQ: both values and the user's message (got: %s)", msg);
	ok(sc_parse_catch(catch2, msg, sizeof(msg), loc, sizeof(loc)) &&
	   strcmp(msg, "racy counter loses no update failed: REQUIRE( "
		  "racy_counter(3) == 6 ); with expansion:; 5 == 6") == 0 &&
	   strcmp(loc, "catch.cc:4") == 0,
	   "Catch2: the test case, the assertion and its expansion (got: %s "
	   "at %s)", msg, loc);
	ok(sc_parse_catch(doctest, msg, sizeof(msg), loc, sizeof(loc)) &&
	   strcmp(msg, "racy counter loses no update failed: CHECK( "
		  "racy_counter(3) == 6 ) is NOT correct! values: CHECK( 5 == 6 "
		  ")") == 0 && strcmp(loc, "doct.cc:4") == 0,
	   "doctest: the test case, the check and its values (got: %s at %s)",
	   msg, loc);
	ok(!sc_parse_catch(gtest, msg, sizeof(msg), loc, sizeof(loc)),
	   "a GoogleTest failure is none of theirs");
	return done_testing();
}
