// cxx_vector_race.cc - two threads push_back onto one std::vector without
// a lock.  The racing loads and stores are libstdc++'s, inlined from
// stl_vector.h and vector.tcc into producer() at -O2: the analyzer must
// name the program's line (marked PUSH below), not the header's
// (tests/e2e/analyze.sh).  Built at -O2 on purpose.
#include <cstdio>
#include <thread>
#include <vector>

static std::vector<int> items;

static void producer(int base)
{
	for (int i = 0; i < 3; i++)
		items.push_back(base + i);      /* PUSH */
}

int main()
{
	items.reserve(64);      // no reallocation: the race is on the end
	std::thread a(producer, 0), b(producer, 100);
	a.join();
	b.join();
	std::printf("cxx_vector_race: %zu items\n", items.size());
	return 0;
}
