/* stdin_file.c - copy, locate and open a session's standard input. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stdin_file.h"
#include "strf.h"

static int write_all(int fd, const char *buf, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, buf, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Wait until from can be read; false when the client hung up first
 * (QA: `sleep 25 | schedctl launch`, Ctrl-C after 3 s: the session went
 * on reading its input for 22 s before it saw the interrupt). */
static bool readable_before_hangup(int from, int cancel_fd)
{
	struct pollfd p[2] = {
		{ .fd = from, .events = POLLIN },
		{ .fd = cancel_fd, .events = POLLRDHUP },
	};

	if (cancel_fd < 0)
		return true;
	for (;;) {
		int n = poll(p, 2, -1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || p[0].revents)
			return true;    /* the read says what it is */
		if (p[1].revents & (POLLRDHUP | POLLHUP | POLLERR))
			return false;
	}
}

int sc_stdin_copy(int from, int cancel_fd, const char *path, uint64_t *size,
		  char *err, size_t errlen)
{
	char buf[65536];
	uint64_t total = 0;
	struct stat st;
	int to = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (to < 0) {
		sc_strf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	for (;;) {
		if (!readable_before_hangup(from, cancel_fd)) {
			sc_strf(err, errlen, "interrupted while reading the "
				"program's standard input");
			goto fail;
		}
		ssize_t n = read(from, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			sc_strf(err, errlen, "reading the program's standard "
				"input: %s", strerror(errno));
			goto fail;
		}
		if (n == 0)
			break;
		total += (uint64_t)n;
		if (total > SC_STDIN_MAX) {
			sc_strf(err, errlen, "the program's standard input is "
				"larger than %" PRIu64 " MiB (each session keeps "
				"a copy for its runs and replays)",
				SC_STDIN_MAX >> 20);
			goto fail;
		}
		if (write_all(to, buf, (size_t)n) < 0) {
			sc_strf(err, errlen, "%s: %s", path, strerror(errno));
			goto fail;
		}
	}
	/* A program that stats its input sees the user's file's times, as
	 * natively: pigz and gzip put the input's mtime in the header they
	 * write (pigz -c < FILE). */
	if (fstat(from, &st) == 0 && S_ISREG(st.st_mode)) {
		struct timespec times[2] = { st.st_atim, st.st_mtim };

		if (futimens(to, times) < 0) {
			sc_strf(err, errlen, "%s: %s", path, strerror(errno));
			goto fail;
		}
	}
	if (close(to) < 0) {
		to = -1;
		sc_strf(err, errlen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	*size = total;
	return 0;
fail:
	if (to >= 0)
		close(to);
	unlink(path);
	return -1;
}

void sc_stdin_resolve(const char *recorded, const char *trace_path,
		      char *buf, size_t len)
{
	char dir[PATH_MAX];
	const char *slash;

	if (recorded[0] == '/') {
		sc_strf(buf, len, "%s", recorded);
		return;
	}
	slash = strrchr(trace_path, '/');
	if (!slash)
		sc_strf(dir, sizeof(dir), ".");
	else if (slash == trace_path)
		sc_strf(dir, sizeof(dir), "/");
	else
		sc_strf(dir, sizeof(dir), "%.*s", (int)(slash - trace_path),
			trace_path);
	/* Absolute, so that a later chdir (to the recorded working
	 * directory) does not change what it names. */
	char *real = realpath(dir, NULL);
	sc_strf(buf, len, "%s/%s", real ? real : dir, recorded);
	free(real);
}

int sc_stdin_open(const char *path, uint64_t size, char *err, size_t errlen)
{
	struct stat st = { 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		/* A trace copied out of its session directory looks for
		 * the session's input beside itself. */
		sc_strf(err, errlen, "%s: %s (the recorded run's standard "
			"input%s)", path, strerror(errno),
			errno == ENOENT ? ": a trace copied out of its session "
			"needs the session's '" SC_STDIN_NAME "' file beside it"
			: "");
		return -1;
	}
	if (fstat(fd, &st) < 0 || (uint64_t)st.st_size != size) {
		sc_strf(err, errlen, "%s: the recorded run's standard input "
			"has changed (%" PRIu64 " bytes, %" PRIu64 " recorded)",
			path, (uint64_t)st.st_size, size);
		close(fd);
		return -1;
	}
	return fd;
}
