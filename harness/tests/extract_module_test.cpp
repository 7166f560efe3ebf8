// The extractor (harness/extract/) on hand-written PTX modules: the module reader ({ } scopes, .loc with
// inlined_at, .file after the functions, register ranges), address resolution with stage offsets, role
// discovery (%tid, elect.sync, %cluster_ctarank), slicing, loop unrolling, and located refusals.
#include <catch2/catch.hpp>
#include <random>
#include <string>

#include "extract/Extract.hpp"
#include "extract/Module.hpp"

using namespace ptxmm;
using namespace ptxmm::extract;

namespace {

std::string kernel(const std::string& directives, const std::string& decls, const std::string& body,
                   const std::string& params = ".param .u64 k_param_0, .param .u32 k_param_1") {
  return ".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k(" + params + ")\n" + directives +
         "\n{\n.reg .pred %p<9>;\n.reg .b32 %r<60>;\n.reg .b64 %rd<9>;\n" + decls + "\n" + body + "\nret;\n}\n";
}

KernelExtract one(const std::string& text, ExtractOptions o = {}) {
  auto m = readModule(text, "t.ptx");
  auto ks = extractModule(m, o);
  REQUIRE(ks.size() == 1);
  return ks[0];
}

std::string testText(const KernelExtract& k) {
  INFO((k.error ? k.error->str() : std::string()));
  REQUIRE(k.test.has_value());
  return k.test->text;
}

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("module reader: scopes, register ranges, .loc with inlined_at, .file after the functions",
          "[extract][module]") {
  std::string text = kernel(".maxntid 64, 1, 1\n.reqnctapercluster 2, 1, 1", ".shared .align 8 .b8 bar[16];",
                            ".loc 1 10 3\n"
                            "mov.u32 %r1, bar;\n"
                            ".loc 2 26 13, function_name $L__x, inlined_at 1 33 7\n"
                            "{\n .reg .pred P_OUT;\n L: mbarrier.try_wait.parity.shared::cta.b64 P_OUT, [%r1], 0;\n"
                            " @!P_OUT bra L;\n}\n"
                            "{\n .reg .pred P_OUT;\n L: mbarrier.try_wait.parity.shared::cta.b64 P_OUT, [%r1], 1;\n"
                            " @!P_OUT bra L;\n}\n") +
                     ".file 1 \"k.cu\"\n.file 2 \"helper.h\"\n";
  auto m = readModule(text, "t.ptx");
  REQUIRE(m.functions.size() == 1);
  const auto& f = m.functions[0];
  CHECK(f.isEntry);
  CHECK(f.maxntid[0] == 64);
  CHECK(f.clusterDim[0] == 2);
  REQUIRE(f.params.size() == 2);
  CHECK(f.params[1].type == "u32");
  REQUIRE(f.vars.size() == 1);
  CHECK(f.vars[0].size == 16);
  // The two scopes' local predicate and label are distinct names.
  std::vector<const PtxStmt*> waits, labels;
  for (const auto& s : f.body) {
    if (s.opcode.starts_with("mbarrier.try_wait")) waits.push_back(&s);
    if (!s.label.empty()) labels.push_back(&s);
  }
  REQUIRE(waits.size() == 2);
  REQUIRE(labels.size() == 2);
  CHECK(waits[0]->operands[0] != waits[1]->operands[0]);
  CHECK(labels[0]->label != labels[1]->label);
  // The source line of an inlined helper is the kernel's line that calls it.
  REQUIRE(waits[0]->source.has_value());
  CHECK(waits[0]->source->file == "k.cu");
  CHECK(waits[0]->source->line == 33);
}

TEST_CASE("module reader: bad input is a located error", "[extract][module]") {
  auto err = [](const std::string& t) {
    try {
      (void)readModule(t, "bad.ptx");
    } catch (const DiagnosticError& e) {
      return e.diagnostic().loc.line;
    }
    return -1;
  };
  CHECK(err(".version 8.0\n.visible .entry k()\n{\nmov.u32 %r1, 1;\n") > 0);  // not closed
  CHECK(err(".version 8.0\n#\n") == 2);
  CHECK(err(".version 8.0\n.visible .entry k()\n{\n mov.u32 %r1, [a;\n}\n") > 0);
  CHECK(err("/* unterminated") == 1);
  // A branch without a target (found by fuzz_extract: the extractor read the missing operand)
  CHECK(err(".version 8.0\n.visible .entry k()\n{\n @%p1 bra;\n}\n") == 4);
  CHECK(err(".version 8.0\n.visible .entry k()\n{\n bra.uni ;\n}\n") == 4);
}

// Thread 0 alone goes on: %r2 = full with full[0] initialised for one arrival, %rd1 = parameter 0.
constexpr const char* kThread0Full =
    "mov.u32 %r1, %tid.x;\nsetp.ne.s32 %p1, %r1, 0;\n@%p1 bra END;\n"
    "mov.u32 %r2, full;\nmbarrier.init.shared.b64 [%r2], 1;\nld.param.u64 %rd1, [k_param_0];\n";
constexpr const char* kBufFull = ".shared .align 128 .b8 buf[128];\n.shared .align 8 .b8 full[16];";

TEST_CASE("extract: stage offsets become one location per stage, mbarriers one per object", "[extract][address]") {
  // Thread 0 copies into buf + 64*s for s = 0, 1 and signals full[s]; nothing else.
  std::string body = std::string(kThread0Full) +
                     "mbarrier.init.shared.b64 [%r2+8], 1;\nmov.u32 %r3, 0;\n"
                     "LOOP:\nand.b32 %r4, %r3, 1;\nshl.b32 %r5, %r4, 6;\nmov.u32 %r6, buf;\nadd.s32 %r7, %r6, %r5;\n"
                     "shl.b32 %r8, %r4, 3;\nadd.s32 %r9, %r2, %r8;\n"
                     "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r9], 64;\n"
                     "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r7], [%rd1], 64, [%r9];\n"
                     "add.s32 %r3, %r3, 1;\nsetp.lt.s32 %p2, %r3, 2;\n@%p2 bra LOOP;\nEND:\n";
  auto k = one(kernel(".maxntid 32, 1, 1", kBufFull, body));
  std::string t = testText(k);
  CHECK(t.find("[buf_s0]") != std::string::npos);
  CHECK(t.find("[buf_s1]") != std::string::npos);
  CHECK(t.find("[full_0]") != std::string::npos);
  CHECK(t.find("[full_1]") != std::string::npos);
  CHECK(t.find(".global param0 = 1") != std::string::npos);
  // Only thread 0 does anything: one litmus thread.
  CHECK(count(t, "@cta 0,cluster 0,gpu 0:") == 1);
}

TEST_CASE("extract: a shift by more than the width clamps (the amount is unsigned)", "[extract][address]") {
  // 1 << -7 (as .u32: 0xfffffff9) is 0 (PTX ISA shl: shift amounts greater than the width clamp); the copy
  // lands at buf + 0.
  // fuzz_extract found the shift amount read as -7 (undefined behaviour in the extractor).
  std::string body =
      std::string(kThread0Full) +
      "mov.u32 %r3, 1;\nshl.b32 %r5, %r3, -7;\n"
      "shr.u32 %r8, %r3, -7;\nadd.s32 %r5, %r5, %r8;\nmov.u32 %r6, buf;\nadd.s32 %r7, %r6, %r5;\n"
      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2], 64;\n"
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r7], [%rd1], 64, [%r2];\nEND:\n";
  auto k = one(kernel(".maxntid 32, 1, 1", kBufFull, body));
  std::string t = testText(k);
  CHECK(t.find("[buf]") != std::string::npos);
}

