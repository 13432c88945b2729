/* server_stdio.c - the standard streams of a job's fork-server runs
 * (server_stdio.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "server_stdio.h"

static int create(const char *path)
{
	return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

int sc_server_stdio_open(struct sc_server_stdio *s, const char *dir,
			 const char *stdin_path, char *why, size_t len)
{
	const char *failed = NULL;

	s->in = s->out = s->err = -1;
	snprintf(s->out_path, sizeof(s->out_path), "%s/.job-%d.out", dir,
		 (int)getpid());
	snprintf(s->err_path, sizeof(s->err_path), "%s/.job-%d.err", dir,
		 (int)getpid());
	if ((s->out = create(s->out_path)) < 0)
		failed = s->out_path;
	else if ((s->err = create(s->err_path)) < 0)
		failed = s->err_path;
	else if (stdin_path[0] &&
		 (s->in = open(stdin_path, O_RDONLY | O_CLOEXEC)) < 0)
		failed = stdin_path;
	if (!failed)
		return 0;
	snprintf(why, len, "%s: %s", failed, strerror(errno));
	sc_server_stdio_close(s);
	return -1;
}

int sc_server_stdio_reset(struct sc_server_stdio *s)
{
	if (ftruncate(s->out, 0) < 0 || lseek(s->out, 0, SEEK_SET) < 0 ||
	    ftruncate(s->err, 0) < 0 || lseek(s->err, 0, SEEK_SET) < 0)
		return -1;
	if (s->in >= 0 && lseek(s->in, 0, SEEK_SET) < 0)
		return -1;
	return 0;
}

static int copy_file(const char *from, const char *to)
{
	int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, rc = -1;
	char buf[65536];
	ssize_t n;

	if (in < 0)
		return -1;
	out = create(to);
	if (out < 0)
		goto done;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			goto done;
	rc = n < 0 ? -1 : 0;
done:
	if (out >= 0)
		close(out);
	close(in);
	return rc;
}

int sc_server_stdio_save(const struct sc_server_stdio *s, const char *out,
			 const char *err)
{
	return copy_file(s->out_path, out) < 0 || copy_file(s->err_path, err) < 0
	       ? -1 : 0;
}

void sc_server_stdio_close(struct sc_server_stdio *s)
{
	if (s->out >= 0) {
		close(s->out);
		unlink(s->out_path);
	}
	if (s->err >= 0) {
		close(s->err);
		unlink(s->err_path);
	}
	if (s->in >= 0)
		close(s->in);
	s->in = s->out = s->err = -1;
}
