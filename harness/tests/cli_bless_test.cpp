// `ptxmm check --bless`: writing the `.expect` files from the verdicts, run as a user runs it.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "CliTestSupport.hpp"

namespace fs = std::filesystem;
using cli_test::kMP;
using cli_test::Run;
using cli_test::Scratch;
using cli_test::slurp;

namespace {

const std::string kTodo = "TODO: explain this verdict (written by ptxmm check --bless)";

// Message passing with release/acquire: the stale read is never observed under ptx.cat.
const char* kMPRelAcq = R"(PTX MP+rel+acq
{ x = 0; y = 0 }
 P0@cta 0,gpu 0      | P1@cta 1,gpu 0       ;
 st.relaxed.gpu x, 1 | ld.acquire.gpu r0, y ;
 st.release.gpu y, 1 | ld.relaxed.gpu r1, x ;
exists (1:r0 == 1 /\ 1:r1 == 0)
)";

// Slow enough for a 1 ms timeout (cli_outputs_test.cpp's timeout test).
const char* kCoW3x2 = R"(PTX CoW3x2
{ x = 0 }
 P0@cta 0,gpu 0       | P1@cta 1,gpu 0       | P2@cta 2,gpu 0       ;
 st.relaxed.gpu x, 1  | st.relaxed.gpu x, 3  | st.relaxed.gpu x, 5  ;
 st.relaxed.gpu x, 2  | st.relaxed.gpu x, 4  | st.relaxed.gpu x, 6  ;
 ld.relaxed.gpu r0, x | ld.relaxed.gpu r0, x | ld.relaxed.gpu r0, x ;
exists (0:r0 == 1 /\ 1:r0 == 3 /\ 2:r0 == 5)
)";

const char* kBroken = R"(PTX Broken
{ x = 0 }
 P0@cta 0,gpu 0 ;
 st.bogus x, 1  ;
exists (x == 1)
)";

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("check --bless creates a missing .expect with a TODO reason", "[cli][bless]") {
  Scratch s("bless-create");
  fs::path test = s.write("mp.litmus", kMP);
  fs::path expect = s.dir / "mp.expect";
  Run r = s.ptxmm("check --bless --model ptx " + test.string());
  INFO(r.out << r.err);
  CHECK(r.rc == 0);
  CHECK(has(r.out, "Observation MP Sometimes"));  // the normal verdict output still appears
  CHECK(has(r.err, "BLESS " + expect.string() + ": created\n"));
  CHECK_FALSE(has(r.err, "NOEXPECT"));
  CHECK(has(r.out, "1 passed, 0 failed, 1 blessed (1 created, 0 updated, 0 unchanged)"));
  CHECK(slurp(expect) == "ptx: Sometimes | " + kTodo + "\n");
  // No temporary file is left beside it.
  int entries = 0;
  for (const auto& e : fs::directory_iterator(s.dir)) entries += e.path().filename().string().find(".bless-") == 0;
  CHECK(entries == 0);
}

TEST_CASE("check --bless leaves a matching line and its file untouched", "[cli][bless]") {
  Scratch s("bless-unchanged");
  fs::path test = s.write("mp.litmus", kMP);
  // Comments, padding, trailing blanks and a CRLF line: all kept byte for byte.
  const std::string text = "# relaxed MP\r\nptx: Sometimes   | PTX ISA §8.8: relaxed accesses do not order  \n\n";
  fs::path expect = s.write("mp.expect", text);
  auto mtime = fs::last_write_time(expect);
  Run r = s.ptxmm("check --bless --model ptx " + test.string());
  INFO(r.out << r.err);
  CHECK(r.rc == 0);
  CHECK(has(r.err, "BLESS " + expect.string() + ": unchanged\n"));
  CHECK(has(r.out, "1 passed, 0 failed, 1 blessed (0 created, 0 updated, 1 unchanged)"));
  CHECK(slurp(expect) == text);
  CHECK(fs::last_write_time(expect) == mtime);  // not even rewritten
}

