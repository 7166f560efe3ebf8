// herd7 log compatibility: `ptxmm check` logs line for line as herd7 (herdtools7 7.58) writes them
// for exists, ~exists and forall tests and for a test with undefined behaviour; herd7's test hash;
// a reader that compares two logs as mcompare7 does; the smt engine's state counts; the stored
// hardware results matched by hash.
//
// Where each rule comes from (herdtools7 sources):
//  * herd/top_herd.ml, the end of `run`: the order of the lines; `Test <name> <kind>`; `States n` and
//    the states; `Undef` when an execution is flagged undefined, else `Ok`/`No` from `check_cond`
//    (exists: pos > 0, ~exists: pos = 0, forall: neg = 0, pos/neg counting the allowed executions
//    whose final state satisfies / does not satisfy the proposition); `Witnesses` and
//    `Positive: a Negative: b` from `check_wit` ((pos, neg) for exists and forall, (neg, pos) for
//    ~exists); one `Flag f` per flag of c.flagged; `Condition`; `Observation <name> Never|Always|
//    Sometimes pos neg` (Never when pos = 0, Always when neg = 0, whatever the quantifier);
//    `Time <name> %0.2f`; `Hash=`; an empty line.
//  * lib/constrGen.ml, kind_of/pp_kind: exists "Allowed", ~exists "Forbidden", forall "Required".
//  * lib/interpreter.ml, exec_test: a failed undefined_unless check adds Flag.Undef to the
//    execution's flags (the execution is kept); a non-empty `flag` adds Flag.Flag name. herd/opts.ml:
//    -badexecs defaults to true, so such executions are counted and the log is printed.
//  * lib/flag.ml: Undef prints as `*undef*`; flags are ordered by OCaml's compare, Undef (a constant
//    constructor) before every `Flag name`.
//  * lib/testHash.ml + lib/genParser.ml: Hash = hex MD5 of the concatenated raw MD5 digests of the
//    digested meta-data (none: nothing), the initial state, the code and the observed locations.
//  * tools/lexLog_tools.mll (what mcompare7/msum7 read): after the validation line, blank and
//    `Flag ...` lines before `Condition`; after it, `Hash=`/`Time` and `key ...` lines; every other
//    line up to the next `Test` line is skipped — ptxmm's `#` lines go after `Hash=`.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "CliTestSupport.hpp"
#include "litmus/Parser.hpp"
#include "litmus/Printer.hpp"

namespace fs = std::filesystem;
namespace litmus = ptxmm::litmus;
using cli_test::Run;
using cli_test::Scratch;

namespace {

// Message passing, relaxed, in the Dat3M spelling herd's own GPU tests use (each thread in its own CTA).
const char* kMP = R"(PTX MP
{ x = 0; y = 0 }
 P0@cta 0,gpu 0      | P1@cta 1,gpu 0       ;
 st.relaxed.gpu x, 1 | ld.relaxed.gpu r0, y ;
 st.relaxed.gpu y, 1 | ld.relaxed.gpu r1, x ;
)";

// Sequential consistency: of MP's four candidate executions (r0 and r1 each read the initial or the
// written value) it forbids r0=1 /\ r1=0 and allows three, one per final state.
const char* kSc = "\"SC\"\nacyclic po | rf | co | fr as sc\n";

// SC, plus undefined behaviour when a read reads a write of another thread (not the initial one),
// and a flag raised by the same executions.
const char* kScUb = R"("SC with UB"
acyclic po | rf | co | fr as sc
let rfe-noinit = (rf & ext) \ (IW * _)
undefined_unless empty rfe-noinit as no-ext-read
flag ~empty rfe-noinit as ext-read
)";

// herd7's hash of MP (lib/testHash.ml), computed apart from ptxmm (Python's hashlib):
//   d = lambda s: hashlib.md5(s.encode()).digest()
//   init = "x=0; y=0"; observed = "1:r0; 1:r1"
//   code = " st.relaxed.gpu [x], 1 | ld.relaxed.gpu r0, [y] ;\n"
//          " st.relaxed.gpu [y], 1 | ld.relaxed.gpu r1, [x] ;\n"
//   hashlib.md5(d(init) + d(code) + d(observed)).hexdigest()
// No meta-data digest: herd digests only the MemoryType/MT keys, and MP's placement is the default.
const char* kMPHash = "9adf47c8eb88fdd62807c360685adf79";

