/*
 * gtest_report.h - the message and location of a failed GoogleTest
 * assertion.
 *
 * A GoogleTest binary prints its failures on standard output, then a
 * summary, and exits with status 1:
 *     [ RUN      ] Bank.Withdraw
 *     /src/bank_test.cc:20: Failure
 *     Expected: (balance) >= (0), actual: -60 vs 0
 *     overdrawn
 *     [  FAILED  ] Bank.Withdraw (0 ms)
 * so stderr's tail says nothing.  The first failure is the cause.
 */
#ifndef SCHEDCTL_GTEST_REPORT_H
#define SCHEDCTL_GTEST_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "tracer.h"

/* Find the first GoogleTest failure in text: write "Bank.Withdraw
 * failed: Expected: ...; overdrawn" to msg and "/src/bank_test.cc:20" to
 * loc. */
bool sc_parse_gtest(const char *text, char *msg, size_t msglen, char *loc,
		    size_t loclen);

/* For a run that exited with status 1: replace msg and loc with the first
 * GoogleTest failure in the first 64 KiB of the stdout file at path.
 * Leaves them alone otherwise. */
void sc_describe_gtest(const struct sc_run_result *r, const char *path,
		       char *msg, size_t msglen, char *loc, size_t loclen);

#endif /* SCHEDCTL_GTEST_REPORT_H */
