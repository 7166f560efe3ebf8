#include "events/Skeleton.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "events/Builtins.hpp"
#include "support/Budget.hpp"

namespace ptxmm::events {
namespace {

/// Whether the scope instance `s` of a thread placed at `a` contains a thread placed at `b`.
bool scopeContains(ptx::Scope s, const litmus::Placement& a, const litmus::Placement& b) {
  switch (s) {
    case ptx::Scope::None: return false;
    case ptx::Scope::Cta: return a.cta == b.cta && a.gpu == b.gpu;
    case ptx::Scope::Cluster: return a.cluster == b.cluster && a.gpu == b.gpu;
    case ptx::Scope::Gpu: return a.gpu == b.gpu;
    case ptx::Scope::Sys: return true;
  }
  return false;
}

/// The virtual address whose proxy synonym event e accesses through (its own vaddr for a generic name).
int synonymBase(const EventProgram& program, const Event& e) {
  return program.vaddrs[static_cast<size_t>(e.vloc)].synonymOf;
}

/// Strong with a scope: strong accesses (relaxed/acquire/release/acq_rel/sc/volatile/mmio) and fences with a scope.
bool strongScoped(const Event& e) {
  if (e.scope == ptx::Scope::None || e.isInit) return false;
  if (e.type == EventType::Fence) return true;
  return e.sem != ptx::Sem::None && e.sem != ptx::Sem::Weak;
}

/// Adds event e to the active events of sk (once).
void activate(Skeleton& sk, EventId e) {
  if (sk.compact[static_cast<size_t>(e)] >= 0) return;
  sk.compact[static_cast<size_t>(e)] = static_cast<int>(sk.events.size());
  sk.events.push_back(e);
}

/// A skeleton with the init writes active and nothing else yet.
Skeleton startSkeleton(const EventProgram& program) {
  Skeleton sk;
  sk.program = &program;
  sk.compact.assign(program.events.size(), -1);
  for (EventId e : program.initWrites) activate(sk, e);
  sk.numInit = sk.events.size();
  return sk;
}

/// Fills the per-location lists, sets and relations of sk over its active events.
void materialise(Skeleton& sk) {
  const EventProgram& program = *sk.program;
  const size_t n = sk.events.size();

  // Per-location access lists.
  sk.writesByLoc.resize(program.locations.size());
  sk.readsByLoc.resize(program.locations.size());
  for (size_t i = 0; i < n; ++i) {
    const Event& e = sk.event(i);
    if (e.loc < 0) continue;
    if (e.type == EventType::Write) sk.writesByLoc[static_cast<size_t>(e.loc)].push_back(static_cast<int>(i));
    if (e.type == EventType::Read) sk.readsByLoc[static_cast<size_t>(e.loc)].push_back(static_cast<int>(i));
  }

  // Sets.
  for (const auto& t : allEventTags()) sk.sets.emplace(t, BitSet(n));
  for (size_t i = 0; i < n; ++i)
    for (const auto& t : sk.event(i).tags) {
      auto it = sk.sets.find(t);
      if (it == sk.sets.end()) it = sk.sets.emplace(t, BitSet(n)).first;
      it->second.set(i);
    }
  // Value-dependent sets (Event::dynamicTags): members with their conditions.
  for (const auto& t : allDynamicTags()) sk.dynamicSets[t];
  for (size_t i = 0; i < n; ++i)
    for (const auto& d : sk.event(i).dynamicTags) sk.dynamicSets[d.name].emplace_back(static_cast<int>(i), d.cond);

  // Program relations restricted to active events.
  reserveBudget((skeletonRelationNames().size() + program.relations.size()) * n * ((n + 63) / 64) * 8,
                "skeleton (static relations over " + std::to_string(n) + " events)");
  for (const auto& name : skeletonRelationNames()) sk.relations.emplace(name, BitMatrix(n));
  for (const auto& [name, pairs] : program.relations) {
    auto it = sk.relations.find(name);
    if (it == sk.relations.end()) it = sk.relations.emplace(name, BitMatrix(n)).first;
    for (const auto& [a, b] : pairs) {
      int i = sk.compact[static_cast<size_t>(a)], j = sk.compact[static_cast<size_t>(b)];
      if (i >= 0 && j >= 0) it->second.set(static_cast<size_t>(i), static_cast<size_t>(j));
    }
  }

  // Derived relations.
  BitMatrix& loc = sk.relations.at("loc");
  BitMatrix& vloc = sk.relations.at("vloc");
  BitMatrix& vsyn = sk.relations.at("vsyn");
  BitMatrix& intR = sk.relations.at("int");
  BitMatrix& ext = sk.relations.at("ext");
  BitMatrix& id = sk.relations.at("id");
  BitMatrix& scta = sk.relations.at("scta");
  BitMatrix& scluster = sk.relations.at("scluster");
  BitMatrix& sgpu = sk.relations.at("sgpu");
  BitMatrix& sr = sk.relations.at("sr");
  for (size_t i = 0; i < n; ++i) {
    pollBudget("skeleton (static relations)");
    const Event& a = sk.event(i);
    const litmus::Placement* pa = a.thread >= 0 ? &program.threads[static_cast<size_t>(a.thread)].where : nullptr;
    for (size_t j = 0; j < n; ++j) {
      const Event& b = sk.event(j);
      const litmus::Placement* pb = b.thread >= 0 ? &program.threads[static_cast<size_t>(b.thread)].where : nullptr;
      if (i == j) id.set(i, j);
      if (a.loc >= 0 && a.loc == b.loc) loc.set(i, j);
      if (a.vloc >= 0 && a.vloc == b.vloc) vloc.set(i, j);
      if (a.vloc >= 0 && b.vloc >= 0 && synonymBase(program, a) == synonymBase(program, b)) vsyn.set(i, j);
      bool sameThread = i == j || (pa && pb && a.thread == b.thread);
      if (sameThread)
        intR.set(i, j);
      else
        ext.set(i, j);
      if (pa && pb) {
        if (pa->gpu == pb->gpu) sgpu.set(i, j);
        if (pa->gpu == pb->gpu && pa->cluster == pb->cluster) scluster.set(i, j);
        if (pa->gpu == pb->gpu && pa->cta == pb->cta) scta.set(i, j);
        if (sameThread || (strongScoped(a) && strongScoped(b) && scopeContains(a.scope, *pa, *pb) &&
                           scopeContains(b.scope, *pb, *pa)))
          sr.set(i, j);
      }
    }
  }
}

}  // namespace

Skeleton buildSkeleton(const EventProgram& program, const std::vector<int>& choice) {
  if (choice.size() != program.paths.size()) throw std::out_of_range("buildSkeleton: one path per real thread");
  Skeleton sk = startSkeleton(program);
  sk.choice = choice;
  for (size_t t = 0; t < choice.size(); ++t) {
    const Path& p = program.paths[t].at(static_cast<size_t>(choice[t]));
    for (EventId e : p.events) activate(sk, e);
    sk.guards.insert(sk.guards.end(), p.guards.begin(), p.guards.end());
    sk.finalRegs.push_back(p.finalRegs);
    sk.ends.push_back(p.end);
    sk.cut = sk.cut || (p.end == PathEnd::Cut && !p.spin);
    sk.blocked = sk.blocked || p.end == PathEnd::Blocked;
    for (EventId e : p.readsFinal) sk.readsFinal.push_back(sk.compact[static_cast<size_t>(e)]);
    sk.undefinedIf.insert(sk.undefinedIf.end(), p.undefinedIf.begin(), p.undefinedIf.end());
  }
  materialise(sk);
  return sk;
}

Skeleton buildUnionSkeleton(const EventProgram& program, const std::vector<std::vector<int>>& paths) {
  if (paths.size() != program.paths.size()) throw std::out_of_range("buildUnionSkeleton: path lists per real thread");
  Skeleton sk = startSkeleton(program);
  for (size_t t = 0; t < paths.size(); ++t)
    for (int p : paths[t])
      for (EventId e : program.paths[t].at(static_cast<size_t>(p)).events) activate(sk, e);
  materialise(sk);
  return sk;
}

size_t countPathChoices(const EventProgram& program) {
  size_t total = 1;
  for (const auto& ps : program.paths) {
    if (ps.empty()) return 0;
    if (total > std::numeric_limits<size_t>::max() / ps.size()) return std::numeric_limits<size_t>::max();
    total *= ps.size();
  }
  return total;
}

bool barriersConsistent(const EventProgram& program, const std::vector<int>& choice) {
  if (program.barriers.empty()) return true;
  if (choice.size() != program.paths.size()) throw std::out_of_range("barriersConsistent: one path per real thread");
  std::vector<const Path*> chosen;
  for (size_t t = 0; t < choice.size(); ++t) chosen.push_back(&program.paths[t].at(static_cast<size_t>(choice[t])));
  auto useOf = [&](int t, int b) -> const BarrierUse* {
    for (const auto& u : chosen[static_cast<size_t>(t)]->barriers)
      if (u.barrier == b) return &u;
    return nullptr;
  };
  for (size_t b = 0; b < program.barriers.size(); ++b) {
    const ExecBarrier& B = program.barriers[b];
    const int bi = static_cast<int>(b);
    auto complete = [&](int gen) {
      // The count of the generation: the largest thread count its arrivals used; all participants when
      // some arrival used none (PTX ISA 9.2 §9.7.13.1: "If no thread count is specified, all threads in
      // the CTA participate").
      int reached = 0, count = 0;
      bool all = false;
      for (int u : B.participants) {
        const BarrierUse* use = useOf(u, bi);
        if (!use || use->arrived <= gen) continue;
        ++reached;
        auto c = use->counts.find(gen);
        if (c == use->counts.end())
          all = true;
        else
          count = std::max(count, c->second);
      }
      if (all || count == 0) {
        for (int u : B.participants) {
          const BarrierUse* use = useOf(u, bi);
          if (!(use && use->arrived > gen) && chosen[static_cast<size_t>(u)]->end != PathEnd::Normal) return false;
        }
        return true;
      }
      return reached >= count;
    };
    for (int t : B.participants) {
      const BarrierUse* use = useOf(t, bi);
      if (!use) continue;
      for (int g : use->passed)
        if (!complete(g)) return false;
      if (use->blockedGen >= 0 && complete(use->blockedGen)) return false;
    }
    if (B.kind == BarrierKind::Elect) {
      // One leader for the membermask, the same on every participant's path; it takes part in every
      // generation that some participant reached (it is elected among the threads that execute it).
      int leader = -1, reached = 0;
      for (int t : B.participants)
        if (const BarrierUse* use = useOf(t, bi)) {
          if (leader >= 0 && use->leader != leader) return false;
          leader = use->leader;
          reached = std::max(reached, use->arrived);
        }
      if (leader >= 0) {
        const BarrierUse* own = useOf(leader, bi);
        if (!own || own->arrived < reached) return false;
      }
    }
  }
  return true;
}

bool forEachPathChoice(const EventProgram& program, const std::function<bool(const std::vector<int>&)>& f) {
  const size_t t = program.paths.size();
  for (const auto& ps : program.paths)
    if (ps.empty()) return true;
  std::vector<int> choice(t, 0);
  while (true) {
    pollBudget("path combinations");
    if (barriersConsistent(program, choice) && !f(choice)) return false;
    size_t k = t;
    while (k > 0) {
      --k;
      if (static_cast<size_t>(++choice[k]) < program.paths[k].size()) break;
      choice[k] = 0;
      if (k == 0) return true;
    }
    if (t == 0) return true;
  }
}

}  // namespace ptxmm::events
