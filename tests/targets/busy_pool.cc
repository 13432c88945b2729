// busy_pool.cc (correct): batches of std::thread workers, created and
// joined all the time, taking tasks from a queue under a std::mutex and a
// std::condition_variable.  `schedctl attach` must be able to catch it at
// any moment (mid thread creation included) and give it back intact:
// it prints "busy_pool: total N", the same N in every run.
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace {

long run_batch()
{
	std::mutex mu;
	std::condition_variable cv;
	std::deque<int> queue;
	bool done = false;
	long sum = 0;
	std::vector<std::thread> workers;

	for (int w = 0; w < 3; w++)
		workers.emplace_back([&] {
			for (;;) {
				std::unique_lock<std::mutex> lock(mu);
				cv.wait(lock, [&] { return done || !queue.empty(); });
				if (queue.empty())
					return;
				int v = queue.front();
				queue.pop_front();
				lock.unlock();
				long x = 0;
				for (int i = 0; i < 2000; i++)
					x += (v * i) % 7;
				lock.lock();
				sum += x;
			}
		});
	for (int i = 0; i < 50; i++) {
		{
			std::lock_guard<std::mutex> g(mu);
			queue.push_back(i);
		}
		cv.notify_one();
	}
	{
		std::lock_guard<std::mutex> g(mu);
		done = true;
	}
	cv.notify_all();
	for (auto &t : workers)
		t.join();
	return sum;
}

} // namespace

int main(int argc, char **argv)
{
	int batches = argc > 1 ? atoi(argv[1]) : 100;
	long total = 0;

	for (int b = 0; b < batches; b++)
		total += run_batch();
	printf("busy_pool: total %ld\n", total);
	return 0;
}
