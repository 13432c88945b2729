/*
 * session_dir.h - the directory of one launch session.
 *
 * Without --out a session lives in STATE/sessions/ID, ID like
 * 20261122-031500-ab12 (local time and 16 random bits; mkdir makes it
 * unique).  Per run r: run-%06u.sctrace (trace), .out and .err (the
 * program's stdout and stderr).  session.txt holds the parameters as
 * key=value lines; the session index (store.h) has them too.
 */
#ifndef SCHEDCTL_SESSION_DIR_H
#define SCHEDCTL_SESSION_DIR_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "control.pb-c.h"

struct sc_session {
	char id[40];
	char dir[PATH_MAX];         /* absolute */
};

/* Create the session directory: out_dir (mkdir -p; relative to the
 * current directory) when not NULL/empty, else STATE/sessions/ID.
 * Returns 0 or -1 with a one-line reason in err. */
int sc_session_create(const char *state_dir, const char *out_dir,
		      struct sc_session *s, char *err, size_t errlen);

/* DIR/run-%06u.EXT */
void sc_session_run_path(const struct sc_session *s, uint32_t run,
			 const char *ext, char *buf, size_t len);

/* One parameter of session.txt. */
struct sc_session_param {
	const char *key;
	const char *value;
};

/* Write DIR/session.txt: one key=value line per parameter (newlines and
 * backslashes in values escaped as \n and \\). */
int sc_session_write_params(const struct sc_session *s,
			    const struct sc_session_param *p, size_t n,
			    char *err, size_t errlen);

#endif /* SCHEDCTL_SESSION_DIR_H */
