// heap_atomic_flag.cc (correct, apart from one deliberate race): a
// producer fills a heap object's payload and publishes it with a
// std::atomic<bool> member (store release); each consumer waits for the
// flag (load acquire) and then reads the payload.  The flag lives on the
// heap, where no debug information says it is atomic, and its load and
// store are plain movs on x86: only their source (std::atomic's code)
// tells them from data accesses, so the analyzer must report no race on
// the flag or the payload.  `unlocked` is incremented by every consumer
// with no lock: the one real data race, which the analyzer must still
// report (tests/e2e/rwlock_races.sh reads the marker).
#include <atomic>
#include <cstdio>
#include <thread>
#include <vector>

namespace {

struct Mailbox {
	std::atomic<bool> ready{false};
	long payload[4] = {0, 0, 0, 0};
};

volatile long unlocked;

void produce(Mailbox *box)
{
	for (int i = 0; i < 4; i++)
		box->payload[i] = 10 * (i + 1);
	box->ready.store(true, std::memory_order_release);
}

void consume(Mailbox *box, long *sum)
{
	while (!box->ready.load(std::memory_order_acquire))
		std::this_thread::yield();
	long s = 0;
	for (int i = 0; i < 4; i++)
		s += box->payload[i];
	*sum = s;
	unlocked = unlocked + 1;                        // UNLOCKED
}

}  // namespace

int main()
{
	Mailbox *box = new Mailbox;
	long sums[2] = {0, 0};
	std::vector<std::thread> threads;
	threads.emplace_back(consume, box, &sums[0]);
	threads.emplace_back(consume, box, &sums[1]);
	threads.emplace_back(produce, box);
	for (auto &t : threads)
		t.join();
	std::printf("heap_atomic_flag: %ld %ld\n", sums[0], sums[1]);
	int ok = sums[0] == 100 && sums[1] == 100;
	delete box;
	return ok ? 0 : 1;
}