TEST_CASE("extract: a tensormap.cp_fenceproxy whose lanes pass different maps is refused, one map is extracted",
          "[extract][refuse]") {
  // Each lane copies its own 128-byte map: one execution of the .aligned instruction copies one map.
  std::string perLane =
      "mov.u32 %r1, %tid.x;\nld.param.u64 %rd1, [k_param_0];\ncvta.to.global.u64 %rd2, %rd1;\n"
      "mul.wide.u32 %rd3, %r1, 128;\nadd.s64 %rd4, %rd2, %rd3;\nmov.u32 %r2, smap;\nshl.b32 %r3, %r1, 7;\n"
      "add.s32 %r4, %r2, %r3;\n"
      "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd4], [%r4], 128;\n";
  auto k = one(kernel(".maxntid 32, 1, 1", ".shared .align 128 .b8 smap[4096];", perLane));
  REQUIRE(k.error.has_value());
  CHECK(k.error->loc.line > 0);
  CHECK(k.error->message.find("threads 0 and 1 of warp 0 of CTA 0 pass different operands") != std::string::npos);
  // The same map in every lane: extracted.
  std::string uniform = perLane;
  uniform.replace(uniform.find("[%rd4], [%r4]"), 13, "[%rd2], [%r2]");
  auto u = one(kernel(".maxntid 32, 1, 1", ".shared .align 128 .b8 smap[4096];", uniform));
  CHECK(testText(u).find("tensormap.cp_fenceproxy") != std::string::npos);
}

