#include "support/Budget.hpp"

#include <fmt/format.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <limits>
#include <new>

namespace ptxmm {

namespace {
// Constant-initialised, so that allocations made before main (static constructors) see nullptr.
thread_local Budget* tlsBudget = nullptr;
// Bytes this thread allocated (freed: negative) under tlsBudget and not yet added to it: the allocation
// functions add to the budget's atomic count once this passes kGatherBytes either way, so that a small
// allocation costs no atomic operation.
thread_local int64_t tlsPending = 0;
constexpr int64_t kGatherBytes = 64 << 10;
// This thread's polls: the clock is read every 16 (a count of the thread's own, not an atomic one).
thread_local unsigned tlsPolls = 0;

// Adds `bytes` to this thread's pending count, and the pending count to the budget once it is large.
inline void account(int64_t bytes) {
  if (tlsBudget == nullptr) return;
  const int64_t pending = tlsPending + bytes;
  if (pending > kGatherBytes || pending < -kGatherBytes) {
    tlsBudget->addLive(pending);
    tlsPending = 0;
  } else {
    tlsPending = pending;
  }
}

// Adds this thread's pending bytes to its budget.
void flushPending() {
  if (tlsBudget != nullptr && tlsPending != 0) tlsBudget->addLive(tlsPending);
  tlsPending = 0;
}
}  // namespace

Budget::Budget(double timeoutSeconds, uint64_t memoryBytes)
    : t0_(std::chrono::steady_clock::now()), timeout_(timeoutSeconds), memLimit_(memoryBytes) {}

double Budget::elapsed() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count(); }

double Budget::remaining() const {
  return timeout_ > 0 ? timeout_ - elapsed() : std::numeric_limits<double>::infinity();
}

void Budget::fail(BudgetExceeded::Kind kind, const std::string& why) {
  int none = 0;
  if (!failed_.compare_exchange_strong(none, 1, std::memory_order_acq_rel)) return;  // the first reason stands
  failKind_ = kind;
  failWhy_ = why;
  failed_.store(2, std::memory_order_release);
}

void Budget::checkFailed() const {
  if (failed_.load(std::memory_order_acquire) == 2) throw BudgetExceeded(failKind_, failWhy_);
}

void Budget::poll(std::string_view phase) {
  checkFailed();
  const int64_t live = allocated() + (tlsBudget == this ? tlsPending : 0);
  if (memLimit_ > 0 && live > static_cast<int64_t>(memLimit_))
    throw BudgetExceeded(BudgetExceeded::Memory,
                         fmt::format("{} in use during the {} exceeds the test's memory limit of {} (--memory)",
                                     formatBytes(static_cast<uint64_t>(live)), phase, formatBytes(memLimit_)));
  if (timeout_ > 0 && (++tlsPolls & 15) == 0) checkTime(phase);
}

void Budget::checkTime(std::string_view phase) const {
  if (timeout_ > 0 && elapsed() > timeout_)
    throw BudgetExceeded(BudgetExceeded::Time, fmt::format("the test's time budget of {} ms was spent during the {}",
                                                           static_cast<long long>(timeout_ * 1000 + 0.5), phase));
}

void Budget::reserve(uint64_t bytes, std::string_view phase) {
  checkFailed();
  checkTime(phase);  // a large allocation is about to be made and filled: no need to wait for a later poll
  const uint64_t live = static_cast<uint64_t>(std::max<int64_t>(allocated(), 0));
  if (memLimit_ > 0 && live + bytes > memLimit_)
    throw BudgetExceeded(BudgetExceeded::Memory,
                         fmt::format("the {} needs {} more while {} are in use: over the test's memory limit of {} "
                                     "(--memory)",
                                     phase, formatBytes(bytes), formatBytes(live), formatBytes(memLimit_)));
}

BudgetScope::BudgetScope(Budget& budget) : previous_(tlsBudget) {
  flushPending();
  tlsBudget = &budget;
}
BudgetScope::~BudgetScope() {
  flushPending();
  tlsBudget = previous_;
}

Budget* currentBudget() { return tlsBudget; }

uint64_t defaultMemoryLimit(int workers) {
  long pages = sysconf(_SC_PHYS_PAGES);
  long page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return 0;
  const uint64_t phys = static_cast<uint64_t>(pages) * static_cast<uint64_t>(page);
  return std::min(phys / 4, phys / 4 * 3 / static_cast<uint64_t>(std::max(1, workers)));
}