std::string withCondition(const std::string& cond) { return std::string(kMP) + cond + "\n"; }

// The herd block of the first test of a `ptxmm check` text output: from its `Test` line to the empty
// line that ends it (included), `#` lines left out.
std::string herdBlock(const std::string& out) {
  std::istringstream in(out.substr(out.find("Test ")));
  std::string line, block;
  while (std::getline(in, line)) {
    if (line.rfind("#", 0) == 0) continue;
    block += line + "\n";
    if (line.empty()) break;
  }
  return block;
}

// One test of a herd7/litmus7 log as mcompare7 reads it (tools/lexLog_tools.mll).
struct LogTest {
  std::string kind;
  std::set<std::string> states;
  std::string validation;  // Ok, No, Undef
  uint64_t positive = 0, negative = 0;
  std::vector<std::string> flags;
  std::string condition;
  std::string observation;
  std::string hash;
};

// Reads the tests of a log: `Test` starts one, `States n` (herd) or `Histogram (n states)` (litmus7,
// lines `count :>state` or `count *>state`) gives the states, then the validation, the witnesses,
// `Flag` lines, the condition, and `Observation`/`Time`/`Hash` lines; any other line is skipped.
std::map<std::string, LogTest> readLog(const std::string& text) {
  std::map<std::string, LogTest> tests;
  std::istringstream in(text);
  std::string line;
  LogTest* cur = nullptr;
  size_t pendingStates = 0;
  while (std::getline(in, line)) {
    if (line.rfind("Test ", 0) == 0) {
      std::istringstream w(line.substr(5));
      std::string name, kind;
      w >> name >> kind;
      cur = &tests[name];
      cur->kind = kind;
      continue;
    }
    if (!cur) continue;
    if (pendingStates > 0) {
      --pendingStates;
      size_t arrow = line.find('>');
      cur->states.insert(arrow != std::string::npos && (line[arrow - 1] == ':' || line[arrow - 1] == '*')
                             ? line.substr(arrow + 1)
                             : line);
    } else if (line.rfind("States ", 0) == 0) {
      pendingStates = std::stoul(line.substr(7));
    } else if (line.rfind("Histogram (", 0) == 0) {
      pendingStates = std::stoul(line.substr(11));
    } else if (line == "Ok" || line == "No" || line == "Undef") {
      cur->validation = line;
    } else if (line.rfind("Positive: ", 0) == 0) {
      std::string l = line;
      l.erase(std::remove(l.begin(), l.end(), ','), l.end());
      std::istringstream w(l);
      std::string p, n;
      w >> p >> cur->positive >> n >> cur->negative;
    } else if (line.rfind("Flag ", 0) == 0) {
      cur->flags.push_back(line.substr(5));
    } else if (line.rfind("Condition ", 0) == 0) {
      cur->condition = line.substr(10);
      size_t is = cur->condition.find(" is ");
      if (is != std::string::npos) cur->condition.resize(is);  // litmus7: "... is validated"
    } else if (line.rfind("Observation ", 0) == 0) {
      cur->observation = line;
    } else if (line.rfind("Hash=", 0) == 0) {
      cur->hash = line.substr(5);
    }
  }
  return tests;
}

// mcompare7-style comparison of two logs: per test of both, "Hash mismatch" when the hashes differ
// (the logs ran different versions of the test), else the differences of states and validation.
std::vector<std::string> compareLogs(const std::map<std::string, LogTest>& a, const std::map<std::string, LogTest>& b) {
  std::vector<std::string> diffs;
  for (const auto& [name, ta] : a) {
    auto it = b.find(name);
    if (it == b.end()) continue;
    const LogTest& tb = it->second;
    if (ta.hash != tb.hash) {
      diffs.push_back(name + ": Hash mismatch");
      continue;
    }
    if (ta.states != tb.states) diffs.push_back(name + ": states differ");
    if (ta.validation != tb.validation) diffs.push_back(name + ": " + ta.validation + " vs " + tb.validation);
  }
  return diffs;
}

litmus::Test parse(const std::string& text, const std::string& file = "t.litmus") {
  litmus::ParseResult r = litmus::tryParseTest(text, file);
  INFO(text);
  REQUIRE(r.ok());
  return *r.test;
}

}  // namespace