TEST_CASE("check --bless updates a changed verdict and keeps the old reason", "[cli][bless]") {
  Scratch s("bless-updated");
  fs::path test = s.write("mp.litmus", kMP);
  fs::path expect = s.write("mp.expect", "ptx: Never +data-race | hand-written: release/acquire orders it\n");
  fs::permissions(expect, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  Run r = s.ptxmm("check --bless --model ptx " + test.string());
  INFO(r.out << r.err);
  CHECK(r.rc == 0);
  CHECK(has(r.err, "BLESS " + expect.string() + ": updated (was Never +data-race)\n"));
  CHECK_FALSE(has(r.err, "FAIL"));
  CHECK(has(r.out, "1 passed, 0 failed, 1 blessed (0 created, 1 updated, 0 unchanged)"));
  CHECK(slurp(expect) ==
        "ptx: Sometimes | " + kTodo + " (was: Never +data-race: hand-written: release/acquire orders it)\n");
  // The file keeps its permissions although it was replaced by a rename.
  CHECK(fs::status(expect).permissions() == (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read));

  // Blessing a TODO line again records the verdict it had, not the bare marker.
  s.write("mp.expect", "ptx: Always | " + kTodo + "\n");
  Run again = s.ptxmm("check --bless --model ptx " + test.string());
  INFO(again.out << again.err);
  CHECK(slurp(expect) == "ptx: Sometimes | " + kTodo + " (was: Always)\n");
}

TEST_CASE("check --bless keeps other models' lines and comments in order", "[cli][bless]") {
  Scratch s("bless-others");
  fs::path test = s.write("mp.litmus", kMP);
  fs::path expect = s.write("mp.expect",
                            "# MP, three models\n"
                            "sc: Never | sequential consistency forbids the stale read\n"
                            "\n"
                            "  ptx: Never | wrong on purpose\n"
                            "# the strict-scope variant\n"
                            "ptx-strict-scope: Sometimes | relaxed accesses do not order (PTX ISA §8.8)\n");
  Run r = s.ptxmm("check --bless --model ptx " + test.string());
  INFO(r.out << r.err);
  CHECK(r.rc == 0);
  CHECK(slurp(expect) ==
        "# MP, three models\n"
        "sc: Never | sequential consistency forbids the stale read\n"
        "\n"
        "  ptx: Sometimes | " +
            kTodo +
            " (was: Never: wrong on purpose)\n"
            "# the strict-scope variant\n"
            "ptx-strict-scope: Sometimes | relaxed accesses do not order (PTX ISA §8.8)\n");

  // A file without a line for the model gets one at the end (after a missing final newline too).
  fs::path other = s.write("rel.expect", "# comment\nsc: Never | SC forbids it");
  fs::path rel = s.write("rel.litmus", kMPRelAcq);
  Run add = s.ptxmm("check --bless --model ptx " + rel.string());
  INFO(add.out << add.err);
  CHECK(add.rc == 0);
  CHECK(has(add.err, "BLESS " + other.string() + ": updated (was no line for ptx)\n"));
  CHECK(slurp(other) == "# comment\nsc: Never | SC forbids it\nptx: Never | " + kTodo + "\n");
}

TEST_CASE("check --bless never writes for a test that errors or is undecided", "[cli][bless]") {
  Scratch s("bless-errors");
  s.write("d/broken.litmus", kBroken);
  const std::string brokenExpect = "ptx: Never | hand-written\n";
  s.write("d/broken.expect", brokenExpect);
  s.write("d/unknown.litmus", kMP);  // refused by --max-events: status unknown
  s.write("u/mp.litmus", kMP);
  const std::string badExpect = "ptx: Nevr | typo\n";  // a bad .expect is an error too
  fs::path bad = s.write("u/mp.expect", badExpect);
  s.write("t/cow.litmus", kCoW3x2);  // times out
  for (const auto& [dir, options] : std::vector<std::pair<std::string, std::string>>{
           {"d", "--max-events 3 "}, {"u", ""}, {"t", "--engine smt --max-states 100000 --timeout 1ms "}}) {
    std::string args = options + (s.dir / dir).string();
    Run plain = s.ptxmm("check --model ptx " + args);
    Run blessed = s.ptxmm("check --bless --model ptx " + args);
    INFO(dir << "\n" << blessed.out << blessed.err);
    CHECK(blessed.rc == plain.rc);
    CHECK(blessed.rc != 0);
    CHECK(has(blessed.err, "FAIL "));
    CHECK_FALSE(has(blessed.err, "BLESS"));
    CHECK(has(blessed.out, ", 0 blessed (0 created, 0 updated, 0 unchanged)"));
  }
  CHECK(slurp(s.dir / "d/broken.expect") == brokenExpect);
  CHECK_FALSE(fs::exists(s.dir / "d/unknown.expect"));
  CHECK(slurp(bad) == badExpect);
  CHECK_FALSE(fs::exists(s.dir / "t/cow.expect"));
}

TEST_CASE("check warns about a TODO reason without failing the test", "[cli][bless]") {
  Scratch s("bless-todo");
  fs::path test = s.write("mp.litmus", kMP);
  fs::path expect = s.write("mp.expect", "# written by --bless\nptx: Sometimes | " + kTodo + "\n");
  Run r = s.ptxmm("check --model ptx " + test.string());
  INFO(r.out << r.err);
  CHECK(r.rc == 0);
  CHECK(has(r.err, expect.string() + ":2: warning: reason not written yet\n"));
  CHECK(has(r.out, "1 passed, 0 failed\n"));
  // A written reason gets no warning.
  s.write("mp.expect", "ptx: Sometimes | relaxed accesses do not order (PTX ISA §8.8)\n");
  Run ok = s.ptxmm("check --model ptx " + test.string());
  CHECK_FALSE(has(ok.err, "warning"));
}

TEST_CASE("a blessed suite passes a normal check", "[cli][bless]") {
  Scratch s("bless-roundtrip");
  s.write("t/mp.litmus", kMP);
  s.write("t/rel.litmus", kMPRelAcq);
  s.write("t/rel.expect", "ptx: Sometimes +data-race | outdated\n");
  Run before = s.ptxmm("check --engine both --model ptx " + (s.dir / "t").string());
  CHECK(before.rc == 1);
  CHECK(has(before.out, "0 passed, 1 failed, 1 without expectation"));
  Run blessed = s.ptxmm("check --engine both --bless --json --model ptx " + (s.dir / "t").string());
  INFO(blessed.out << blessed.err);
  CHECK(blessed.rc == 0);
  CHECK(has(blessed.out, R"("blessed":{"created":1,"unchanged":0,"updated":1})"));
  Run after = s.ptxmm("check --engine both --model ptx " + (s.dir / "t").string());
  INFO(after.out << after.err);
  CHECK(after.rc == 0);
  CHECK(has(after.out, "2 passed, 0 failed\n"));
  CHECK(has(after.err, "mp.expect:1: warning: reason not written yet"));
  CHECK(has(after.err, "rel.expect:1: warning: reason not written yet"));
  // Blessing again changes nothing.
  Run again = s.ptxmm("check --bless --model ptx " + (s.dir / "t").string());
  CHECK(has(again.out, "2 passed, 0 failed, 2 blessed (0 created, 0 updated, 2 unchanged)"));
}
