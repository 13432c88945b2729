// cxx_latch_deadlock: C++20 std::barrier and std::latch, whose waits are
// futex calls inlined into the program (no pthread call).  Worker 0
// leaves without arriving at the barrier, so workers 1 and 2 wait there
// for ever, the latch never reaches zero and main waits at done.wait()
// (line 32) for ever: a deadlock in every run.  The report's location
// is main's wait, not the last library call a thread made
// (std::thread's pthread_create).
#include <barrier>
#include <cstdio>
#include <latch>
#include <thread>
#include <vector>

static int part[3];

int main()
{
	std::latch done(3);
	std::barrier sync(3);
	std::vector<std::thread> workers;

	for (int i = 0; i < 3; i++)
		workers.emplace_back([&, i] {
			part[i] = i + 1;
			if (i == 0) {           // leaves without arriving
				done.count_down();
				return;
			}
			sync.arrive_and_wait();
			done.count_down();
		});
	done.wait();
	for (auto &w : workers)
		w.join();
	std::printf("%d\n", part[0] + part[1] + part[2]);
	return 0;
}
