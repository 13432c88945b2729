/* file_tail.c - the last lines of a run's output file, for reports (the
 * launch's bug objects, and `results`, which reads the session index
 * without a daemon: hence in libstore). */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_tail.h"

void sc_file_tail(const char *path, unsigned maxlines, char *buf, size_t len)
{
	char chunk[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	off_t start;
	ssize_t n;
	char *p, *begin;
	unsigned lines = 0;

	buf[0] = '\0';
	if (fd < 0)
		return;
	if (fstat(fd, &st) < 0 || st.st_size == 0) {
		close(fd);
		return;
	}
	start = st.st_size > (off_t)sizeof(chunk) - 1
		? st.st_size - (off_t)sizeof(chunk) + 1 : 0;
	n = pread(fd, chunk, sizeof(chunk) - 1, start);
	close(fd);
	if (n <= 0)
		return;
	chunk[n] = '\0';
	/* Drop trailing newlines, then walk back over maxlines lines. */
	while (n > 0 && chunk[n - 1] == '\n')
		chunk[--n] = '\0';
	begin = chunk;
	for (p = chunk + n; p > chunk; p--)
		if (p[-1] == '\n' && ++lines == maxlines) {
			begin = p;
			break;
		}
	/* A partial first line (we started mid-file) is not a line. */
	if (begin == chunk && start > 0) {
		char *nl = strchr(chunk, '\n');

		begin = nl ? nl + 1 : chunk + n;
	}
	/* Keep the end when buf is short: the last line matters most. */
	if (strlen(begin) >= len) {
		begin += strlen(begin) - (len - 1);
		p = strchr(begin, '\n');
		if (p)
			begin = p + 1;
	}
	snprintf(buf, len, "%s", begin);
}

char *sc_file_head(const char *path, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf = NULL;
	ssize_t n;

	if (fd < 0)
		return NULL;
	buf = malloc(max + 1);
	n = buf ? pread(fd, buf, max, 0) : -1;
	close(fd);
	if (n <= 0) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	return buf;
}

bool sc_is_file_line(const char *text, size_t end)
{
	size_t i = end;

	while (i > 0 && text[i - 1] >= '0' && text[i - 1] <= '9')
		i--;
	return i < end && i >= 2 && text[i - 1] == ':';
}

size_t sc_line_len(const char *p)
{
	const char *nl = strchr(p, '\n');
	return nl ? (size_t)(nl - p) : strlen(p);
}

const char *sc_next_line(const char *p)
{
	const char *nl = strchr(p, '\n');
	return nl ? nl + 1 : NULL;
}

void sc_describe_from_head(const char *path, sc_report_parser parse,
			   char *msg, size_t msglen, char *loc, size_t loclen)
{
	char *buf = sc_file_head(path, SC_REPORT_HEAD_BYTES);
	char m[2048], l[512];

	if (buf && parse(buf, m, sizeof(m), l, sizeof(l))) {
		snprintf(msg, msglen, "%s", m);
		if (l[0])
			snprintf(loc, loclen, "%s", l);
	}
	free(buf);
}
