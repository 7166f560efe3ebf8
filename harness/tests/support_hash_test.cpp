#include <catch2/catch.hpp>

#include "support/Diagnostic.hpp"
#include "support/Hash.hpp"

using namespace ptxmm;

TEST_CASE("md5 matches RFC 1321 test vectors", "[support]") {
  CHECK(md5Hex("") == "d41d8cd98f00b204e9800998ecf8427e");
  CHECK(md5Hex("abc") == "900150983cd24fb0d6963f7d28e17f72");
  CHECK(md5Hex("12345678901234567890123456789012345678901234567890123456789012345678901234567890") ==
        "57edf4a22be3c955ac49da2e2107b67a");
}

TEST_CASE("diagnostics print file:line:col", "[support]") {
  Diagnostic d{Severity::Error, SourceLoc{"a.litmus", 3, 7}, "unexpected token 'x'"};
  CHECK(d.str() == "a.litmus:3:7: error: unexpected token 'x'");
  CHECK(closestMatch("fence.proxy.asnyc", {"fence.proxy.async", "fence.sc", "ld"}) == "fence.proxy.async");
  CHECK(closestMatch("zzzzzzzz", {"ld", "st"}).empty());
}
