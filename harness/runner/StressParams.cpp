// Stress parameters from StressParams.def: JSON with range checks, kernel shape, configuration buffer.
#include "runner/StressParams.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "runner/Histogram.hpp"

namespace ptxmm::runner {

namespace {

using nlohmann::json;

/// The names the table's `word` column uses: the ptxgen::cfg words and kNoWord.
namespace words {
using namespace ptxgen::cfg;
inline constexpr int kNoWord = -1;
}  // namespace words

/// The table's kMax: the largest value of the parameter's type.
inline constexpr struct MaxTag {
} kMax;

/// A bound of the table as a number for a parameter of type T.
template <class T>
constexpr uint64_t bound(uint64_t v) {
  return v;
}
template <class T>
constexpr uint64_t bound(MaxTag) {
  return static_cast<uint64_t>(std::numeric_limits<T>::max());
}

// The table's words are scalar words of the configuration buffer that the host fills from nothing
// else (ptxgen/Kernel.hpp), each filled by one parameter.
constexpr int kTableWords[] = {
#define PTXMM_STRESS_PARAM(name, type, def, lo, hi, kind, word, when, doc) words::word,
#include "runner/StressParams.def"
#undef PTXMM_STRESS_PARAM
};
constexpr bool tableWordsValid() {
  for (int w : kTableWords) {
    if (w == words::kNoWord) continue;
    if (w < 0 || w >= ptxgen::cfg::kOtherBucket || w == ptxgen::cfg::kColumns || w == ptxgen::cfg::kInstances ||
        w == ptxgen::cfg::kStride)
      return false;
    int uses = 0;
    for (int v : kTableWords) uses += v == w ? 1 : 0;
    if (uses != 1) return false;
  }
  return true;
}
static_assert(tableWordsValid(), "StressParams.def: a word is not a parameter word of ptxgen::cfg, or is used twice");

/// A random multiplier coprime with n (1 when n <= 1).
uint64_t coprime(uint64_t n, std::mt19937_64& rng) {
  if (n <= 2) return 1;
  for (int tries = 0; tries < 64; ++tries) {
    uint64_t m = 1 + rng() % (n - 1);
    if (std::gcd(m, n) == 1) return m;
  }
  return 1;
}

/// `value` as a parameter of type T in [lo, hi]; throws naming `key`.
template <class T>
T checkedValue(const std::string& key, const json& value, uint64_t lo, uint64_t hi) {
  if (!value.is_number_integer())
    throw std::runtime_error("stress parameter '" + key + "': expected an integer, got " + value.type_name() + " " +
                             value.dump());
  const bool negative = !value.is_number_unsigned() && value.get<int64_t>() < 0;
  const uint64_t v = negative ? 0 : value.get<uint64_t>();
  if (negative || v < lo || v > hi)
    throw std::runtime_error("stress parameter '" + key + "': " + value.dump() + " is out of range " +
                             (hi == bound<T>(kMax) ? "(at least " + std::to_string(lo) + ")"
                                                   : std::to_string(lo) + ".." + std::to_string(hi)));
  return static_cast<T>(v);
}

}  // namespace

const std::vector<ParamInfo>& paramTable() {
  static const std::vector<ParamInfo> table = {
#define PTXMM_STRESS_PARAM(name, type, def, lo, hi, kind, word, when, doc) \
  ParamInfo{#name,                                                         \
            ParamKind::kind,                                               \
            std::is_same_v<type, uint64_t>,                                \
            static_cast<uint64_t>(def),                                    \
            bound<type>(lo),                                               \
            bound<type>(hi),                                               \
            words::word,                                                   \
            doc},
#include "runner/StressParams.def"
#undef PTXMM_STRESS_PARAM
  };
  return table;
}

std::string paramOption(const std::string& key) {
  std::string o = "--";
  for (char ch : key) {
    if (ch >= 'A' && ch <= 'Z') {
      o += '-';
      o += static_cast<char>(ch - 'A' + 'a');
    } else {
      o += ch;
    }
  }
  return o;
}

void setParam(StressParams& p, const std::string& key, const json& value) {
#define PTXMM_STRESS_PARAM(name, type, def, lo, hi, kind, word, when, doc)     \
  if (key == #name) {                                                          \
    p.name = checkedValue<type>(key, value, bound<type>(lo), bound<type>(hi)); \
    return;                                                                    \
  }
#include "runner/StressParams.def"
#undef PTXMM_STRESS_PARAM
  throw std::runtime_error("stress parameters: unknown key '" + key + "'");
}

void checkParams(const StressParams& p) {
  if (p.scratchMemorySize < p.stressLineSize)
    throw std::runtime_error("stress parameters: stressLineSize (" + std::to_string(p.stressLineSize) +
                             ") exceeds scratchMemorySize (" + std::to_string(p.scratchMemorySize) + ")");
}

StressParams paramsFromJson(const json& j) {
  if (!j.is_object()) throw std::runtime_error("stress parameters: expected a JSON object");
  StressParams p;
  for (const auto& [k, v] : j.items()) setParam(p, k, v);
  checkParams(p);
  return p;
}

json toJson(const StressParams& p) {
  json j = json::object();
#define PTXMM_STRESS_PARAM(name, type, def, lo, hi, kind, word, when, doc) j[#name] = p.name;
#include "runner/StressParams.def"
#undef PTXMM_STRESS_PARAM
  return j;
}

ptxgen::GenOptions kernelShape(const StressParams& p, const std::string& arch) {
  ptxgen::GenOptions g;
  g.arch = arch;
  g.groupsPerBlock = p.groupsPerBlock;
  g.stressWarpsPerBlock = p.stressWarpsPerBlock;
  g.bankConflictLanes = p.bankConflictLanes;
  g.mapAcquireAtStart = p.mapAcquireAtStart != 0;
  g.threadSkewNs = p.threadSkewNs;
  return g;
}

uint64_t cellStride(const ptxgen::Kernel& kernel, const StressParams& p) {
  const uint64_t cell = kernel.globals.empty() ? 4 : static_cast<uint64_t>(kernel.globals[0].cellBytes);
  return std::max<uint64_t>(cell, (static_cast<uint64_t>(p.memStride) + cell - 1) / cell * cell);
}

LaunchGrids launchGrids(const ptxgen::Kernel& kernel, uint64_t columns) {
  const uint64_t clusterDim = kernel.clustered ? static_cast<uint64_t>(kernel.clusterDim) : 1;
  const uint64_t primaryRoles =
      static_cast<uint64_t>(kernel.dependentEntry.empty() ? kernel.roles : kernel.primaryRoles);
  LaunchGrids g;
  g.primaryCtas = columns * primaryRoles * clusterDim;
  g.dependentCtas = columns * (static_cast<uint64_t>(kernel.roles) - primaryRoles) * clusterDim;
  g.counterWords = static_cast<uint64_t>(kernel.counterWords()) * columns * static_cast<uint64_t>(kernel.slotsPerCta);
  return g;
}

uint64_t regionBytes(const ptxgen::Kernel& kernel, uint64_t instances, uint64_t stride) {
  const uint64_t granule = kernel.surfaceMap ? ptxgen::surf::kRegionAlign : 4096;
  return std::max<uint64_t>(1, (instances * stride + granule - 1) / granule) * granule;
}
std::vector<uint32_t> surfaceMap(const std::vector<uint32_t>& layout, uint64_t instances, uint64_t stride,
                                 std::string& error) {
  const uint64_t words = layout.size();
  std::vector<uint32_t> elementAt(words);
  std::vector<bool> seen(words, false);
  for (uint64_t w = 0; w < words; ++w) {
    const uint64_t e = static_cast<uint64_t>(layout[w]) - 1;  // 0 (never written) wraps to a huge index
    if (e >= words || seen[e]) {
      error = "the surface array's memory layout is not a bijection onto its region: word " + std::to_string(w) +
              (e >= words ? " holds no array element" : " repeats element " + std::to_string(e));
      return {};
    }
    seen[e] = true;
    elementAt[w] = static_cast<uint32_t>(e);
  }
  if (instances * stride > words * 4) {
    error = "the surface array covers " + std::to_string(words * 4) + " bytes, fewer than the " +
            std::to_string(instances * stride) + " of the cells";
    return {};
  }
  const auto width = static_cast<uint32_t>(ptxgen::surf::kArrayWidth);
  std::vector<uint32_t> map(2 * instances);
  for (uint64_t c = 0; c < instances; ++c) {
    const uint32_t e = elementAt[c * stride / 4];
    map[2 * c] = (e % width) * 4;  // sust/suld .b address x in bytes
    map[2 * c + 1] = e / width;
  }
  return map;
}

std::vector<uint64_t> buildConfig(const ptxgen::Kernel& kernel, const StressParams& p, uint64_t columns,
                                  const std::vector<std::vector<int64_t>>& candidates, std::mt19937_64& rng) {
  namespace cfg = ptxgen::cfg;
  std::vector<uint64_t> c(cfg::kWords, 0);
  const uint64_t n = columns * static_cast<uint64_t>(kernel.slotsPerCta);
  c[cfg::kColumns] = columns;
  c[cfg::kInstances] = n;
  // The table's rows in order: a Percent row draws (if its `when` holds) and a Launch row writes its
  // value into its word (0 unless its `when` holds).
  struct Draws {
#define PTXMM_STRESS_PARAM(name, type, def, lo, hi, kind, word, when, doc) bool name = false;
#include "runner/StressParams.def"
#undef PTXMM_STRESS_PARAM
  } on;
  auto fill = [&](ParamKind kind, int word, uint64_t value, bool when, bool& drawn) {
    if (kind == ParamKind::Percent) {
      drawn = when && static_cast<int>(rng() % 100) < static_cast<int>(value);
      if (word != words::kNoWord) c[static_cast<size_t>(word)] = drawn ? 1 : 0;
    } else if (kind == ParamKind::Launch && word != words::kNoWord) {
      c[static_cast<size_t>(word)] = when ? value : 0;
    }
  };
#define PTXMM_STRESS_PARAM(name, type, def, lo, hi, kind, word, when, doc) \
  fill(ParamKind::kind, words::word, static_cast<uint64_t>(p.name), when, on.name);
#include "runner/StressParams.def"
#undef PTXMM_STRESS_PARAM
  const uint64_t stride = cellStride(kernel, p);
  c[cfg::kStride] = stride;
  c[cfg::kOtherBucket] = bucketCount(candidates) - 2;
  const bool shuffle = on.shufflePct;
  for (int k = 0; k < kernel.roles && k < cfg::kMaxRoles; ++k) {
    c[cfg::kRolePerm + 2 * k] = shuffle ? coprime(columns, rng) : 1;
    c[cfg::kRolePerm + 2 * k + 1] = shuffle ? rng() % columns : static_cast<uint64_t>(k) % columns;
    c[cfg::kSlotOff + k] = shuffle ? rng() % kernel.slotsPerCta : 0;
  }
  const uint64_t region = regionBytes(kernel, n, stride);
  for (size_t l = 0; l < kernel.globals.size(); ++l) {
    c[cfg::kLocPerm + 3 * l] = shuffle ? coprime(n, rng) : 1;
    c[cfg::kLocPerm + 3 * l + 1] = shuffle ? rng() % n : 0;
    c[cfg::kLocPerm + 3 * l + 2] = l * region;
  }
  // A map written through locates its tensor location's cell of the same index (ptxgen::TensorMapSpec).
  for (const auto& spec : kernel.tensorMaps)
    if (spec.tensorLoc >= 0)
      for (int w = 0; w < 2; ++w) c[cfg::kLocPerm + 3 * spec.tensorLoc + w] = c[cfg::kLocPerm + 3 * spec.globalLoc + w];
  const uint64_t lines = std::max<uint64_t>(1, static_cast<uint64_t>(p.scratchMemorySize / p.stressLineSize));
  for (int i = 0; i < 16; ++i) c[cfg::kLines + i] = (rng() % lines) * static_cast<uint64_t>(p.stressLineSize);
  for (size_t j = 0; j < candidates.size() && j < static_cast<size_t>(cfg::kMaxTerms); ++j) {
    c[cfg::kTermCount + j] = candidates[j].size();
    for (size_t v = 0; v < candidates[j].size() && v < static_cast<size_t>(cfg::kMaxCandidates); ++v)
      c[cfg::kTermValues + cfg::kMaxCandidates * j + v] = static_cast<uint64_t>(candidates[j][v]);
  }
  return c;
}

}  // namespace ptxmm::runner
