/*
 * long_compute (correct): one thread, one long computation (about 50-100
 * ms of CPU on the project's machines) that makes no system call, then
 * its result on stdout and exit 0.  Under the supervisor the only thread
 * runs for many time slices with nothing else to run: a slice interrupt
 * there is timing, not a scheduling decision, so the run's events and
 * its replay must not depend on how busy the machine is.
 */
#include <stdint.h>
#include <stdio.h>

#define WORDS 4096
#define ROUNDS 12000

static uint32_t compute(uint32_t seed, int rounds)
{
	uint32_t a[WORDS];	/* on the stack: no allocation, no syscall */
	uint32_t x = seed, sum = 0;
	int r, i;

	for (i = 0; i < WORDS; i++) {
		x = x * 1664525u + 1013904223u;
		a[i] = x;
	}
	for (r = 0; r < rounds; r++)
		for (i = 0; i < WORDS; i++) {
			a[i] ^= a[(i * 7 + r) % WORDS] * 2654435761u + (uint32_t)r;
			sum += a[i] >> 3;
		}
	return sum;
}

int main(void)
{
	printf("long_compute: %08x\n", (unsigned)compute(1, ROUNDS));
	return 0;
}
