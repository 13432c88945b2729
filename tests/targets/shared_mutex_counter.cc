// shared_mutex_counter.cc (correct, apart from one deliberate race): the
// C++17 counterpart of rwlock_counter.c.  Writers increment `locked`
// under std::unique_lock<std::shared_mutex>, readers read it under
// std::shared_lock; the per-thread totals are summed under a std::mutex.
// Every access to `locked` and `seen_total` is ordered by a lock, so the
// analyzer must report no race on them.  `unlocked` is incremented by
// every thread with no lock: the one real data race, which the analyzer
// must still report (tests/e2e/rwlock_races.sh reads the markers).  The
// final check is on `locked` only, so every run passes.
#include <cstdio>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <vector>

namespace {

constexpr int kThreads = 2;
constexpr int kRounds = 2;

std::shared_mutex rw;
std::mutex total_mu;
long locked;
volatile long unlocked;
long seen_total;

void worker(bool try_lock)
{
	long seen = 0;

	for (int i = 0; i < kRounds; i++) {
		{
			std::unique_lock<std::shared_mutex> w(rw, std::defer_lock);
			if (try_lock) {
				while (!w.try_lock())
					;
			} else {
				w.lock();
			}
			locked++;                       // LOCKED-WRITE
		}
		{
			std::shared_lock<std::shared_mutex> r(rw, std::defer_lock);
			if (try_lock) {
				while (!r.try_lock())
					;
			} else {
				r.lock();
			}
			seen += locked;                 // LOCKED-READ
		}
	}
	unlocked = unlocked + 1;                        // UNLOCKED
	std::lock_guard<std::mutex> g(total_mu);
	seen_total += seen;                             // LOCKED-TOTAL
}

} // namespace

int main()
{
	std::vector<std::thread> threads;

	for (int i = 0; i < kThreads; i++)
		threads.emplace_back(worker, (i & 1) != 0);
	for (auto &t : threads)
		t.join();
	std::printf("shared_mutex_counter: %ld\n", locked);
	return locked == kThreads * kRounds ? 0 : 1;
}
