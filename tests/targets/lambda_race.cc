// lambda_race.cc (buggy): two std::threads run a lambda that increments a
// counter of an object on main's stack, read and write apart (a lost
// update).  Built with -O1, where the compiler keeps the object's address
// in rbp, as a general register: the racing accesses are rbp-based
// operands, which memory instrumentation once took for the thread's own
// stack (tests/e2e/race_gran.sh).
#include <cassert>
#include <cstdio>
#include <thread>

struct Stats {
	int hits = 0;
	void hit()
	{
		int seen = hits;                        // READ
		std::this_thread::yield();
		hits = seen + 1;                        // WRITE
	}
};

int main()
{
	Stats s;
	std::thread a([&] { s.hit(); }), b([&] { s.hit(); });
	a.join();
	b.join();
	std::printf("hits %d\n", s.hits);
	assert(s.hits == 2);
	return 0;
}
