// cxx_pool.cc (correct): a small C++17 thread pool, the shape of the
// "real programs" written in C++.  Two std::thread workers take tasks
// from a queue guarded by a std::mutex and a std::condition_variable;
// each task reads a table under a std::shared_mutex (std::shared_lock),
// sometimes extends it under a std::unique_lock, counts itself in a
// std::atomic and hands its result back through a std::promise.  main
// also runs two std::async jobs.  Every schedule prints the same lines:
// the sum of the results, the number of tasks run and the table's size.
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <vector>

namespace {

class Pool {
public:
	explicit Pool(int n)
	{
		for (int i = 0; i < n; i++)
			workers_.emplace_back([this] { work(); });
	}

	~Pool()
	{
		{
			std::lock_guard<std::mutex> g(mu_);
			stop_ = true;
		}
		cv_.notify_all();
		for (auto &t : workers_)
			t.join();
	}

	std::future<long> submit(std::function<long()> f)
	{
		std::promise<long> p;
		std::future<long> r = p.get_future();
		{
			std::lock_guard<std::mutex> g(mu_);
			queue_.emplace_back(std::move(f), std::move(p));
		}
		cv_.notify_one();
		return r;
	}

private:
	void work()
	{
		for (;;) {
			std::pair<std::function<long()>, std::promise<long>> task;
			{
				std::unique_lock<std::mutex> g(mu_);
				cv_.wait(g, [this] { return stop_ || !queue_.empty(); });
				if (queue_.empty())
					return;
				task = std::move(queue_.front());
				queue_.pop_front();
			}
			task.second.set_value(task.first());
		}
	}

	std::mutex mu_;
	std::condition_variable cv_;
	std::deque<std::pair<std::function<long()>, std::promise<long>>> queue_;
	bool stop_ = false;
	std::vector<std::thread> workers_;
};

constexpr int kTasks = 24;

std::shared_mutex table_mu;
std::map<long, long> table;   // squares, filled on demand
std::atomic<int> tasks_run{0};

long square(long x)
{
	{
		std::shared_lock<std::shared_mutex> r(table_mu);
		auto it = table.find(x);
		if (it != table.end())
			return it->second;
	}
	std::unique_lock<std::shared_mutex> w(table_mu);
	return table.emplace(x, x * x).first->second;
}

long task(long i)
{
	tasks_run.fetch_add(1, std::memory_order_relaxed);
	return square(i % 8) + i;
}

} // namespace

int main()
{
	long sum = 0;
	{
		Pool pool(2);
		std::vector<std::future<long>> results;

		for (long i = 0; i < kTasks; i++)
			results.push_back(pool.submit([i] { return task(i); }));
		auto a = std::async(std::launch::async, [] { return task(100); });
		auto b = std::async(std::launch::async, [] { return task(101); });
		for (auto &f : results)
			sum += f.get();
		sum += a.get() + b.get();
	}
	std::shared_lock<std::shared_mutex> r(table_mu);
	std::printf("cxx_pool: sum %ld\n", sum);
	std::printf("cxx_pool: %d tasks, %zu squares\n", tasks_run.load(), table.size());
	return tasks_run.load() == kTasks + 2 ? 0 : 1;
}
