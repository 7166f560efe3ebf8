#include "support/Utf8.hpp"

namespace ptxmm {

std::string toValidUtf8(std::string_view s) {
  std::string r;
  r.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    const auto b = static_cast<unsigned char>(s[i]);
    size_t len = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
    bool ok = len > 0 && i + len <= s.size();
    for (size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
    if (ok && len > 1) {  // no overlong forms, surrogates or code points past U+10FFFF
      const auto c1 = static_cast<unsigned char>(s[i + 1]);
      ok = !(len == 2 && b < 0xC2) && !(len == 3 && b == 0xE0 && c1 < 0xA0) && !(len == 3 && b == 0xED && c1 >= 0xA0) &&
           !(len == 4 && b == 0xF0 && c1 < 0x90) && !(len == 4 && (b > 0xF4 || (b == 0xF4 && c1 >= 0x90)));
    }
    if (ok) {
      r.append(s.substr(i, len));
      i += len;
    } else {
      r += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return r;
}

}  // namespace ptxmm
