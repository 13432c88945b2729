/*
 * catch_report.h - the message and location of a failed Catch2 or doctest
 * assertion.
 *
 * Both print their failures on standard output and exit non-zero (Catch2:
 * the number of failed test cases; doctest: 1), so stderr's tail says
 * nothing.  Catch2:
 *     -----------------------------------------------------------------
 *     racy counter loses no update
 *     -----------------------------------------------------------------
 *     catch.cc:4
 *     .................................................................
 *
 *     catch.cc:4: FAILED:
 *       REQUIRE( racy_counter(3) == 6 )
 *     with expansion:
 *       5 == 6
 * doctest:
 *     TEST CASE:  racy counter loses no update
 *
 *     doct.cc:4: ERROR: CHECK( racy_counter(3) == 6 ) is NOT correct!
 *       values: CHECK( 5 == 6 )
 * The first failure is the cause.
 */
#ifndef SCHEDCTL_CATCH_REPORT_H
#define SCHEDCTL_CATCH_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "tracer.h"

/* Find the first Catch2 or doctest failure in text: write "racy counter
 * loses no update failed: REQUIRE( racy_counter(3) == 6 ); with
 * expansion: 5 == 6" to msg and "catch.cc:4" to loc. */
bool sc_parse_catch(const char *text, char *msg, size_t msglen, char *loc,
		    size_t loclen);

/* For a run that exited non-zero: replace msg and loc with the first
 * Catch2 or doctest failure in the first 64 KiB of the stdout file at
 * path.  Leaves them alone otherwise. */
void sc_describe_catch(const struct sc_run_result *r, const char *path,
		       char *msg, size_t msglen, char *loc, size_t loclen);

#endif /* SCHEDCTL_CATCH_REPORT_H */