TEST_CASE("extract: roles from %tid, elect.sync and %cluster_ctarank", "[extract][roles]") {
  SECTION("warp specialisation with an elected producer lane") {
    std::string body =
        "mov.u32 %r1, %tid.x;\nmov.u32 %r2, flag;\nshr.u32 %r3, %r1, 5;\nsetp.ne.s32 %p1, %r3, 0;\n@%p1 bra CONS;\n"
        "elect.sync %r4|%p2, -1;\n@!%p2 bra END;\nst.relaxed.cta.shared.u32 [%r2], 1;\nbra.uni END;\n"
        "CONS:\nld.relaxed.cta.shared.u32 %r5, [%r2];\nEND:\n";
    auto k = one(kernel(".maxntid 64, 1, 1", ".shared .align 4 .b8 flag[4];", body));
    REQUIRE(k.test.has_value());
    REQUIRE(k.test->roles.size() == 2);
    CHECK(k.test->roles[0].find("threads 0 (1 thread") != std::string::npos);
    CHECK(k.test->roles[1].find("threads 32-63 (32 thread") != std::string::npos);
  }
  SECTION("the leader CTA of a cluster") {
    std::string body =
        "mov.u32 %r1, %cluster_ctarank;\nmov.u32 %r2, %tid.x;\nor.b32 %r3, %r1, %r2;\nsetp.ne.s32 %p1, %r3, 0;\n"
        "@%p1 bra END;\nmov.u32 %r4, flag;\nst.relaxed.cluster.shared.u32 [%r4], 1;\nEND:\n";
    auto k = one(kernel(".maxntid 32, 1, 1\n.reqnctapercluster 2, 1, 1", ".shared .align 4 .b8 flag[4];", body));
    std::string t = testText(k);
    CHECK(t.find("P0@cta 0,") != std::string::npos);
    CHECK(t.find("@cta 1,") == std::string::npos);
  }
  SECTION("--roles picks representatives") {
    std::string body =
        "mov.u32 %r1, %tid.x;\nmov.u32 %r2, flag;\nsetp.lt.u32 %p1, %r1, 2;\n@%p1 bra A;\n"
        "ld.shared.u32 %r5, [%r2];\nbra.uni END;\nA:\nsetp.eq.u32 %p2, %r1, 0;\n@%p2 bra B;\n"
        "ld.relaxed.cta.shared.u32 %r6, [%r2];\nbra.uni END;\nB:\nst.relaxed.cta.shared.u32 [%r2], 1;\nEND:\n";
    ExtractOptions o;
    o.roles = {0, 5};
    auto k = one(kernel(".maxntid 32, 1, 1", ".shared .align 4 .b8 flag[4];", body), o);
    REQUIRE(k.test.has_value());
    CHECK(k.test->roles.size() == 2);
  }
}

TEST_CASE("extract: slicing keeps synchronisation, drops arithmetic and weak global data", "[extract][slice]") {
  std::string body =
      "mov.u32 %r1, %tid.x;\nmul.lo.s32 %r2, %r1, 7;\nadd.s32 %r3, %r2, 5;\n"
      "ld.param.u64 %rd1, [k_param_0];\ncvta.to.global.u64 %rd2, %rd1;\nst.global.u32 [%rd2], %r3;\n"
      "mov.u32 %r4, s;\nst.shared.u32 [%r4], %r3;\nbar.sync 0;\nld.shared.u32 %r5, [%r4];\n";
  auto k = one(kernel(".maxntid 32, 1, 1", ".shared .align 4 .b8 s[4];", body));
  std::string t = testText(k);
  CHECK(t.find("st.global") == std::string::npos);
  CHECK(t.find("mul") == std::string::npos);
  CHECK(t.find("st.shared.u32 [s]") != std::string::npos);
  CHECK(t.find("bar.sync 0;") != std::string::npos);
}

