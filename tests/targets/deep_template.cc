/*
 * deep_template (buggy): a worker reads, under a lock, a flag that main
 * sets only after starting it (an order violation), and asserts it 80
 * calls deep in a recursive function template whose instantiations have
 * names of 600 characters and more once demangled.  Its report's stack is cut at schedctl's frame
 * limit with a last line saying how many frames were left out, and the
 * long names are cut with an ellipsis, keeping " at file:line".
 */
#include <cassert>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

static std::mutex lock;
static int ready;

using long_type = std::map<std::string,
	std::vector<std::pair<std::string, std::map<int, std::string>>>>;

template <int N, typename T>
__attribute__((noinline)) int descend(const T *p, int seen)
{
	if constexpr (N == 0) {
		assert(seen);
		return p ? 1 : 0;
	} else {
		return descend<N - 1, T>(p, seen) + 1;
	}
}

int main()
{
	long_type m;
	std::thread worker([&m] {
		int seen;
		{
			std::lock_guard<std::mutex> g(lock);
			seen = ready;
		}
		descend<80, long_type>(&m, seen);
	});
	{
		std::lock_guard<std::mutex> g(lock);
		ready = 1;
	}
	worker.join();
	return 0;
}
