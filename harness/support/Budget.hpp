// The resource budget of one test: a deadline and a memory limit that every phase of a check honours
// (parsing, lowering and path exploration, skeletons, both engines, the cat interpreter's `with … from`).
//
// A Budget is installed for the calling thread by a BudgetScope, on several threads at once where a check
// runs on several (the enum engine's path choices, docs/design.md "Path choices in batches": its count is
// atomic). The loops that can grow call pollBudget() (cheap: a counter, and the clock every 16 calls of a
// thread). While a scope is active, every C++ allocation of its thread is counted (global operator
// new/delete, Budget.cpp: gathered per thread, up to 64 KiB at a time), so the limit bounds what the
// enumerations really hold, not an estimate. A budget that is spent makes pollBudget() throw BudgetExceeded,
// which checkTest turns into Status::Timeout / Status::MemoryLimit. Z3's own memory is outside this count;
// the smt engine is bounded by the deadline (solver timeouts) and its state cap.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ptxmm {

/// Thrown by pollBudget() when the installed budget is spent.
class BudgetExceeded : public std::runtime_error {
 public:
  enum Kind { Time, Memory };
  BudgetExceeded(Kind kind, const std::string& what) : std::runtime_error(what), kind_(kind) {}
  [[nodiscard]] Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

/// Time and memory limits of one test (0 = none) and what it has used.
class Budget {
 public:
  Budget(double timeoutSeconds, uint64_t memoryBytes);

  /// Throws BudgetExceeded if the deadline has passed or the memory counted exceeds the limit; `phase`
  /// names what was running ("lowering", "enum engine", ...) for the message.
  void poll(std::string_view phase);
  /// Throws BudgetExceeded if the deadline has passed (checked at once, not every few polls) or if
  /// allocating `bytes` more would exceed the memory limit: called before a large allocation whose size
  /// is known in advance, so that it is refused, not made.
  void reserve(uint64_t bytes, std::string_view phase);
  /// Makes the next poll() or reserve() throw BudgetExceeded(kind, why): for a limit watched from another
  /// thread (the smt engine's watch over Z3's memory). Safe to call from any thread, concurrently too; the
  /// first call's reason stands.
  void fail(BudgetExceeded::Kind kind, const std::string& why);
  /// Seconds since the budget was created.
  [[nodiscard]] double elapsed() const;
  /// Seconds left before the deadline (+inf without one; may be negative).
  [[nodiscard]] double remaining() const;
  [[nodiscard]] double timeoutSeconds() const { return timeout_; }
  [[nodiscard]] uint64_t memoryLimit() const { return memLimit_; }
  /// Bytes allocated and not yet freed by the threads while this budget was installed, and their peak:
  /// exact once every scope has ended; while one is active, up to 64 KiB per thread may not be counted yet.
  [[nodiscard]] int64_t allocated() const { return live_.load(std::memory_order_relaxed); }
  [[nodiscard]] int64_t peak() const { return peak_.load(std::memory_order_relaxed); }

  /// Adds `bytes` (negative: freed) to the count. Called by the global allocation functions, which gather
  /// up to 64 KiB per thread before they call it (Budget.cpp), and by BudgetScope when it ends. Atomic: a
  /// budget may be installed on several threads at once, those of the enum engine's parallel run.
  void addLive(int64_t bytes) {
    const int64_t now = live_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
    int64_t p = peak_.load(std::memory_order_relaxed);
    while (now > p && !peak_.compare_exchange_weak(p, now, std::memory_order_relaxed)) {
    }
  }

 private:
  void checkTime(std::string_view phase) const;

  void checkFailed() const;

  std::chrono::steady_clock::time_point t0_;
  double timeout_;
  uint64_t memLimit_;
  std::atomic<int64_t> live_{0};
  std::atomic<int64_t> peak_{0};
  std::atomic<int> failed_{0};  // fail(): 1 while its reason is written, 2 once failKind_ and failWhy_ are set
  BudgetExceeded::Kind failKind_ = BudgetExceeded::Time;
  std::string failWhy_;
};

/// Installs `budget` as the calling thread's budget for its lifetime (restores the previous one).
class BudgetScope {
 public:
  explicit BudgetScope(Budget& budget);
  ~BudgetScope();
  BudgetScope(const BudgetScope&) = delete;
  BudgetScope& operator=(const BudgetScope&) = delete;

 private:
  Budget* previous_;
};

/// The calling thread's budget, or nullptr.
[[nodiscard]] Budget* currentBudget();

/// Polls the calling thread's budget, if one is installed (see Budget::poll).
inline void pollBudget(std::string_view phase) {
  if (Budget* b = currentBudget()) b->poll(phase);
}

/// Reserves `bytes` on the calling thread's budget, if one is installed (see Budget::reserve).
inline void reserveBudget(uint64_t bytes, std::string_view phase) {
  if (Budget* b = currentBudget()) b->reserve(bytes, phase);
}

/// A quarter of this machine's physical memory, shared out between `workers` checks that run at once
/// (never more than three quarters of the machine in all): the default per-test memory limit.
[[nodiscard]] uint64_t defaultMemoryLimit(int workers);

/// A memory size as written on the command line: bytes, or a number with a unit (K, M, G, T: powers of
/// 1024, also written KiB/KB, MiB/MB, ...; fractions allowed: "1.5G"); nullopt if it is not one.
[[nodiscard]] std::optional<uint64_t> parseByteSize(const std::string& text);

/// "512 MiB"-style text for messages.
[[nodiscard]] std::string formatBytes(uint64_t bytes);

}  // namespace ptxmm