TEST_CASE("herd log: exists, ~exists and forall line for line as herd7 writes them", "[cli][herdlog]") {
  Scratch s("herdlog-quant");
  fs::path sc = s.write("sc.cat", kSc);
  auto run = [&](const std::string& cond) {
    fs::path t = s.write("MP.litmus", withCondition(cond));
    Run r = s.ptxmm("check --engine enum --count --no-time --model " + sc.string() + " " + t.string());
    INFO(r.out << r.err);
    REQUIRE(r.rc == 0);
    return r.out;
  };
  const std::string states =
      "States 3\n"
      "1:r0=0; 1:r1=0;\n"
      "1:r0=0; 1:r1=1;\n"
      "1:r0=1; 1:r1=1;\n";
  // exists: Allowed; no execution satisfies the proposition, so pos = 0: No; Positive pos, Negative neg.
  CHECK(herdBlock(run("exists (1:r0 == 1 /\\ 1:r1 == 0)")) == "Test MP Allowed\n" + states +
                                                                  "No\n"
                                                                  "Witnesses\n"
                                                                  "Positive: 0 Negative: 3\n"
                                                                  "Condition exists (1:r0=1 /\\ 1:r1=0)\n"
                                                                  "Observation MP Never 0 3\n"
                                                                  "Time MP 0.00\n"
                                                                  "Hash=" +
                                                                  kMPHash + "\n\n");
  // ~exists of the same proposition: Forbidden; pos = 0: Ok; Positive/Negative swapped (neg, pos); the
  // Observation line keeps (pos, neg). The hash is the same: the condition does not enter it.
  CHECK(herdBlock(run("~exists (1:r0 == 1 /\\ 1:r1 == 0)")) == "Test MP Forbidden\n" + states +
                                                                   "Ok\n"
                                                                   "Witnesses\n"
                                                                   "Positive: 3 Negative: 0\n"
                                                                   "Condition ~exists (1:r0=1 /\\ 1:r1=0)\n"
                                                                   "Observation MP Never 0 3\n"
                                                                   "Time MP 0.00\n"
                                                                   "Hash=" +
                                                                   kMPHash + "\n\n");
  // forall of its negation: Required; neg = 0: Ok; Positive pos, Negative neg; Observation Always pos neg.
  CHECK(herdBlock(run("forall (1:r0 == 0 \\/ 1:r1 == 1)")) == "Test MP Required\n" + states +
                                                                  "Ok\n"
                                                                  "Witnesses\n"
                                                                  "Positive: 3 Negative: 0\n"
                                                                  "Condition forall (1:r0=0 \\/ 1:r1=1)\n"
                                                                  "Observation MP Always 3 0\n"
                                                                  "Time MP 0.00\n"
                                                                  "Hash=" +
                                                                  kMPHash + "\n\n");
  // forall violated in some executions: No, and the Observation counts the proposition, not the violation.
  CHECK(herdBlock(run("forall (1:r0 == 0)")).find("No\nWitnesses\nPositive: 2 Negative: 1\n") != std::string::npos);
  CHECK(herdBlock(run("forall (1:r0 == 0)")).find("Observation MP Sometimes 2 1\n") != std::string::npos);
}

TEST_CASE("herd log: a failed undefined_unless check prints Undef and Flag *undef*", "[cli][herdlog]") {
  Scratch s("herdlog-undef");
  fs::path ub = s.write("ub.cat", kScUb);
  fs::path t = s.write("MP.litmus", withCondition("exists (1:r0 == 1 /\\ 1:r1 == 0)"));
  for (const char* engine : {"enum", "smt", "both"}) {
    Run r = s.ptxmm(std::string("check --no-time --engine ") + engine + " --model " + ub.string() + " " + t.string());
    INFO(engine << "\n" << r.out << r.err);
    REQUIRE(r.rc == 0);
    // Two of the three executions read another thread's write: the validation line is Undef (not
    // Ok/No), `Flag *undef*` comes first, then the model's flags by name. Each state has one execution,
    // so the smt engine's state counts are herd's execution counts here.
    CHECK(herdBlock(r.out) ==
          "Test MP Allowed\n"
          "States 3\n"
          "1:r0=0; 1:r1=0;\n"
          "1:r0=0; 1:r1=1;\n"
          "1:r0=1; 1:r1=1;\n"
          "Undef\n"
          "Witnesses\n"
          "Positive: 0 Negative: 3\n"
          "Flag *undef*\n"
          "Flag ext-read\n"
          "Condition exists (1:r0=1 /\\ 1:r1=0)\n"
          "Observation MP Never 0 3\n"
          "Time MP 0.00\n"
          "Hash=" +
              std::string(kMPHash) + "\n\n");
    // ptxmm's explanation stays, as `#` lines after the Hash line: the check that failed and where
    // (the witness execution may differ between engines).
    CHECK(r.out.find("\n# undefined (no-ext-read): P0 l.") > r.out.find("Hash="));
    CHECK(r.out.find("\n# ext-read: P0 l.") != std::string::npos);
    CHECK(r.out.find("\n# undefined (no-ext-read): P0 l.") != std::string::npos);
    CHECK(r.out.find("\nFlag undefined\n") == std::string::npos);
  }
  Run j = s.ptxmm("check --json --engine enum --model " + ub.string() + " " + t.string());
  nlohmann::json o = nlohmann::json::parse(j.out.substr(0, j.out.find('\n')));
  CHECK(o["validation"] == "Undef");
  CHECK(o["kind"] == "Allowed");
  CHECK(o["ok"] == false);
}

