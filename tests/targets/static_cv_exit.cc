// static_cv_exit: a detached thread waits on a static condition variable
// for a message that never comes, and main returns.  The variable's
// destructor runs among exit's handlers, and glibc's pthread_cond_destroy
// waits for the variable's waiters: the process never ends (natively it
// hangs).  The report must say T0 waits in
// pthread_cond_destroy during exit, not "in _start".
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

static std::mutex m;
static std::condition_variable cv, started_cv;
static bool have, started;

int main()
{
	std::thread([] {
		std::unique_lock<std::mutex> lk(m);
		started = true;
		started_cv.notify_one();
		cv.wait(lk, [] { return have; });
	}).detach();
	// The thread holds m until it waits on cv: once main has m, it
	// waits there.
	{
		std::unique_lock<std::mutex> lk(m);
		started_cv.wait(lk, [] { return started; });
	}
	std::puts("main returns");
	return 0;
}
