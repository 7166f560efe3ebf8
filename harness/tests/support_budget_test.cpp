// The per-test budget: allocation counting, the memory limit, the deadline, sizes on the command line,
// and the UTF-8 repair used by the XML reports.
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "support/Budget.hpp"
#include "support/Utf8.hpp"

using namespace ptxmm;

TEST_CASE("a budget counts the allocations of its thread while installed", "[support][budget]") {
  Budget b(0, 0);
  CHECK(currentBudget() == nullptr);
  {
    BudgetScope scope(b);
    CHECK(currentBudget() == &b);
    auto v = std::make_unique<std::vector<char>>(3u << 20);
    CHECK(b.allocated() >= (3 << 20));
    // An allocation of another thread is not this budget's.
    int64_t before = b.allocated();
    std::thread([] { std::vector<char> other(8u << 20); }).join();
    CHECK(b.allocated() - before < (1 << 20));
    v.reset();
    CHECK(b.allocated() < (1 << 20));
    CHECK(b.peak() >= (3 << 20));
  }
  CHECK(currentBudget() == nullptr);
  auto after = std::make_unique<std::vector<char>>(1u << 20);  // not counted once the scope is gone
  CHECK(b.allocated() < (1 << 20));
}

TEST_CASE("a budget installed on several threads counts all of their allocations", "[support][budget]") {
  // The enum engine searches a test's path choices on several threads under the test's one budget.
  Budget b(0, 0);
  std::vector<std::unique_ptr<std::vector<char>>> held(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < held.size(); ++t)
    threads.emplace_back([&b, &held, t] {
      BudgetScope scope(b);
      for (int i = 0; i < 1000; ++i) std::vector<char> churn(1000);  // allocated and freed on this thread
      held[t] = std::make_unique<std::vector<char>>(2u << 20);
    });
  for (auto& t : threads) t.join();
  CHECK(b.allocated() >= (8 << 20));
  CHECK(b.allocated() < (9 << 20));
  {
    BudgetScope scope(b);  // freed on this thread, under the same budget
    held.clear();
  }
  CHECK(b.allocated() < (1 << 20));
  CHECK(b.peak() >= (8 << 20));
}

TEST_CASE("what a thread allocates and frees under a budget counts out exactly", "[support][budget]") {
  // Plain `new` counts the size asked for and sized `delete` gives it back; arrays count the usable size
  // both ways. Small amounts are gathered per thread and reach the budget at 64 KiB or when the scope ends.
  Budget b(0, 0);
  {
    BudgetScope scope(b);
    std::vector<std::unique_ptr<std::string>> strings;
    std::vector<std::unique_ptr<int[]>> arrays;
    for (int i = 0; i < 2000; ++i) {
      strings.push_back(std::make_unique<std::string>(100 + i % 7, 'x'));
      arrays.push_back(std::make_unique<int[]>(static_cast<size_t>(37 + i % 5)));
    }
    CHECK(b.allocated() >= 2000 * (100 + 37 * 4) - (64 << 10));
    strings.clear();
    arrays.clear();
  }
  CHECK(b.allocated() == 0);
  CHECK(b.peak() >= 2000 * (100 + 37 * 4));
}

TEST_CASE("poll throws Memory over the limit, reserve refuses before allocating", "[support][budget]") {
  Budget b(0, 1u << 20);
  BudgetScope scope(b);
  CHECK_NOTHROW(pollBudget("test"));
  CHECK_THROWS_AS(reserveBudget(2u << 20, "test phase"), BudgetExceeded);
  try {
    reserveBudget(2u << 20, "test phase");
  } catch (const BudgetExceeded& e) {
    CHECK(e.kind() == BudgetExceeded::Memory);
    CHECK(std::string(e.what()).find("test phase") != std::string::npos);
  }
  {
    std::vector<char> big(2u << 20);
    CHECK_THROWS_AS(pollBudget("test"), BudgetExceeded);
  }
  CHECK_NOTHROW(pollBudget("test"));
}

TEST_CASE("a spent deadline is seen within a few polls and at once by reserve", "[support][budget]") {
  Budget b(1e-9, 0);
  BudgetScope scope(b);
  CHECK_THROWS_AS(reserveBudget(1, "x"), BudgetExceeded);
  int polls = 0;
  try {
    for (; polls < 1000; ++polls) pollBudget("the loop");
  } catch (const BudgetExceeded& e) {
    CHECK(e.kind() == BudgetExceeded::Time);
    CHECK(std::string(e.what()).find("during the the loop") != std::string::npos);
  }
  CHECK(polls < 16);
  Budget none(0, 0);
  BudgetScope inner(none);  // no limits: never throws
  for (int i = 0; i < 100; ++i) CHECK_NOTHROW(pollBudget("x"));
}

TEST_CASE("a limit watched from another thread fails the next poll with its reason", "[support][budget]") {
  Budget b(0, 0);
  BudgetScope scope(b);
  CHECK_NOTHROW(pollBudget("encoding"));
  std::thread([&b] {
    b.fail(BudgetExceeded::Memory, "Z3's memory reached 1 GiB");
    b.fail(BudgetExceeded::Time, "a later reason");  // the first one stands
  }).join();
  try {
    pollBudget("encoding");
    FAIL("no throw");
  } catch (const BudgetExceeded& e) {
    CHECK(e.kind() == BudgetExceeded::Memory);
    CHECK(std::string(e.what()) == "Z3's memory reached 1 GiB");
  }
  CHECK_THROWS_AS(reserveBudget(16, "encoding"), BudgetExceeded);
}

TEST_CASE("memory sizes as written on the command line", "[support][budget]") {
  CHECK(parseByteSize("0") == 0u);
  CHECK(parseByteSize("4096") == 4096u);
  CHECK(parseByteSize("512M") == 512ull << 20);
  CHECK(parseByteSize("512MiB") == 512ull << 20);
  CHECK(parseByteSize("4g") == 4ull << 30);
  CHECK(parseByteSize("1.5G") == 3ull << 29);
  CHECK(parseByteSize("2KB") == 2048u);
  CHECK(!parseByteSize(""));
  CHECK(!parseByteSize("-1G"));
  CHECK(!parseByteSize("G"));
  CHECK(!parseByteSize("4 GB"));
  CHECK(!parseByteSize("4X"));
  CHECK(defaultMemoryLimit(1) >= defaultMemoryLimit(64));
  CHECK(formatBytes(3ull << 30) == "3.0 GiB");
}

TEST_CASE("text is made valid UTF-8 byte by byte", "[support][utf8]") {
  CHECK(toValidUtf8("plain") == "plain");
  CHECK(toValidUtf8("caf\xc3\xa9") == "caf\xc3\xa9");
  CHECK(toValidUtf8("a\xff"
                    "b") ==
        "a\xEF\xBF\xBD"
        "b");
  CHECK(toValidUtf8("\xc3") == "\xEF\xBF\xBD");                                  // truncated
  CHECK(toValidUtf8("\xc0\xaf") == "\xEF\xBF\xBD\xEF\xBF\xBD");                  // overlong
  CHECK(toValidUtf8("\xed\xa0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
  CHECK(toValidUtf8("\xf0\x9f\x98\x80") == "\xf0\x9f\x98\x80");
}
