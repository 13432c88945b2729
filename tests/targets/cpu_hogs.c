/*
 * cpu_hogs (correct): while it computes (about 0.1 s of CPU), three child
 * processes of its own spin on the CPU it runs on (they inherit its
 * affinity; schedctl pins a run to one CPU), so it gets a quarter of that
 * CPU, as a program does on a busy CI machine: its run takes several times
 * its CPU time.  That is load, not a hang: with --timeout below the run's
 * wall time but above its CPU time the run must pass.  The children are
 * killed before it exits.
 */
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#define HOGS 3

int main(void)
{
	pid_t hog[HOGS];
	volatile unsigned long sum = 0;

	for (int i = 0; i < HOGS; i++) {
		hog[i] = fork();
		if (hog[i] == 0)
			for (;;)
				;
	}
	for (unsigned long i = 0; i < 60000000ul; i++)
		sum += i ^ (sum >> 3);
	for (int i = 0; i < HOGS; i++)
		if (hog[i] > 0) {
			kill(hog[i], SIGKILL);
			waitpid(hog[i], NULL, 0);
		}
	printf("cpu_hogs: %lu\n", (unsigned long)(sum & 0xff));
	return 0;
}