TEST_CASE("herd log: without --count final states are counted and the log says so, with the Observation of --count",
          "[cli][herdlog]") {
  Scratch s("herdlog-counts");
  fs::path sc = s.write("sc.cat", kSc);
  // r1 is not observed: the state 1:r0=0 is reached by two executions (r1 = 0 or 1), 1:r0=1 by one.
  fs::path t = s.write("MP.litmus", withCondition("exists (1:r0 == 1)"));
  const std::string note =
      "# Positive/Negative and Observation count final states, not executions; --count counts executions as "
      "herd7 does\n";
  std::map<std::string, std::string> out;
  for (const char* e : {"enum", "both", "smt", "enum --count", "both --count", "smt --count", "smt --smt-count"}) {
    Run r = s.ptxmm(std::string("check --no-time --engine ") + e + " --model " + sc.string() + " " + t.string());
    INFO(e << "\n" << r.out << r.err);
    REQUIRE(r.rc == 0);
    out[e] = r.out;
  }
  for (const char* e : {"enum --count", "both --count", "smt --count", "smt --smt-count"}) {
    INFO(e << "\n" << out[e]);
    CHECK(out[e].find("Ok\nWitnesses\nPositive: 1 Negative: 2\n") != std::string::npos);
    CHECK(out[e].find("Observation MP Sometimes 1 2\n") != std::string::npos);
    CHECK(out[e].find(note) == std::string::npos);
  }
  for (const char* e : {"enum", "both", "smt"}) {
    INFO(e << "\n" << out[e]);
    CHECK(out[e].find("Ok\nWitnesses\nPositive: 1 Negative: 1\n") != std::string::npos);
    CHECK(out[e].find("Observation MP Sometimes 1 1\n") != std::string::npos);
    CHECK(out[e].find("Hash=" + std::string(readLog(out["enum --count"]).at("MP").hash) + "\n" + note) !=
          std::string::npos);
  }
  // Counted or not: the same states, validation and Observation word.
  auto a = readLog(out["enum --count"]).at("MP"), b = readLog(out["smt"]).at("MP");
  CHECK(a.states == b.states);
  CHECK(a.validation == b.validation);
  CHECK(a.observation.substr(0, a.observation.rfind(' ', a.observation.rfind(' ') - 1)) ==
        b.observation.substr(0, b.observation.rfind(' ', b.observation.rfind(' ') - 1)));
  for (const char* e : {"smt", "enum"}) {
    Run j = s.ptxmm(std::string("check --json --engine ") + e + " --model " + sc.string() + " " + t.string());
    CHECK(nlohmann::json::parse(j.out.substr(0, j.out.find('\n')))["countsAreExecutions"] == false);
    j = s.ptxmm(std::string("check --json --count --engine ") + e + " --model " + sc.string() + " " + t.string());
    CHECK(nlohmann::json::parse(j.out.substr(0, j.out.find('\n')))["countsAreExecutions"] == true);
  }
}

