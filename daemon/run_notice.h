/* run_notice.h - what the user should know about how a session's runs
 * were controlled, said once per session. */
#ifndef SCHEDCTL_RUN_NOTICE_H
#define SCHEDCTL_RUN_NOTICE_H

#include <stdbool.h>
#include <stddef.h>

#include "tracer.h"

#define SC_NOTICE_LEN 400

/* Write the warnings about run res (one line each, without a trailing
 * newline) to lines[0..max), each of size len; returns how many. */
size_t sc_run_notices(const struct sc_run_result *res,
		      char lines[][SC_NOTICE_LEN], size_t max);

#endif
