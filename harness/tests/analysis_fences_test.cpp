// Fence-necessity analysis: sync-site discovery, AST mutations, classification under models/ptx.cat
// and an inline model, text/Markdown rendering and witness files.
#include <catch2/catch.hpp>
#include <filesystem>
#include <sstream>

#include "analysis/FenceNecessity.hpp"
#include "cat/Model.hpp"
#include "litmus/Parser.hpp"
#include "litmus/Printer.hpp"

using namespace ptxmm;
using namespace ptxmm::analysis;

namespace {

const char* kMpFences = R"(PTX MP+fences
{ x = 0; y = 0 }
 P0@cta 0,cluster 0,gpu 0 | P1@cta 1,cluster 1,gpu 0 ;
 fence.acq_rel.cta        | ld.relaxed.gpu r0, y     ;
 st.weak x, 1             | fence.acq_rel.gpu        ;
 fence.acq_rel.gpu        | ld.weak r1, x            ;
 st.relaxed.gpu y, 1      |                          ;
exists (P1:r0 == 1 /\ P1:r1 == 0)
)";

const char* kBarSync = R"(PTX MP+bar
{ x = 0 }
 P0@cta 0,cluster 0,gpu 0 | P1@cta 0,cluster 0,gpu 0 ;
 st.weak x, 1             | bar.cta.sync 0           ;
 bar.cta.sync 0           | ld.weak r0, x            ;
exists (P1:r0 == 0)
)";

const char* kMbarrier = R"(PTX MB
{ x = 0; .mbarrier bar = 1 }
P0@cta 0,cluster 0,gpu 0:
    st.weak.shared::cta.u32 [x], 1;
    mbarrier.arrive.shared::cta.b64 st, [bar];
P1@cta 0,cluster 0,gpu 0:
w:
    mbarrier.try_wait.parity.shared::cta.b64 p, [bar], 0;
    @!p bra w;
    ld.weak r0, [x];
exists (1:r0 == 0)
)";

std::vector<NamedModel> ptxModel() {
  return {NamedModel{"ptx", cat::loadModel(std::filesystem::path(PTXMM_SOURCE_DIR) / "models/ptx.cat")}};
}

const SyncSite* siteAtLine(const std::vector<SyncSite>& sites, int thread, int line) {
  for (const auto& s : sites)
    for (const auto& r : s.stmts)
      if (r.thread == thread && s.src.line == line) return &s;
  return nullptr;
}

}  // namespace

TEST_CASE("findSyncSites lists fences per instruction and barriers per group", "[analysis][fences]") {
  auto t = litmus::parseTest(kMpFences, "mp.litmus");
  auto sites = findSyncSites(t);
  REQUIRE(sites.size() == 3);
  for (const auto& s : sites) {
    CHECK(s.kind == MutationKind::Remove);
    CHECK(s.stmts.size() == 1);
    CHECK(s.label.find("fence.acq_rel") != std::string::npos);
  }
  CHECK(sites[0].id == "s1");
  CHECK(sites[2].id == "s3");

  auto b = litmus::parseTest(kBarSync, "bar.litmus");
  auto bsites = findSyncSites(b);
  REQUIRE(bsites.size() == 1);
  CHECK(bsites[0].stmts.size() == 2);  // both threads' bar.sync 0 of CTA 0 together
  CHECK(bsites[0].label.find("P0,P1") != std::string::npos);
}

