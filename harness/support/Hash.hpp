// Stable content hashes. herd7 and litmus7 print "Hash=<32 hex digits>", an MD5 of the test
// (litmus::testHash computes it as herd7 does), so the model log and the hardware log of the same
// test carry the same hash.
#pragma once

#include <string>
#include <string_view>

namespace ptxmm {

/// MD5 digest of `data` as 32 lower-case hex digits.
[[nodiscard]] std::string md5Hex(std::string_view data);

}  // namespace ptxmm
