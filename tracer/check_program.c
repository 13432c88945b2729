/* check_program.c - is PROGRAM something we can run? */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracer.h"

/* Is path an executable x86-64 ELF file?  shown names it in err. */
static int check_elf(const char *path, char *err, size_t errlen,
		     const char *shown)
{
	Elf64_Ehdr eh;
	const unsigned char *ident = eh.e_ident;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", shown, strerror(errno));
		return -1;
	}
	memset(&eh, 0, sizeof(eh));
	ssize_t n = read(fd, &eh, sizeof(eh));
	close(fd);
	if (n < (ssize_t)EI_NIDENT || memcmp(ident, ELFMAG, SELFMAG) != 0) {
		snprintf(err, errlen, "%s: not an ELF executable nor a #! "
			 "script", shown);
		return -1;
	}
	if (ident[EI_CLASS] != ELFCLASS64) {
		snprintf(err, errlen, "%s: not a 64-bit ELF executable", shown);
		return -1;
	}
	/* Another machine's program failed only at run 1, with exec's
	 * "Exec format error" (QA). */
	if (n < (ssize_t)sizeof(eh) || eh.e_machine != EM_X86_64) {
		snprintf(err, errlen, "%s: not an x86-64 program (ELF machine "
			 "%u)", shown, (unsigned)eh.e_machine);
		return -1;
	}
	return 0;
}

static int check_file(const char *path, const char *path_env,
		      struct sc_program_info *info, char *err, size_t errlen,
		      const char *shown)
{
	struct stat st;
	char why[1024];

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
	int rc = sc_script_check(path, shown, path_env, info, err, errlen);
	if (rc < 0)
		return -1;
	if (rc == 0)
		return check_elf(path, err, errlen, shown);
	info->script = true;
	if (check_elf(info->elf, why, sizeof(why), info->elf) < 0) {
		snprintf(err, errlen, "%s: its interpreter %s", shown, why);
		return -1;
	}
	return 0;
}

/* The first "DIR/program" of path_env's directories (empty entries
 * skipped; the default PATH when none is given) that exists, in out. */
static bool first_in_path(const char *program, const char *path_env,
			  char *out, size_t len)
{
	const char *dirs = path_env && *path_env ? path_env
			   : "/usr/local/bin:/usr/bin:/bin";

	while (*dirs) {
		size_t dl = strcspn(dirs, ":");

		if (dl) {
			snprintf(out, len, "%.*s/%s", (int)dl, dirs, program);
			if (access(out, F_OK) == 0)
				return true;
		}
		dirs += dl + (dirs[dl] == ':');
	}
	return false;
}

/* Is buf text a shell would read: UTF-8 (ASCII included) without
 * control characters other than whitespace and ESC?  Stricter than the
 * shells (bash refuses only a NUL in the first line; execvp runs
 * anything with /bin/sh), so that binary data is refused, not fed to
 * /bin/sh: 512 random bytes have no NUL one time in 7, but pass this one
 * time in far more than a billion.  A sequence cut by the end of buf is
 * accepted. */
static bool looks_like_text(const unsigned char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = buf[i];
		size_t more;

		if (c < 0x80) {
			if ((c < 0x20 && !(c >= '\t' && c <= '\r') && c != 0x1b) ||
			    c == 0x7f)
				return false;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			more = 1;
		else if (c >= 0xe0 && c <= 0xef)
			more = 2;
		else if (c >= 0xf0 && c <= 0xf4)
			more = 3;
		else
			return false;
		for (size_t k = 1; k <= more; k++) {
			if (i + k >= n)
				return true;    /* cut by the block's end */
			if ((buf[i + k] & 0xc0) != 0x80)
				return false;
		}
		i += more;
	}
	return true;
}

int sc_shell_script_without_shebang(const char *program,
				    const char *path_env, char *path,
				    size_t len)
{
	char head[512];
	struct stat st;
	int fd;
	ssize_t n;

	if (!program || !*program)
		return 0;
	if (strchr(program, '/'))
		snprintf(path, len, "%s", program);
	else if (!first_in_path(program, path_env, path, len))
		return 0;
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) ||
	    access(path, X_OK) < 0)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, head, sizeof(head));
	close(fd);
	if (n < 0)
		return 0;
	/* Neither ELF nor #! (those the kernel runs itself), and text. */
	if ((n >= SELFMAG && memcmp(head, ELFMAG, SELFMAG) == 0) ||
	    (n >= 2 && head[0] == '#' && head[1] == '!'))
		return 0;
	return looks_like_text((const unsigned char *)head, (size_t)n);
}

const char *sc_env_path(char *const *envp)
{
	for (size_t i = 0; envp && envp[i]; i++)
		if (strncmp(envp[i], "PATH=", 5) == 0)
			return envp[i] + 5;
	return NULL;
}

int sc_check_program(const char *program, char *resolved, size_t len,
		     char *err, size_t errlen)
{
	return sc_check_program_info(program, getenv("PATH"), resolved, len,
				     NULL, err, errlen);
}

int sc_check_program_info(const char *program, const char *path_env,
			  char *resolved, size_t len,
			  struct sc_program_info *info, char *err,
			  size_t errlen)
{
	struct sc_program_info mine;

	if (!info)
		info = &mine;
	memset(info, 0, sizeof(*info));
	if (errlen)
		err[0] = 0;
	if (!program || !*program) {
		snprintf(err, errlen, "no program given");
		return -1;
	}
	if (strchr(program, '/')) {
		if (check_file(program, path_env, info, err, errlen,
			       program) < 0)
			return -1;
		snprintf(resolved, len, "%s", program);
		return 0;
	}
	/* Like execvp: search PATH. */
	char candidate[4096];
	if (!first_in_path(program, path_env, candidate, sizeof(candidate))) {
		snprintf(err, errlen, "%s: command not found", program);
		return -1;
	}
	if (check_file(candidate, path_env, info, err, errlen, program) < 0)
		return -1;
	snprintf(resolved, len, "%s", candidate);
	return 0;
}