TEST_CASE("applyMutation removes or weakens on the AST", "[analysis][fences]") {
  auto b = litmus::parseTest(kBarSync, "bar.litmus");
  auto m = applyMutation(b, findSyncSites(b).at(0));
  CHECK(litmus::printCanonical(m).find("bar.sync") == std::string::npos);
  CHECK(litmus::printCanonical(b).find("bar.sync") != std::string::npos);
  CHECK(m.threads[0].code.size() + 1 == b.threads[0].code.size());
  CHECK(m.name != b.name);

  auto mb = litmus::parseTest(kMbarrier, "mb.litmus");
  auto sites = findSyncSites(mb);
  REQUIRE(sites.size() == 2);  // arrive (.release) and try_wait (.acquire) can be relaxed
  for (const auto& s : sites) {
    CHECK(s.kind == MutationKind::WeakenToRelaxed);
    auto w = applyMutation(mb, s);
    const auto& in = *w.threads[static_cast<size_t>(s.stmts[0].thread)].code[s.stmts[0].stmt].instr;
    CHECK(in.sem == ptx::Sem::Relaxed);
    CHECK(litmus::printInstr(in).find(".relaxed") != std::string::npos);
    // the relaxed test is still a valid test: it prints and parses again
    CHECK_NOTHROW(litmus::parseTest(litmus::printCanonical(w), "w.litmus"));
  }
}

TEST_CASE("fenceNecessity under ptx.cat: MP fences needed, the extra fence redundant", "[analysis][fences]") {
  auto t = litmus::parseTest(kMpFences, "mp.litmus");
  auto rep = fenceNecessity(t, ptxModel());
  REQUIRE(rep.models.size() == 1);
  const auto& ma = rep.models[0];
  REQUIRE(ma.original.status == check::Status::Ok);
  CHECK_FALSE(ma.badReachable);
  const auto* leading = siteAtLine(rep.sites, 0, 4);  // fence.acq_rel.cta before the data store
  const auto* writer = siteAtLine(rep.sites, 0, 6);   // fence between data and flag
  const auto* reader = siteAtLine(rep.sites, 1, 5);   // fence between flag and data reads
  REQUIRE(leading);
  REQUIRE(writer);
  REQUIRE(reader);
  auto idx = [&](const SyncSite* s) { return static_cast<size_t>(s - rep.sites.data()); };
  CHECK(ma.sites[idx(leading)].necessity == Necessity::Redundant);
  CHECK(ma.sites[idx(writer)].necessity == Necessity::NeededOutcome);
  CHECK(ma.sites[idx(reader)].necessity == Necessity::NeededOutcome);
  // the witness is a state reaching the bad outcome
  const auto& w = ma.sites[idx(writer)];
  REQUIRE(w.witness);
  CHECK(w.mutant.states[*w.witness].satisfies);
  CHECK(badOutcomeReachable(w.mutant));

  std::ostringstream text, md;
  printText(rep, text);
  printMarkdown(rep, md);
  CHECK(text.str().find("needed") != std::string::npos);
  CHECK(text.str().find("redundant") != std::string::npos);
  CHECK(md.str().find("### MP+fences") != std::string::npos);
  CHECK(md.str().find("**needed**") != std::string::npos);
}