std::optional<uint64_t> parseByteSize(const std::string& text) {
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (!(v >= 0) || text.empty() || !(std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '.'))
    return std::nullopt;
  std::string unit = text.substr(used);
  for (auto& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  double mult = 1;
  if (unit.empty() || unit == "B")
    mult = 1;
  else {
    static const std::string units = "KMGT";
    size_t k = units.find(unit[0]);
    if (k == std::string::npos || !(unit.size() == 1 || unit.substr(1) == "B" || unit.substr(1) == "IB"))
      return std::nullopt;
    mult = static_cast<double>(1ULL << (10 * (k + 1)));
  }
  double bytes = v * mult;
  if (bytes > 1.8e19) return std::nullopt;
  return static_cast<uint64_t>(bytes);
}

std::string formatBytes(uint64_t bytes) {
  if (bytes >= (1ULL << 30)) return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1ULL << 30));
  if (bytes >= (1ULL << 20)) return fmt::format("{:.0f} MiB", static_cast<double>(bytes) / (1ULL << 20));
  return fmt::format("{} KiB", (bytes + 1023) / 1024);
}

}  // namespace ptxmm

// ----- counting allocation functions ----------------------------------------------------------------
// The replaceable global allocation functions, counting for the calling thread's budget. They never throw
// for a spent budget (a throw inside a library, Z3 say, could leave it in a broken state): the budget is
// checked at pollBudget().
//
// What is counted must be the same when a block is allocated and when it is freed. A plain `new` counts
// the size asked for, which the sized `delete` that C++ pairs with it is given back (asking the allocator
// for a block's size costs as much as a small allocation). Arrays, over-aligned blocks and the unsized
// `delete` count the block's usable size (malloc_usable_size): `delete[]` of a trivially destructible type
// is not told the size. A plain `new` freed by the unsized `delete` (code compiled without sized
// deallocation) is counted out by its usable size, at most a size class more than was counted in.

namespace {

using ptxmm::account;
using ptxmm::tlsBudget;

void* rawAlloc(std::size_t n, std::size_t align) {
  if (n == 0) n = 1;
  return align > alignof(std::max_align_t) ? std::aligned_alloc(align, (n + align - 1) / align * align)
                                           : std::malloc(n);
}

// A plain `new`: counts the size asked for.
void* allocAsked(std::size_t n) {
  void* p = rawAlloc(n, 0);
  if (p != nullptr) account(static_cast<int64_t>(n == 0 ? 1 : n));
  return p;
}

// Arrays and over-aligned blocks: count the usable size.
void* allocUsable(std::size_t n, std::size_t align) {
  void* p = rawAlloc(n, align);
  if (p != nullptr && tlsBudget != nullptr) account(static_cast<int64_t>(malloc_usable_size(p)));
  return p;
}

// The sized `delete` of a plain `new`.
void freeAsked(void* p, std::size_t n) noexcept {
  if (p == nullptr) return;
  account(-static_cast<int64_t>(n == 0 ? 1 : n));
  std::free(p);
}

void freeUsable(void* p) noexcept {
  if (p == nullptr) return;
  if (tlsBudget != nullptr) account(-static_cast<int64_t>(malloc_usable_size(p)));
  std::free(p);
}

}  // namespace

void* operator new(std::size_t n) {
  if (void* p = allocAsked(n)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) {
  if (void* p = allocUsable(n, 0)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return allocAsked(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return allocUsable(n, 0); }
void* operator new(std::size_t n, std::align_val_t a) {
  if (void* p = allocUsable(n, static_cast<std::size_t>(a))) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n, std::align_val_t a) { return ::operator new(n, a); }
void operator delete(void* p) noexcept { freeUsable(p); }
void operator delete[](void* p) noexcept { freeUsable(p); }
void operator delete(void* p, std::size_t n) noexcept { freeAsked(p, n); }
void operator delete[](void* p, std::size_t) noexcept { freeUsable(p); }
void operator delete(void* p, std::align_val_t) noexcept { freeUsable(p); }
void operator delete[](void* p, std::align_val_t) noexcept { freeUsable(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { freeUsable(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { freeUsable(p); }
