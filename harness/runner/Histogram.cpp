// Final states: the candidate values of each observed term, state keys, and histogram decoding.
#include "runner/Histogram.hpp"

#include <algorithm>
#include <set>
#include <sstream>

#include "outcome/State.hpp"

namespace ptxmm::runner {

namespace {

void collectImms(const litmus::Prop& p, std::set<int64_t>& out) {
  for (const auto* t : {&p.lhs, &p.rhs})
    if (t->kind == litmus::Term::Kind::Const) out.insert(t->value);
  for (const auto& k : p.kids) collectImms(k, out);
}

}  // namespace

std::vector<std::vector<int64_t>> candidateValues(const litmus::Test& test, const ptxgen::Kernel& kernel,
                                                  const std::vector<std::string>& extraStates) {
  std::set<int64_t> common{0, 1};
  for (const auto& d : test.locations) common.insert(d.init);
  for (const auto& r : test.regInits)
    if (!r.addressOf) common.insert(r.value);
  collectImms(test.condition.prop, common);
  for (const auto& th : test.threads)
    for (const auto& st : th.code)
      if (st.instr) {
        auto fam = ptx::opInfo(st.instr->op).family;
        if (fam != ptx::OpFamily::Write && fam != ptx::OpFamily::Rmw && fam != ptx::OpFamily::Local) continue;
        for (const auto& op : st.instr->operands)
          if (op.kind == litmus::Operand::Kind::Imm) common.insert(op.imm);
      }
  // Values named in extra states ("0:r1=2; x=3;"), per term label.
  std::map<std::string, std::set<int64_t>> perLabel;
  for (const auto& key : extraStates)
    for (const auto& [label, value] : outcome::parseStateKey(key)) perLabel[label].insert(value);
  std::vector<std::vector<int64_t>> out;
  for (const auto& term : kernel.terms) {
    std::set<int64_t> vals = common;
    for (int64_t v : perLabel[term.label]) vals.insert(v);
    std::vector<int64_t> v;
    for (int64_t x : vals) {
      if (term.widthBits == 32) x = static_cast<int64_t>(static_cast<uint32_t>(x));
      if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
    }
    if (v.size() > static_cast<size_t>(ptxgen::cfg::kMaxCandidates)) v.resize(ptxgen::cfg::kMaxCandidates);
    out.push_back(v);
  }
  return out;
}

uint64_t bucketCount(const std::vector<std::vector<int64_t>>& candidates) {
  uint64_t n = 1;
  for (const auto& c : candidates) n *= std::max<uint64_t>(1, c.size());
  return n + 2;
}

uint64_t Histogram::total() const {
  uint64_t t = other + timedOut;
  for (const auto& [k, v] : states) t += v;
  return t;
}

std::string stateKey(const ptxgen::Kernel& kernel, const std::vector<int64_t>& values) {
  std::vector<std::string> labels;
  for (const auto& t : kernel.terms) labels.push_back(t.label);
  return outcome::stateKey(labels, values);
}

Histogram decodeHistogram(const ptxgen::Kernel& kernel, const std::vector<std::vector<int64_t>>& candidates,
                          const std::vector<uint64_t>& buckets, const std::vector<uint64_t>& samples) {
  Histogram h;
  const uint64_t states = bucketCount(candidates) - 2;
  for (uint64_t idx = 0; idx < states && idx < buckets.size(); ++idx) {
    if (buckets[idx] == 0) continue;
    std::vector<int64_t> vals(candidates.size());
    uint64_t rest = idx;
    for (size_t j = candidates.size(); j-- > 0;) {
      uint64_t r = std::max<uint64_t>(1, candidates[j].size());
      vals[j] = candidates[j].empty() ? 0 : candidates[j][rest % r];
      rest /= r;
    }
    h.states[stateKey(kernel, vals)] += buckets[idx];
  }
  if (buckets.size() > states) h.other = buckets[states];
  if (buckets.size() > states + 1) h.timedOut = buckets[states + 1];
  if (!samples.empty()) {
    const size_t rec = std::max<size_t>(1, kernel.terms.size());
    const uint64_t n = std::min<uint64_t>(samples[0], ptxgen::cfg::kSampleCap);
    for (uint64_t s = 0; s < n; ++s) {
      std::vector<int64_t> vals;
      for (size_t j = 0; j < kernel.terms.size(); ++j) {
        size_t at = 1 + s * rec + j;
        vals.push_back(at < samples.size() ? static_cast<int64_t>(samples[at]) : 0);
      }
      std::string key = stateKey(kernel, vals);
      if (std::find(h.otherSamples.begin(), h.otherSamples.end(), key) == h.otherSamples.end())
        h.otherSamples.push_back(key);
    }
  }
  return h;
}

}  // namespace ptxmm::runner