TEST_CASE("extract: loops run as the kernel runs them (parameter bound, --iterations)", "[extract][unroll]") {
  std::string body =
      "ld.param.u32 %r1, [k_param_1];\nmov.u32 %r2, 0;\nmov.u32 %r3, s;\n"
      "L:\nst.relaxed.cta.shared.u32 [%r3], 1;\nbar.sync 0;\nadd.s32 %r2, %r2, 1;\nsetp.lt.s32 %p1, %r2, %r1;\n@%p1 "
      "bra L;\n";
  ExtractOptions o;
  o.iterations = 3;
  auto k = one(kernel(".maxntid 32, 1, 1", ".shared .align 4 .b8 s[4];", body), o);
  // The role writes shared memory: two litmus threads (its first thread and the others), 3 laps each.
  CHECK(count(testText(k), "bar.sync 0;") == 2 * 3);
  o.iterations = 0;
  o.params["k_param_1"] = 5;
  auto k5 = one(kernel(".maxntid 32, 1, 1", ".shared .align 4 .b8 s[4];", body), o);
  CHECK(count(testText(k5), "bar.sync 0;") == 2 * 5);
}

TEST_CASE("extract: what cannot be resolved is refused with its PTX line", "[extract][refuse]") {
  auto errLine = [](const KernelExtract& k) { return k.error ? k.error->loc.line : -1; };
  SECTION("a branch on a value loaded from memory") {
    auto k = one(kernel(".maxntid 32, 1, 1", ".shared .align 4 .b8 s[4];",
                        "mov.u32 %r1, s;\nld.shared.u32 %r2, [%r1];\nsetp.eq.s32 %p1, %r2, 0;\n@%p1 bra X;\n"
                        "st.shared.u32 [%r1], 1;\nX:\n"));
    CHECK(errLine(k) == 14);
    CHECK(k.error->message.find("value loaded from memory") != std::string::npos);
  }
  SECTION("an address computed from memory") {
    auto k = one(kernel(".maxntid 32, 1, 1", ".shared .align 4 .b8 s[4];",
                        "mov.u32 %r1, s;\nld.shared.u32 %r2, [%r1];\nst.shared.u32 [%r2], 1;\n"));
    CHECK(errLine(k) == 13);
  }
  SECTION("a memory instruction ptxmm does not model") {
    auto k = one(kernel(".maxntid 32, 1, 1", ".shared .align 4 .b8 s[64];",
                        "mov.u32 %r1, s;\nldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r2}, [%r1];\n"));
    CHECK(errLine(k) == 12);
  }
  SECTION("recursion") {
    std::string t =
        ".version 8.0\n.target sm_90a\n.address_size 64\n.func f()\n{\ncall f;\nret;\n}\n"
        ".visible .entry k()\n.maxntid 32, 1, 1\n{\ncall f;\nret;\n}\n";
    auto k = one(t);
    CHECK(errLine(k) == 6);
  }
  SECTION("an unbounded loop hits the step bound") {
    ExtractOptions o;
    o.maxSteps = 1000;
    auto k = one(kernel(".maxntid 32, 1, 1", "", "L:\nbra.uni L;\n"), o);
    REQUIRE(k.error.has_value());
    CHECK(k.error->message.find("more than 1000 instructions") != std::string::npos);
  }
  SECTION("an unknown kernel name") {
    ExtractOptions o;
    o.kernel = "nope";
    auto k = one(kernel(".maxntid 32, 1, 1", "", ""), o);
    CHECK(k.error.has_value());
  }
}

