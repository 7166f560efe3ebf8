// Text from user files may hold any bytes; reports in formats that must be UTF-8 (XML) pass it through
// here first.
#pragma once

#include <string>
#include <string_view>

namespace ptxmm {

/// `s` with every byte that does not start or continue a well-formed UTF-8 sequence replaced by U+FFFD.
[[nodiscard]] std::string toValidUtf8(std::string_view s);

}  // namespace ptxmm
