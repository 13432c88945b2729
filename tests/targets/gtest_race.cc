// gtest_race.cc (buggy): a GoogleTest test with a check-then-act race,
// built by tests/e2e/real_suite.sh against Debian's libgtest-dev.  Two
// threads each check the balance under the lock, release it, then
// withdraw under it again: in some schedules both pass the check and the
// balance goes negative, and EXPECT_GE reports it on stdout.
#include <gtest/gtest.h>

#include <mutex>
#include <thread>

TEST(Bank, Withdraw)
{
	std::mutex mu;
	int balance = 100;
	auto withdraw = [&](int amount) {
		bool enough;
		{
			std::lock_guard<std::mutex> g(mu);
			enough = balance >= amount;
		}
		if (enough) {
			std::lock_guard<std::mutex> g(mu);
			balance -= amount;
		}
	};
	std::thread a(withdraw, 80), b(withdraw, 80);
	a.join();
	b.join();
	EXPECT_GE(balance, 0) << "overdrawn";
}
