/*
 * params.h - "key=value,key=value" strategy parameters, split and parsed
 * with one-line errors that name the strategy and the parameter.
 */
#ifndef SCHEDCTL_PARAMS_H
#define SCHEDCTL_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#define SC_PARAMS_MAX 8

struct sc_params {
	char buf[256];
	size_t n;
	char *key[SC_PARAMS_MAX];
	char *val[SC_PARAMS_MAX];
};

/* Split params (NULL or "" is none) of strategy name; 0, or -1 with a
 * reason in err (too long, too many, an item without '='). */
int sc_params_split(struct sc_params *p, const char *name,
		    const char *params, char *err, size_t errlen);

/* Parse a number in [min, max] for key of strategy name; 0, or -1 with a
 * reason in err. */
int sc_params_double(const char *name, const char *key, const char *val,
		     double min, double max, double *out, char *err,
		     size_t errlen);
int sc_params_u32(const char *name, const char *key, const char *val,
		  uint32_t min, uint32_t max, uint32_t *out, char *err,
		  size_t errlen);

#endif /* SCHEDCTL_PARAMS_H */