TEST_CASE("herd log: a ptxmm log and a herd7 log of the same program match as mcompare7 compares them",
          "[cli][herdlog]") {
  Scratch s("herdlog-mcompare");
  fs::path sc = s.write("sc.cat", kSc);
  fs::path t = s.write("MP.litmus", withCondition("exists (1:r0 == 1 /\\ 1:r1 == 0)"));
  Run r = s.ptxmm("check --engine enum --model " + sc.string() + " " + t.string());
  REQUIRE(r.rc == 0);
  // What herd7 prints for MP under SC (written by hand from herd/top_herd.ml; the hash is herd's
  // recipe applied to herd's own printing of MP, see kMPHash), then a litmus7 log of it.
  const std::string herd = std::string(
                               "Test MP Allowed\n"
                               "States 3\n"
                               "1:r0=0; 1:r1=0;\n"
                               "1:r0=0; 1:r1=1;\n"
                               "1:r0=1; 1:r1=1;\n"
                               "No\n"
                               "Witnesses\n"
                               "Positive: 0 Negative: 3\n"
                               "Condition exists (1:r0=1 /\\ 1:r1=0)\n"
                               "Observation MP Never 0 3\n"
                               "Time MP 0.01\n"
                               "Hash=") +
                           kMPHash + "\n\n";
  const std::string litmus7 = std::string(
                                  "Test MP Allowed\n"
                                  "Histogram (2 states)\n"
                                  "500   :>1:r0=0; 1:r1=0;\n"
                                  "499500:>1:r0=1; 1:r1=1;\n"
                                  "No\n\n"
                                  "Witnesses\n"
                                  "Positive: 0, Negative: 1000000\n"
                                  "Condition exists (1:r0=1 /\\ 1:r1=0) is NOT validated\n"
                                  "Hash=") +
                              kMPHash +
                              "\n"
                              "Observation MP Never 0 1000000\n";
  auto mine = readLog(r.out), theirs = readLog(herd), hw = readLog(litmus7);
  REQUIRE(mine.count("MP"));
  CHECK(mine.at("MP").hash == kMPHash);
  CHECK(compareLogs(mine, theirs).empty());
  CHECK(mine.at("MP").condition == theirs.at("MP").condition);
  CHECK(mine.at("MP").observation == theirs.at("MP").observation);
  // The hardware log ran the same test: no hash mismatch; its states are a subset of the model's.
  CHECK(compareLogs(mine, hw) == std::vector<std::string>{"MP: states differ"});
  for (const auto& st : hw.at("MP").states) CHECK(mine.at("MP").states.count(st));
  // Another program under the same name (a fence added) is a hash mismatch.
  std::string fenced = withCondition("exists (1:r0 == 1 /\\ 1:r1 == 0)");
  fenced.replace(fenced.find(" st.relaxed.gpu y, 1 | ld.relaxed.gpu r1, x ;"), 0,
                 " fence.sc.gpu        | fence.sc.gpu         ;\n");
  fs::path f = s.write("MP.litmus", fenced);
  Run rf = s.ptxmm("check --engine enum --model " + sc.string() + " " + f.string());
  CHECK(compareLogs(readLog(rf.out), theirs) == std::vector<std::string>{"MP: Hash mismatch"});
}

