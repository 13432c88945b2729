/*
 * attach_fallback.c - sc_attach() for as long as the engine has none.
 *
 * Weak, and in its own archive linked after libtracer (daemon/Makemodule.am):
 * the engine's definition wins as soon as it exists, and until then
 * `schedctl attach` says plainly that it is not there yet.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "tracer.h"

__attribute__((weak)) int sc_attach(int pid, const struct sc_run_config *cfg,
				    uint32_t duration_ms,
				    struct sc_run_result *result)
{
	(void)pid;
	(void)cfg;
	(void)duration_ms;
	memset(result, 0, sizeof(*result));
	result->verdict = SC_VERDICT_ERROR;
	snprintf(result->message, sizeof(result->message),
		 "attach is not implemented yet");
	return -1;
}
