/* params.c - strategy parameter parsing (params.h). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strategy/params.h"

int sc_params_split(struct sc_params *p, const char *name,
		    const char *params, char *err, size_t errlen)
{
	char *save = NULL, *tok;

	p->n = 0;
	if (!params || !*params)
		return 0;
	if (strlen(params) >= sizeof(p->buf)) {
		snprintf(err, errlen, "strategy %s: parameters too long", name);
		return -1;
	}
	strcpy(p->buf, params);
	for (tok = strtok_r(p->buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');

		if (!eq || eq == tok) {
			snprintf(err, errlen, "strategy %s: parameter '%.64s' "
				 "is not key=value", name, tok);
			return -1;
		}
		if (p->n == SC_PARAMS_MAX) {
			snprintf(err, errlen, "strategy %s: too many parameters",
				 name);
			return -1;
		}
		*eq = '\0';
		p->key[p->n] = tok;
		p->val[p->n] = eq + 1;
		p->n++;
	}
	return 0;
}

int sc_params_double(const char *name, const char *key, const char *val,
		     double min, double max, double *out, char *err,
		     size_t errlen)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(val, &end);
	if (errno || end == val || *end || !isfinite(v) || v < min || v > max) {
		snprintf(err, errlen, "strategy %s: %s must be a number from "
			 "%g to %g (got '%.32s')", name, key, min, max, val);
		return -1;
	}
	*out = v;
	return 0;
}

int sc_params_u32(const char *name, const char *key, const char *val,
		  uint32_t min, uint32_t max, uint32_t *out, char *err,
		  size_t errlen)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(val, &end, 10);
	if (errno || end == val || *end || val[0] == '-' || v < min ||
	    v > max) {
		snprintf(err, errlen, "strategy %s: %s must be a whole number "
			 "from %u to %u (got '%.32s')", name, key, min, max,
			 val);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}