TEST_CASE("herd7's hash: what it digests", "[cli][herdlog][hash]") {
  litmus::Test mp = parse(withCondition("exists (1:r0 == 1 /\\ 1:r1 == 0)"));
  litmus::HashInput h = litmus::hashInput(mp);
  CHECK(h.info.empty());
  CHECK(h.init == "x=0; y=0");
  CHECK(h.code ==
        " st.relaxed.gpu [x], 1 | ld.relaxed.gpu r0, [y] ;\n"
        " st.relaxed.gpu [y], 1 | ld.relaxed.gpu r1, [x] ;\n");
  CHECK(h.observed == "1:r0; 1:r1");
  CHECK(litmus::testHash(mp) == kMPHash);

  // Not digested: the name, doc strings, the condition's quantifier and values, the spelling.
  std::string other = withCondition("~exists (1:r0 == 0 /\\ 1:r1 == 1)");
  other.replace(0, std::string("PTX MP").size(), "PTX MP-renamed\n\"a doc string\"");
  CHECK(litmus::testHash(parse(other)) == kMPHash);
  CHECK(litmus::testHash(parse(withCondition("forall (1:r0 == 1 \\/ 1:r1 != 5)"))) == kMPHash);
  // Digested: the observed locations, the code, the initial state, the placement.
  CHECK(litmus::testHash(parse(withCondition("exists (1:r0 == 1)"))) != kMPHash);
  CHECK(litmus::testHash(parse(withCondition("exists (1:r0 == 1 /\\ 1:r1 == 0 /\\ x == 1)"))) != kMPHash);
  std::string init = withCondition("exists (1:r0 == 1 /\\ 1:r1 == 0)");
  init.replace(init.find("y = 0"), 5, "y = 2");
  CHECK(litmus::hashInput(parse(init)).init == "x=0; y=2");
  CHECK(litmus::testHash(parse(init)) != kMPHash);
  std::string sameCta = withCondition("exists (1:r0 == 1 /\\ 1:r1 == 0)");
  sameCta.replace(sameCta.find("P1@cta 1"), 8, "P1@cta 0");
  CHECK(litmus::hashInput(parse(sameCta)).info == "placement=P0@cta 0,cluster 0,gpu 0 | P1@cta 0,cluster 0,gpu 0");
  CHECK(litmus::testHash(parse(sameCta)) != kMPHash);

  // The PTX block spelling of a test and its labels (renamed L00, L01, ... by name); ptxmm's own
  // init items in herd's typed form, sorted registers first. The table as herd's Misc.string_of_prog
  // lays it out (each cell " %-*s " in its column's width, cells joined by '|', rows ended by ";\n").
  litmus::Test ptx = parse(R"(PTX wait
{ .global flag = 0; .shared buf = 0; .mbarrier bar = 1; al @ generic aliases flag; 1:r9 = flag; 0:r2 = 7 }
P0@cta 0,cluster 0,gpu 0:
    st.release.gpu.global.u32 [flag], 1;
P1@cta 1,cluster 1,gpu 0:
zz:
    ld.acquire.gpu.global.u32 r0, [flag];
    setp.eq.u32 p, r0, 0;
    @p bra zz;
    bra aa;
aa:
exists (1:r0 == 1)
)");
  litmus::HashInput hp = litmus::hashInput(ptx);
  CHECK(hp.info.empty());
  CHECK(hp.init == "0:r2=7; 1:r9=flag; @generic al=flag; .mbarrier bar=1; .shared buf=0; flag=0");
  CHECK(hp.code ==
        " st.release.gpu.global.u32 [flag], 1 | L01:                                 ;\n"
        "                                     | ld.acquire.gpu.global.u32 r0, [flag] ;\n"
        "                                     | setp.eq.u32 p, r0, 0                 ;\n"
        "                                     | @p bra L01                           ;\n"
        "                                     | bra L00                              ;\n"
        "                                     | L00:                                 ;\n");
  CHECK(hp.observed == "1:r0");

  // Dat3M and PTX spelling of one program: one hash.
  litmus::Test dat3m = parse(R"(PTX MP-dat3m
{ x = 0; y = 0 }
 P0@cta 0,gpu 0      | P1@cta 1,gpu 0       ;
 st.relaxed.gpu x, 1 | ld.relaxed.gpu r0, y ;
exists (1:r0 == 1)
)");
  litmus::Test block = parse(R"(PTX MP-block
{ x = 0; y = 0 }
P0@cta 0,cluster 0,gpu 0:
    st.relaxed.gpu [x], 1;
P1@cta 1,cluster 1,gpu 0:
    ld.relaxed.gpu r0, [y];
exists (1:r0 == 1)
)");
  CHECK(litmus::testHash(dat3m) == litmus::testHash(block));
}

TEST_CASE("stored hardware results match their tests by herd7's hash", "[cli][herdlog][hash]") {
  // Results whose litmus file changed after the hardware run: the hash says they are stale.
  const std::set<std::string> stale = {"litmus/base/MP+bar.arrive+bar.sync-in-cta.litmus"};
  size_t matched = 0;
  for (const auto& e : fs::directory_iterator(fs::path(PTXMM_SOURCE_DIR) / "docs" / "hardware")) {
    if (e.path().extension() != ".json") continue;
    std::ifstream in(e.path());
    nlohmann::json doc = nlohmann::json::parse(in);
    if (!doc.contains("results")) continue;
    for (const auto& res : doc["results"]) {
      std::string file = res["file"].get<std::string>();
      if (stale.count(file)) continue;
      INFO(e.path().filename().string() << ": " << file);
      litmus::ParseResult pr = litmus::tryParseFile(std::string(PTXMM_SOURCE_DIR) + "/" + file);
      REQUIRE(pr.ok());
      // A mismatch: the test changed since its hardware run (re-run it), or the hash recipe changed
      // (scripts/rehash-hardware.py).
      CHECK(res["hash"].get<std::string>() == litmus::testHash(*pr.test));
      ++matched;
    }
  }
  CHECK(matched > 900);
}
