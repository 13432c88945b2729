/* evex_scan.c (correct, needs AVX-512VL/BW): two threads each compare
 * their half of a shared buffer with zero in EVEX-only registers, as
 * glibc's __strcpy_evex does.  Capstone 4 does not decode the vpcmpeqb
 * into a mask register; memory instrumentation once resumed its sweep a
 * byte later, took the middle of that instruction for a memory access
 * and put an int3 there: every run at mem granularity died of SIGILL
 * (QA; tests/e2e/mem_races.sh). */
#include <pthread.h>
#include <stdio.h>

static char buf[64] __attribute__((aligned(64))) =
	"abcdefghijklmnopqrstuvwxyz012345abcdefghijklmnopqrstuvwxyz01234";
static unsigned zero_mask[2];

/* Only this function is built for AVX-512: the target must start on any
 * machine (the test runs it only where the CPU has AVX-512). */
__attribute__((target("avx512f,avx512vl,avx512bw")))
static void *scan(void *arg)
{
	long half = (long)arg;
	unsigned mask;

	__asm__ volatile("vmovdqu64 (%1), %%ymm19\n\t"
			 "vpxorq %%ymm16, %%ymm16, %%ymm16\n\t"
			 "vpcmpeqb %%ymm19, %%ymm16, %%k0\n\t"
			 "kmovd %%k0, %0\n\t"
			 : "=r"(mask) : "r"(buf + 32 * half)
			 : "xmm16", "xmm19", "memory");
	zero_mask[half] = mask;
	return NULL;
}

int main(void)
{
	pthread_t t[2];

	for (long k = 0; k < 2; k++)
		pthread_create(&t[k], NULL, scan, (void *)k);
	for (int k = 0; k < 2; k++)
		pthread_join(t[k], NULL);
	/* Only the terminating NUL, the last byte of the second half. */
	if (zero_mask[0] != 0 || zero_mask[1] != 0x80000000u) {
		fprintf(stderr, "zero masks %x %x\n", zero_mask[0],
			zero_mask[1]);
		return 1;
	}
	return 0;
}
