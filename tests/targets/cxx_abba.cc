// cxx_abba.cc: the C++ ABBA deadlock, with file-static names so that
// their mangled forms (_ZL2mu, _ZL6workerv) would show if a report forgot
// to demangle them (tests/e2e/output_hygiene.sh).  worker() takes mu then
// other_mu, other() takes them the other way round: under some schedules
// each holds one and waits for the other.  Both also bump `hits` with no
// lock, the data race that `schedctl analyze` reports at --granularity mem.
//
// Natively the first thread is done before the second starts and the
// program prints "cxx_abba: 2".
#include <cstdio>
#include <mutex>
#include <thread>

static std::mutex mu;
static std::mutex other_mu;
static volatile long hits;

static void worker()
{
	hits = hits + 1;                        // RACE
	std::lock_guard<std::mutex> a(mu);
	std::lock_guard<std::mutex> b(other_mu);
}

static void other()
{
	hits = hits + 1;
	std::lock_guard<std::mutex> b(other_mu);
	std::lock_guard<std::mutex> a(mu);
}

int main()
{
	std::thread t1(worker);
	std::thread t2(other);
	t1.join();
	t2.join();
	std::printf("cxx_abba: %ld\n", hits);
	return 0;
}
