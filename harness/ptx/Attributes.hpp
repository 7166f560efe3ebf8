// PTX attributes shared by every stage: memory semantics, scope, state space, proxy, data type.
// Spelled as in the PTX ISA (chapter 8 and the instruction descriptions of chapter 9).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ptxmm::ptx {

/// Memory-ordering semantics of an operation or fence (PTX ISA 9.2 §8.4, §9.7.13.4).
/// `None` = the instruction has no semantics qualifier and none is implied.
enum class Sem : uint8_t { None, Weak, Relaxed, Acquire, Release, AcqRel, Sc, Volatile, Mmio };

/// Scope (§8.5). `None` = not given (weak operations, thread-local fences).
enum class Scope : uint8_t { None, Cta, Cluster, Gpu, Sys };

/// State space of an access (§5.1, §8.3). Generic = generic addressing (no space qualifier).
enum class Space : uint8_t { Generic, Global, SharedCta, SharedCluster, Const, Param, Local, Surface, Texture };

/// Memory proxy (§8.6): the method of access.
enum class Proxy : uint8_t { Generic, Async, Tensormap, Surface, Texture, Constant };

/// Data type qualifier (only width matters to the model; .b128 is one 16-byte cell).
enum class DataType : uint8_t { None, B8, B16, B32, B64, B128, U8, U16, U32, U64, S8, S16, S32, S64, F32, F64, Pred };

[[nodiscard]] std::string_view toString(Sem s);
[[nodiscard]] std::string_view toString(Scope s);
[[nodiscard]] std::string_view toString(Space s);     // ".global", ".shared::cta", ... ("" for Generic)
[[nodiscard]] std::string_view toString(Proxy p);     // "generic", "async", ...
[[nodiscard]] std::string_view toString(DataType t);  // ".b32", ... ("" for None)

/// Parse a qualifier without its leading dot ("acquire", "gpu", "shared::cta", "b32").
[[nodiscard]] std::optional<Sem> parseSem(std::string_view q);
[[nodiscard]] std::optional<Scope> parseScope(std::string_view q);
[[nodiscard]] std::optional<Space> parseSpace(std::string_view q);  // "shared" parses as SharedCta
[[nodiscard]] std::optional<DataType> parseDataType(std::string_view q);
[[nodiscard]] std::optional<Proxy> parseProxy(std::string_view q);

/// Width in bytes of a data type (16 for .b128, 4 when unknown).
[[nodiscard]] int byteWidth(DataType t);

/// True if the scope `inner` is included in `outer` (cta ⊂ cluster ⊂ gpu ⊂ sys).
[[nodiscard]] bool scopeIncludes(Scope outer, Scope inner);

/// A minimal SM target and PTX ISA version, e.g. {90, 80} = sm_90, PTX 8.0.
struct Target {
  int sm = 0;
  int ptx = 0;                ///< major*10+minor, e.g. 86 = PTX ISA 8.6
  bool archSpecific = false;  ///< needs the architecture-specific variant (`sm_100a`, `sm_90a`)
  auto operator<=>(const Target&) const = default;
};

/// The least target satisfying both (max SM, max PTX version, `a` if either needs it).
[[nodiscard]] Target combine(const Target& a, const Target& b);

/// "sm_100a, PTX ISA 8.6".
[[nodiscard]] std::string toString(const Target& t);

}  // namespace ptxmm::ptx