TEST_CASE("fenceNecessity: removing the CTA barrier makes MP reachable; witnesses are written", "[analysis][fences]") {
  auto t = litmus::parseTest(kBarSync, "bar.litmus");
  auto rep = fenceNecessity(t, ptxModel());
  REQUIRE(rep.sites.size() == 1);
  REQUIRE(rep.models[0].sites.size() == 1);
  CHECK(rep.models[0].sites[0].necessity != Necessity::Redundant);
  CHECK(rep.models[0].sites[0].necessity != Necessity::Error);
  auto dir = std::filesystem::temp_directory_path() / "ptxmm-analysis-fences-test";
  std::filesystem::remove_all(dir);
  auto files = writeWitnesses(rep, dir, /*svg=*/false);
  REQUIRE(files.entries.size() == 1);
  CHECK(std::filesystem::exists(dir / files.entries[0].file));
  CHECK(files.find(0, 0) != nullptr);
  std::ostringstream md;
  printMarkdown(rep, md, &files, "pics");
  CHECK(md.str().find("](pics/" + files.entries[0].file + ")") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("fenceNecessity with an inline model: forall conditions and no-model cases", "[analysis][fences]") {
  // SC: every fence is redundant (nothing is reachable that was not before).
  auto sc =
      cat::parseModel("\"sc\"\nacyclic po | rf | co | fr as sc\n", "sc.cat", {.includeDirs = {}, .prelude = false});
  const char* sb = R"(PTX SB+forall
{ x = 0; y = 0 }
 P0@cta 0,cluster 0,gpu 0 | P1@cta 1,cluster 1,gpu 0 ;
 st.relaxed.gpu x, 1      | st.relaxed.gpu y, 1      ;
 fence.sc.gpu             | fence.sc.gpu             ;
 ld.relaxed.gpu r0, y     | ld.relaxed.gpu r1, x     ;
forall (0:r0 == 1 \/ 1:r1 == 1)
)";
  auto t = litmus::parseTest(sb, "sb.litmus");
  auto rep = fenceNecessity(t, {NamedModel{"sc", sc}});
  REQUIRE(rep.sites.size() == 2);
  REQUIRE(rep.models[0].original.status == check::Status::Ok);
  CHECK_FALSE(rep.models[0].badReachable);  // forall holds under SC: the negation is unreachable
  for (const auto& s : rep.models[0].sites) CHECK(s.necessity == Necessity::Redundant);
  // under ptx.cat the SC fences are what forbids the SB outcome
  auto rp = fenceNecessity(t, ptxModel());
  for (const auto& s : rp.models[0].sites) CHECK(s.necessity == Necessity::NeededOutcome);
  auto none = fenceNecessity(t, {});
  CHECK(none.models.empty());
  CHECK(none.sites.size() == 2);
}

TEST_CASE("fenceNecessity never calls a site of a broken test redundant", "[analysis][fences]") {
  // MP with a release store but a relaxed load: the bad outcome is reachable with every site in place.
  const char* mp = R"(PTX MP+rel+rlx
{ x = 0; y = 0 }
 P0@cta 0,gpu 0      | P1@cta 1,gpu 0       ;
 st.relaxed.gpu x, 1 | ld.relaxed.gpu r0, y ;
 fence.acq_rel.gpu   | ld.relaxed.gpu r1, x ;
 st.relaxed.gpu y, 1 |                      ;
exists (1:r0 == 1 /\ 1:r1 == 0)
)";
  auto t = litmus::parseTest(mp, "mp.litmus");
  auto rep = fenceNecessity(t, ptxModel());
  REQUIRE(rep.models[0].original.status == check::Status::Ok);
  CHECK(rep.models[0].badReachable);
  REQUIRE(!rep.sites.empty());
  for (const auto& s : rep.models[0].sites) {
    CHECK(s.necessity == Necessity::OriginalFails);
    CHECK(s.note.find("the original already fails (the bad outcome is reachable)") != std::string::npos);
  }
  std::ostringstream text;
  printText(rep, text, nullptr);
  CHECK(text.str().find("redundant") == std::string::npos);
  CHECK(text.str().find("n/a (original fails)") != std::string::npos);
}

TEST_CASE("loadModels reports missing files as diagnostics", "[analysis][fences]") {
  CHECK_THROWS_AS(loadModels({"/nonexistent/model.cat"}), DiagnosticError);
  auto paths = defaultModelPaths(std::filesystem::path(PTXMM_SOURCE_DIR) / "models");
  REQUIRE_FALSE(paths.empty());
  CHECK(paths[0].filename() == "ptx.cat");
  for (size_t k = 1; k < paths.size(); ++k) CHECK(paths[k].filename().string().rfind("ptx-", 0) == 0);
}

TEST_CASE("fenceNecessity gives the same classification with parallel checks", "[analysis][fences]") {
  auto t = litmus::parseTest(kMpFences, "mp.litmus");
  FenceOptions par;
  par.jobs = 3;
  auto seq = fenceNecessity(t, ptxModel());
  auto rep = fenceNecessity(t, ptxModel(), par);
  REQUIRE(rep.models.size() == seq.models.size());
  REQUIRE(rep.models[0].sites.size() == seq.models[0].sites.size());
  CHECK(rep.models[0].original.observation == seq.models[0].original.observation);
  for (size_t k = 0; k < rep.sites.size(); ++k)
    CHECK(rep.models[0].sites[k].necessity == seq.models[0].sites[k].necessity);
}