TEST_CASE("extract: wait loops stay loops, other branches on a wait result are refused", "[extract][wait]") {
  std::string decl = ".shared .align 8 .b8 bar[8];";
  std::string init = "mov.u32 %r1, bar;\nmbarrier.init.shared.b64 [%r1], 32;\n";
  auto k = one(kernel(".maxntid 32, 1, 1", decl,
                      init + "{\n.reg .pred P;\nW:\nmbarrier.try_wait.parity.shared::cta.b64 P, [%r1], 0;\n"
                             "selp.b32 %r2, 1, 0, P;\n}\nsetp.eq.s32 %p1, %r2, 0;\n@%p1 bra W2;\nbra.uni E;\n"
                             "W2:\nbra.uni W3;\nW3:\n{\n.reg .pred Q;\nmbarrier.try_wait.parity.shared::cta.b64 Q, "
                             "[%r1], 0;\n@!Q bra W3;\n}\nE:\n"));
  // The first wait's failure path leads to W2, then W3: not back to itself → refused.
  REQUIRE(k.error.has_value());
  CHECK(k.error->message.find("does not retry the wait") != std::string::npos);
  auto ok = one(kernel(".maxntid 32, 1, 1", decl,
                       init + "mbarrier.arrive.shared::cta.b64 _, [%r1];\n{\n.reg .pred P;\nW:\n"
                              "mbarrier.try_wait.parity.shared::cta.b64 P, [%r1], 0;\n@!P bra W;\n}\n"));
  std::string t = testText(ok);
  CHECK(t.find("W0:\n    mbarrier.try_wait.parity.shared::cta.b64 %p") != std::string::npos);
  CHECK(t.find("bra W0;") != std::string::npos);
}

TEST_CASE("extract: the side table maps every instruction line back to its PTX line", "[extract][sites]") {
  auto k = one(kernel(".maxntid 32, 1, 1", ".shared .align 4 .b8 s[4];",
                      ".loc 1 7 1\nmov.u32 %r1, s;\nst.relaxed.cta.shared.u32 [%r1], 1;\n") +
               ".file 1 \"x.cu\"\n");
  REQUIRE(k.test.has_value());
  bool found = false;
  for (const auto& [line, site] : k.test->sites)
    if (site.instruction.starts_with("st.relaxed")) {
      found = true;
      CHECK(site.ptxLine == 13);
      REQUIRE(site.source.has_value());
      CHECK(site.source->line == 7);
    }
  CHECK(found);
}

TEST_CASE("extract: no input crashes the reader or the extractor (mutations of a valid module)", "[extract][fuzz]") {
  std::string base = kernel(".maxntid 64, 1, 1", ".shared .align 8 .b8 bar[16];\n.shared .align 16 .b8 buf[64];",
                            "mov.u32 %r1, %tid.x;\nmov.u32 %r2, bar;\nsetp.ne.s32 %p1, %r1, 0;\n@%p1 bra A;\n"
                            "mbarrier.init.shared.b64 [%r2], 32;\nA:\nbar.sync 0;\n{\n.reg .pred P;\nW:\n"
                            "mbarrier.try_wait.parity.shared::cta.b64 P, [%r2], 0;\n@!P bra W;\n}\n"
                            "mov.u32 %r3, buf;\nst.shared.u32 [%r3], %r1;\ncall f;\n");
  std::mt19937 rng(15);
  const std::string alphabet = "{}[]();,.%@!+-|<>:0123456789abrxyzLW_ \n\"";
  ExtractOptions o;
  o.maxSteps = 20000;
  for (int i = 0; i < 400; ++i) {
    std::string t = base;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t p = rng() % (t.size() + 1);
      switch (rng() % 3) {
        case 0: t.insert(p, 1, alphabet[rng() % alphabet.size()]); break;
        case 1:
          if (p < t.size()) t.erase(p, 1 + rng() % 8);
          break;
        default:
          if (p < t.size()) t[p] = alphabet[rng() % alphabet.size()];
      }
    }
    try {
      auto m = readModule(t, "m.ptx");
      (void)extractModule(m, o);
    } catch (const DiagnosticError&) {
    }
  }
  SUCCEED("400 mutated modules read and extracted without a crash");
}

