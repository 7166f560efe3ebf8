// Shared by the libFuzzer targets: the input as text, and the one way an input may be refused.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "support/Budget.hpp"

namespace ptxmm::fuzz {

/// The fuzzer's bytes as text (any bytes: the readers must cope with non-UTF-8 and NULs).
inline std::string_view text(const uint8_t* data, size_t size) { return {reinterpret_cast<const char*>(data), size}; }

/// A budget every input runs under, as `ptxmm check` runs every test under one: an input that would
/// grow without bound ends with BudgetExceeded (a clean refusal), which the targets accept.
inline Budget inputBudget() { return Budget(2.0, uint64_t{512} << 20); }

}  // namespace ptxmm::fuzz
