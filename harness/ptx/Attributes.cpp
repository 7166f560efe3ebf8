#include "ptx/Attributes.hpp"

#include <array>
#include <string>
#include <utility>

namespace ptxmm::ptx {
namespace {

template <class E, size_t N>
std::optional<E> lookup(const std::array<std::pair<std::string_view, E>, N>& table, std::string_view q) {
  for (const auto& [name, value] : table)
    if (name == q) return value;
  return std::nullopt;
}

constexpr std::array<std::pair<std::string_view, Sem>, 8> kSems = {{{"weak", Sem::Weak},
                                                                    {"relaxed", Sem::Relaxed},
                                                                    {"acquire", Sem::Acquire},
                                                                    {"release", Sem::Release},
                                                                    {"acq_rel", Sem::AcqRel},
                                                                    {"sc", Sem::Sc},
                                                                    {"volatile", Sem::Volatile},
                                                                    {"mmio", Sem::Mmio}}};
constexpr std::array<std::pair<std::string_view, Scope>, 4> kScopes = {
    {{"cta", Scope::Cta}, {"cluster", Scope::Cluster}, {"gpu", Scope::Gpu}, {"sys", Scope::Sys}}};
constexpr std::array<std::pair<std::string_view, Space>, 9> kSpaces = {{{"global", Space::Global},
                                                                        {"shared::cta", Space::SharedCta},
                                                                        {"shared", Space::SharedCta},
                                                                        {"shared::cluster", Space::SharedCluster},
                                                                        {"const", Space::Const},
                                                                        {"param", Space::Param},
                                                                        {"local", Space::Local},
                                                                        {"surf", Space::Surface},
                                                                        {"tex", Space::Texture}}};
constexpr std::array<std::pair<std::string_view, DataType>, 16> kTypes = {{{"b8", DataType::B8},
                                                                           {"b16", DataType::B16},
                                                                           {"b32", DataType::B32},
                                                                           {"b64", DataType::B64},
                                                                           {"b128", DataType::B128},
                                                                           {"u8", DataType::U8},
                                                                           {"u16", DataType::U16},
                                                                           {"u32", DataType::U32},
                                                                           {"u64", DataType::U64},
                                                                           {"s8", DataType::S8},
                                                                           {"s16", DataType::S16},
                                                                           {"s32", DataType::S32},
                                                                           {"s64", DataType::S64},
                                                                           {"f32", DataType::F32},
                                                                           {"f64", DataType::F64},
                                                                           {"pred", DataType::Pred}}};
constexpr std::array<std::pair<std::string_view, Proxy>, 6> kProxies = {{{"generic", Proxy::Generic},
                                                                         {"async", Proxy::Async},
                                                                         {"tensormap", Proxy::Tensormap},
                                                                         {"surface", Proxy::Surface},
                                                                         {"texture", Proxy::Texture},
                                                                         {"constant", Proxy::Constant}}};

}  // namespace

std::string_view toString(Sem s) {
  for (const auto& [n, v] : kSems)
    if (v == s) return n;
  return "";
}
std::string_view toString(Scope s) {
  for (const auto& [n, v] : kScopes)
    if (v == s) return n;
  return "";
}
std::string_view toString(Space s) {
  switch (s) {
    case Space::Generic: return "";
    case Space::Global: return ".global";
    case Space::SharedCta: return ".shared::cta";
    case Space::SharedCluster: return ".shared::cluster";
    case Space::Const: return ".const";
    case Space::Param: return ".param";
    case Space::Local: return ".local";
    case Space::Surface: return ".surf";
    case Space::Texture: return ".tex";
  }
  return "";
}
std::string_view toString(Proxy p) {
  for (const auto& [n, v] : kProxies)
    if (v == p) return n;
  return "";
}
std::string_view toString(DataType t) {
  static constexpr std::array<std::string_view, 17> names = {"",     ".b8",  ".b16", ".b32", ".b64", ".b128",
                                                             ".u8",  ".u16", ".u32", ".u64", ".s8",  ".s16",
                                                             ".s32", ".s64", ".f32", ".f64", ".pred"};
  return names[static_cast<size_t>(t)];
}

std::optional<Sem> parseSem(std::string_view q) { return lookup(kSems, q); }
std::optional<Scope> parseScope(std::string_view q) { return lookup(kScopes, q); }
std::optional<Space> parseSpace(std::string_view q) { return lookup(kSpaces, q); }
std::optional<DataType> parseDataType(std::string_view q) { return lookup(kTypes, q); }
std::optional<Proxy> parseProxy(std::string_view q) { return lookup(kProxies, q); }

int byteWidth(DataType t) {
  switch (t) {
    case DataType::B8:
    case DataType::U8:
    case DataType::S8: return 1;
    case DataType::B16:
    case DataType::U16:
    case DataType::S16: return 2;
    case DataType::B64:
    case DataType::U64:
    case DataType::S64:
    case DataType::F64: return 8;
    case DataType::B128: return 16;
    default: return 4;
  }
}

Target combine(const Target& a, const Target& b) {
  return Target{a.sm > b.sm ? a.sm : b.sm, a.ptx > b.ptx ? a.ptx : b.ptx, a.archSpecific || b.archSpecific};
}

std::string toString(const Target& t) {
  return "sm_" + std::to_string(t.sm) + (t.archSpecific ? "a" : "") + ", PTX ISA " + std::to_string(t.ptx / 10) + "." +
         std::to_string(t.ptx % 10);
}

bool scopeIncludes(Scope outer, Scope inner) {
  return static_cast<int>(outer) >= static_cast<int>(inner) && inner != Scope::None;
}

}  // namespace ptxmm::ptx
