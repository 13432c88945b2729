// cxx_atomic_lost_update: a lost update in C++ with std::atomic, in a
// lambda defined inside a function (as tests are written): each worker
// loads the counter (line 16) and stores the value plus one (line 17),
// twice.  Each access is atomic, the update is not: when both load before
// either stores, the count ends short and main exits 1.  std::atomic's
// load and store are inlined from <bits/atomic_base.h> into the lambda,
// whose code GCC describes inside racy_count()'s DWARF entry: the racing
// pair is the program's lines 16 and 17, not the header's.
#include <atomic>
#include <cstdio>
#include <thread>

static int racy_count(int n)
{
	std::atomic<int> count{0};
	auto work = [&] { for (int i = 0; i < n; i++) { int v = count.load();
		count.store(v + 1); } };
	std::thread a(work), b(work);
	a.join();
	b.join();
	return count.load();
}

int main()
{
	int got = racy_count(2);
	std::printf("count %d of 4\n", got);
	return got == 4 ? 0 : 1;
}
