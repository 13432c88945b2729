/* run_describe.c - a failed run's message and location
 * (run_describe.h). */
#include "config.h"

#include "assert_parse.h"
#include "catch_report.h"
#include "gtest_report.h"
#include "panic_parse.h"
#include "run_describe.h"
#include "sanitizer_report.h"

void sc_describe_run(const struct sc_run_result *r, const char *stderr_tail,
		     const char *err_path, const char *out_path, char *msg,
		     size_t msglen, char *loc, size_t loclen)
{
	sc_bug_describe(r, stderr_tail, msg, msglen, loc, loclen);
	sc_describe_panic(r, err_path, out_path, msg, msglen, loc, loclen);
	sc_describe_sanitizer(r, err_path, msg, msglen, loc, loclen);
	sc_describe_gtest(r, out_path, msg, msglen, loc, loclen);
	sc_describe_catch(r, out_path, msg, msglen, loc, loclen);
}
