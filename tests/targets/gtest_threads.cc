// gtest_threads.cc (correct): a GoogleTest binary whose tests use
// threads, built by tests/e2e/real_suite.sh against Debian's libgtest-dev
// (g++ -std=c++17 gtest_threads.cc -lgtest -lgtest_main -pthread).
// Under schedctl every schedule must pass every test, with the same
// output as a native run (--gtest_print_time=0: no timings).
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

TEST(Threads, MutexCounter)
{
	std::mutex mu;
	long counter = 0;
	std::vector<std::thread> threads;

	for (int t = 0; t < 3; t++)
		threads.emplace_back([&] {
			for (int i = 0; i < 50; i++) {
				std::lock_guard<std::mutex> g(mu);
				counter++;
			}
		});
	for (auto &t : threads)
		t.join();
	EXPECT_EQ(counter, 150);
}

TEST(Threads, ProducerConsumer)
{
	std::mutex mu;
	std::condition_variable cv;
	std::queue<int> q;
	bool done = false;

	auto consumer = std::async(std::launch::async, [&] {
		long sum = 0;
		std::unique_lock<std::mutex> g(mu);
		for (;;) {
			cv.wait(g, [&] { return done || !q.empty(); });
			if (q.empty())
				return sum;
			sum += q.front();
			q.pop();
		}
	});
	for (int i = 1; i <= 20; i++) {
		{
			std::lock_guard<std::mutex> g(mu);
			q.push(i);
		}
		cv.notify_one();
	}
	{
		std::lock_guard<std::mutex> g(mu);
		done = true;
	}
	cv.notify_one();
	EXPECT_EQ(consumer.get(), 210);
}

TEST(Threads, AtomicFlags)
{
	std::atomic<int> hits{0};
	std::thread a([&] { hits.fetch_add(1); });
	std::thread b([&] { hits.fetch_add(2); });
	a.join();
	b.join();
	EXPECT_EQ(hits.load(), 3);
}
