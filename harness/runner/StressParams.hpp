// Stress parameters (the names GPUHarbor and MC Mutants use), declared once in StressParams.def: the
// struct, its JSON form with range checks, the command-line options generated from the table, the
// kernel shape they ask for, and the per-launch configuration buffer (ptxgen::cfg layout) and memory
// layout derived from them.
#pragma once

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "ptxgen/Kernel.hpp"

namespace ptxmm::runner {

/// Stress parameters: one field per row of StressParams.def, with the row's default.
struct StressParams {
#define PTXMM_STRESS_PARAM(name, type, def, lo, hi, kind, word, when, doc) type name = def;
#include "runner/StressParams.def"
#undef PTXMM_STRESS_PARAM
};

/// What a stress parameter acts on (the `kind` column of StressParams.def).
enum class ParamKind { Run, Shape, Launch, Percent };

/// One row of StressParams.def, for the code that handles every parameter alike (options, docs, tests).
struct ParamInfo {
  const char* name;  ///< JSON key and field name
  ParamKind kind;
  bool isUnsigned;  ///< uint64_t (else int)
  uint64_t def;
  uint64_t min;
  uint64_t max;
  int word;  ///< ptxgen::cfg word filled from the parameter, -1 for none
  const char* doc;
};

/// Every stress parameter, in the table's order.
[[nodiscard]] const std::vector<ParamInfo>& paramTable();

/// The command-line option of parameter `key`: "--" then the key in kebab case (memStressPct:
/// --mem-stress-pct).
[[nodiscard]] std::string paramOption(const std::string& key);

/// Set parameter `key` of `p` from a JSON value; throws std::runtime_error naming the key for an
/// unknown key, a value that is not an integer, or one outside the parameter's range.
void setParam(StressParams& p, const std::string& key, const nlohmann::json& value);

/// The checks that involve several parameters (stressLineSize <= scratchMemorySize); throws
/// std::runtime_error naming the parameters.
void checkParams(const StressParams& p);

/// Parse stress parameters from a JSON object (setParam for each key, then checkParams); missing keys
/// keep their defaults.
[[nodiscard]] StressParams paramsFromJson(const nlohmann::json& j);
/// Stress parameters as JSON (every key).
[[nodiscard]] nlohmann::json toJson(const StressParams& p);

/// The compile-time kernel shape that `p` asks for (groups, stress warps, bank-conflict lanes).
[[nodiscard]] ptxgen::GenOptions kernelShape(const StressParams& p, const std::string& arch);

/// Bytes between consecutive instances' cells: memStride rounded up to whole cells.
[[nodiscard]] uint64_t cellStride(const ptxgen::Kernel& kernel, const StressParams& p);

/// Bytes of one global location's region (its cells for `instances` instances, `stride` apart),
/// 4 KiB aligned; with surface bindings a whole surface array (ptxgen::surf::kRegionAlign granules).
[[nodiscard]] uint64_t regionBytes(const ptxgen::Kernel& kernel, uint64_t instances, uint64_t stride);

/// The surface map of a region: `layout[w]` is 1 + the element index (y * surf::kArrayWidth + x) of
/// the surface-array element stored at 32-bit word w of the region (what a copy of 1, 2, 3, ... into
/// the array leaves in its memory); the result holds {x in bytes, y} for each instance's cell
/// (cell c at word c * stride / 4). Empty, with `error` set, unless `layout` is a bijection between
/// the region's words and the array's elements.
[[nodiscard]] std::vector<uint32_t> surfaceMap(const std::vector<uint32_t>& layout, uint64_t instances, uint64_t stride,
                                               std::string& error);

/// The grids of one launch of `kernel` with `columns` GPU-cluster columns per role: the CTAs of the
/// stress kernel (Kernel::entry: the primary grid's roles, every role without a dependent kernel) and of
/// the dependent kernel (Kernel::dependentEntry, launched after it with programmatic stream
/// serialization; 0 without one), and the u32 words of the counter buffer (Kernel::counterWords per instance).
struct LaunchGrids {
  uint64_t primaryCtas = 0;
  uint64_t dependentCtas = 0;
  uint64_t counterWords = 0;
};
[[nodiscard]] LaunchGrids launchGrids(const ptxgen::Kernel& kernel, uint64_t columns);

/// Fill one launch's configuration buffer (cfg:: layout). `instances` = columns * slotsPerCta.
[[nodiscard]] std::vector<uint64_t> buildConfig(const ptxgen::Kernel& kernel, const StressParams& params,
                                                uint64_t columns, const std::vector<std::vector<int64_t>>& candidates,
                                                std::mt19937_64& rng);

}  // namespace ptxmm::runner