TEST_CASE("extract: a loop whose exit depends on a loaded predicate runs --iterations laps as litmus branches",
          "[extract][fork]") {
  // The work-stealing shape: try_cancel, wait, read the response, exit unless a cluster was cancelled.
  std::string body =
      "mov.u32 %r1, %tid.x;\nmov.u32 %r2, bar;\nmov.u32 %r3, resp;\nsetp.ne.s32 %p1, %r1, 0;\n@%p1 bra I;\n"
      "mbarrier.init.shared.b64 [%r2], 1;\nI:\nbar.sync 0;\nmov.u32 %r4, 0;\n"
      "L:\nbar.sync 0;\n@%p1 bra S;\n"
      "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [%r3], [%r2];\n"
      "mbarrier.arrive.expect_tx.relaxed.cta.shared::cta.b64 _, [%r2], 16;\n"
      "S:\n{\n.reg .pred P;\nW:\nmbarrier.try_wait.parity.shared::cta.b64 P, [%r2], %r4;\n@!P bra W;\n}\n"
      "xor.b32 %r4, %r4, 1;\nld.shared.v2.u64 {%rd1, %rd2}, [%r3];\n"
      "{\n.reg .b128 B;\nmov.b128 B, {%rd1, %rd2};\n{\n.reg .pred Q;\n"
      "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 Q, B;\nselp.b32 %r5, 1, 0, Q;\n}\n}\n"
      "setp.eq.s32 %p2, %r5, 0;\n@%p2 bra E;\nfence.proxy.async.shared::cta;\nbra.uni L;\nE:\n";
  ExtractOptions o;
  o.iterations = 2;
  auto k = one(kernel(".maxntid 64, 1, 1", ".shared .align 16 .b8 resp[16];\n.shared .align 8 .b8 bar[8];", body), o);
  std::string t = testText(k);
  CHECK(t.find(".clc_pending 1, 2") != std::string::npos);
  CHECK(t.find("ld.shared.b128 %r") != std::string::npos);
  CHECK(t.find("@!%p") != std::string::npos);
  CHECK(count(t, "clusterlaunchcontrol.try_cancel") == 3);  // laps 1, 2 and the third that ends the path
  CHECK(t.find("END:") != std::string::npos);
}

TEST_CASE("extract: a branch on an unknown value over code with no synchronisation is skipped", "[extract][diamond]") {
  // if (data[i] > 0) out[i] = 1;  with data read from global memory: no modelled instruction inside.
  std::string body =
      "ld.param.u64 %rd1, [k_param_0];\nld.global.u32 %r1, [%rd1];\nsetp.gt.s32 %p1, %r1, 0;\n@!%p1 bra J;\n"
      "add.s32 %r2, %r1, 1;\nst.global.u32 [%rd1], %r2;\nJ:\nmov.u32 %r3, s;\nst.relaxed.cta.shared.u32 [%r3], 1;\n";
  auto k = one(kernel(".maxntid 32, 1, 1", ".shared .align 4 .b8 s[4];", body));
  CHECK(testText(k).find("st.relaxed.cta.shared.u32 [s], ") != std::string::npos);
  // The same branch over a modelled instruction is refused.
  std::string sync =
      "ld.param.u64 %rd1, [k_param_0];\nld.global.u32 %r1, [%rd1];\nsetp.gt.s32 %p1, %r1, 0;\n@!%p1 bra J;\n"
      "mov.u32 %r3, s;\nst.relaxed.cta.shared.u32 [%r3], 1;\nJ:\n";
  auto bad = one(kernel(".maxntid 32, 1, 1", ".shared .align 4 .b8 s[4];", sync));
  REQUIRE(bad.error.has_value());
  CHECK(bad.error->loc.line == 14);  // the branch
}

TEST_CASE("extract: the mbarrier ring of harness/tests/data/extract/pipeline.ptx", "[extract][ring]") {
  auto m = readModuleFile(std::string(PTXMM_SOURCE_DIR) + "/harness/tests/data/extract/pipeline.ptx");
  auto ks = extractModule(m, {});
  REQUIRE(ks.size() == 1);
  INFO((ks[0].error ? ks[0].error->str() : std::string()));
  REQUIRE(ks[0].test.has_value());
  const auto& t = *ks[0].test;
  // Producer (the elected lane of warp 0) and the consumer warp; lane 1..31 of warp 0 do nothing modelled.
  REQUIRE(t.roles.size() == 2);
  CHECK(t.roles[1].find("threads 32-63") != std::string::npos);
  // One stage stride of 128 bytes: two stage locations; empty[] expects 32 arrivals, one litmus thread makes them.
  CHECK(t.text.find("[buf_s1]") != std::string::npos);
  CHECK(t.text.find("mbarrier.init.shared.b64 [empty_0], 1;") != std::string::npos);
  // The consumers' loads of buffers only the copies write are the condition's terms.
  CHECK(!t.observed.empty());
  CHECK(t.text.find("~exists (1:%r") != std::string::npos);
  // The wait loop of the `{ }` scope with a local predicate and a selp: a litmus wait loop.
  CHECK(t.text.find("W0:") != std::string::npos);
}
