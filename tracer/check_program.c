/* check_program.c - is PROGRAM something we can run? */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracer.h"

static int check_file(const char *path, char *err, size_t errlen,
		      const char *shown)
{
	struct stat st;
	unsigned char ident[EI_NIDENT];

	if (stat(path, &st) < 0) {
		snprintf(err, errlen, "%s: %s", shown, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: is a directory", shown);
		return -1;
	}
	if (access(path, X_OK) < 0) {
		snprintf(err, errlen, "%s: not executable (%s)", shown,
			 strerror(errno));
		return -1;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", shown, strerror(errno));
		return -1;
	}
	ssize_t n = read(fd, ident, sizeof(ident));
	close(fd);
	if (n != (ssize_t)sizeof(ident) || memcmp(ident, ELFMAG, SELFMAG) != 0) {
		snprintf(err, errlen, "%s: not an ELF executable", shown);
		return -1;
	}
	if (ident[EI_CLASS] != ELFCLASS64) {
		snprintf(err, errlen, "%s: not a 64-bit ELF executable", shown);
		return -1;
	}
	return 0;
}

int sc_check_program(const char *program, char *resolved, size_t len,
		     char *err, size_t errlen)
{
	if (errlen)
		err[0] = 0;
	if (!program || !*program) {
		snprintf(err, errlen, "no program given");
		return -1;
	}
	if (strchr(program, '/')) {
		if (check_file(program, err, errlen, program) < 0)
			return -1;
		snprintf(resolved, len, "%s", program);
		return 0;
	}
	/* Like execvp: search PATH. */
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	char *copy = strdup(path);
	if (!copy) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	char candidate[4096];
	int rc = -1;
	char *save = NULL;
	for (char *dir = strtok_r(copy, ":", &save); dir;
	     dir = strtok_r(NULL, ":", &save)) {
		snprintf(candidate, sizeof(candidate), "%s/%s",
			 *dir ? dir : ".", program);
		if (access(candidate, F_OK) < 0)
			continue;
		rc = check_file(candidate, err, errlen, program);
		if (rc == 0)
			snprintf(resolved, len, "%s", candidate);
		break;
	}
	free(copy);
	if (rc < 0 && !*err)
		snprintf(err, errlen, "%s: command not found", program);
	return rc;
}
