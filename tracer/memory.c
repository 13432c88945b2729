/* memory.c - read and write a tracee's memory through /proc/PID/mem.
 *
 * /proc/PID/mem writes go through FOLL_FORCE, so they work on read-only
 * text pages (breakpoints) where process_vm_writev would fail.  The fd is
 * bound to the address space it was opened on: reopen it after exec.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "internal.h"

int sc_mem_open(struct sc_process *p)
{
	char path[64];

	sc_mem_close(p);
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)p->pid);
	p->mem_fd = open(path, O_RDWR | O_CLOEXEC);
	return p->mem_fd < 0 ? -1 : 0;
}

void sc_mem_close(struct sc_process *p)
{
	if (p->mem_fd >= 0)
		close(p->mem_fd);
	p->mem_fd = -1;
}

int sc_mem_read(struct sc_process *p, uint64_t addr, void *buf, size_t len)
{
	if (p->mem_fd < 0 && sc_mem_open(p) < 0)
		return -1;
	ssize_t n = pread(p->mem_fd, buf, len, (off_t)addr);
	if (n != (ssize_t)len) {
		if (n >= 0)
			errno = EFAULT;
		return -1;
	}
	return 0;
}

int sc_mem_write(struct sc_process *p, uint64_t addr, const void *buf,
		 size_t len)
{
	if (p->mem_fd < 0 && sc_mem_open(p) < 0)
		return -1;
	ssize_t n = pwrite(p->mem_fd, buf, len, (off_t)addr);
	if (n != (ssize_t)len) {
		if (n >= 0)
			errno = EFAULT;
		return -1;
	}
	return 0;
}
