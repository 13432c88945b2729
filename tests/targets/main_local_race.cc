// main_local_race.cc (buggy): main and a std::thread both update a local
// of main's, captured by reference: a lost update.  Main reaches the
// local through its own stack pointer (an rsp-based operand, no memory
// event by itself), the worker through the lambda's pointer to it; the
// slot is watched in main once the worker was seen touching it
// (tracer/stack_watch.c, tests/e2e/race_gran.sh).
#include <cstdio>
#include <cstdlib>
#include <thread>

// Out of line so that each update is a read, a call and a write, at -O1
// as at -O0.
__attribute__((noinline)) static int add(int balance, int amount)
{
	return balance + amount;
}

int main()
{
	int balance = 1000;
	std::thread saver([&] {
		balance = add(balance, 10);     // WORKER
	});
	balance = add(balance, 500);            // MAIN
	saver.join();
	std::printf("balance %d\n", balance);
	if (balance != 1510) {
		std::fprintf(stderr, "lost update: balance %d, want 1510\n",
			     balance);
		std::abort();
	}
	return 0;
}
