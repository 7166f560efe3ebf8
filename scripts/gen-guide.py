#!/usr/bin/env python3
"""Writes docs/guide.md: "do I need a proxy fence here?" answered idiom by idiom for kernel engineers.

The idioms below are the only hand-written part: the question, the answer, the rule with its source, the
minimal fix, and the suite tests that show the broken and the fixed form. Everything else is read from
the repository when the guide is generated, so it cannot drift from the suite:
  * each test's verdict under ptx.cat and the variants, from its .expect file (which `ptxmm check` keeps
    true: scripts/run-suite.sh fails when a verdict changes);
  * what the H100 showed, from the stored hardware results in docs/hardware/*.json (the run with the most
    instances of that test).
Usage: scripts/gen-guide.py            write docs/guide.md
       scripts/gen-guide.py --check    exit 1 if docs/guide.md is not what would be written, or if a test
                                       is missing or a "fixed" test is not clean / a "broken" one clean
"""
import glob
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "docs", "guide.md")

# (title, question, answer, rule, fix, [(test path under litmus/, "broken" | "fixed" | "variant")])
IDIOMS = [
    ("TMA load, then generic reads of the tile",
     "A TMA load (`cp.async.bulk` / `cp.async.bulk.tensor` into shared memory, complete-tx on an mbarrier) "
     "fills a tile; threads then read it with `ld.shared`. Do they need `fence.proxy.async`?",
     "**No proxy fence.** They need a successful *acquire* wait on the mbarrier phase the copy completes "
     "(the default `mbarrier.try_wait` is `.acquire.cta`). Completion of a bulk copy is followed by an "
     "implicit generic-async proxy fence, and the acquire wait makes the copy's writes visible. Reading "
     "before the wait is undefined behaviour, and a `.relaxed` wait orders nothing unless a `fence.acq_rel` "
     "(or `fence.acquire.sync_restrict::shared::cluster.cluster`) follows it. A thread that did not wait "
     "itself may read after a `bar.sync` with the thread that waited.",
     "PTX ISA §9.7.9.25.1 and §9.7.9.25.2 (completion, implicit proxy fence, reading the destination before "
     "completion is undefined), §9.7.13.15.16 (acquire wait)",
     "wait (acquire) on the full barrier before the first read:\n\n"
     "    wait: mbarrier.try_wait.parity.shared::cta.b64 p, [full], phase;\n"
     "          @!p bra wait;\n"
     "          ld.shared.u32 r0, [tile];",
     [("async/S09-tma-load-no-wait", "broken"),
      ("async/S10-tma-load-wait-relaxed", "broken"),
      ("async/S11-tma-load-nowait-then-barsync", "broken"),
      ("async/S08-tma-load-wait-acquire", "fixed"),
      ("async/S10-tma-load-wait-relaxed+fence.acq_rel", "fixed"),
      ("async/S11-tma-load-wait-then-barsync", "fixed")]),
    ("Generic writes, then a TMA store of the tile",
     "Threads write a tile with `st.shared` and one thread issues a TMA store (`cp.async.bulk.global.shared::cta`) "
     "that reads it. What is needed between the writes and the store?",
     "**`fence.proxy.async.shared::cta`** after the writes and before the store, plus a `bar.sync` when "
     "other threads wrote. The fence may sit in every writer before the barrier (the CUDA Programming "
     "Guide's TMA example) or once in the issuing thread after the barrier. A barrier alone is not enough: "
     "barriers order generic accesses only. A `.global` proxy fence does not cover a shared-memory tile.",
     "PTX ISA §8.6 (proxies), §8.9.5 (base causality does not cross proxies), §9.7.13.4 (`fence.proxy.async`, "
     "its state space); CUDA-PG §4.11 (TMA store example)",
     "    st.shared.u32 [tile], r1;\n"
     "    fence.proxy.async.shared::cta;\n"
     "    bar.sync 0;\n"
     "    @leader cp.async.bulk.global.shared::cta.bulk_group [g], [tile], 16;",
     [("async/S01-tma-store-after-st-nofence", "broken"),
      ("async/S02-tma-store-after-st-fence.global-wrong-space", "broken"),
      ("async/S05-tma-store-barsync-only", "broken"),
      ("async/S02-tma-store-after-st-fence.shared-cta", "fixed"),
      ("async/S03-cudapg-tma-store-writer-fence", "fixed"),
      ("async/S04-tma-store-issuer-fence-after-barsync", "fixed")]),
    ("Generic reads of a stage, then a TMA refill of it (pipelines, rings)",
     "In a producer/consumer ring (CUTLASS `PipelineTmaAsync` style) consumers read a stage with `ld.shared` "
     "and arrive on the stage's *empty* barrier; the producer waits on it and refills the stage by TMA. Is "
     "the release/acquire handshake on the empty barrier enough?",
     "**No: add `fence.proxy.async.shared::cta`**, either in each consumer between its last read and its "
     "arrive on the empty barrier, or in the producer between its wait and the TMA. The handshake orders "
     "generic accesses; the refill writes through the async proxy, so without the fence the read and the "
     "refill race (a read can return the next tile). The refill's own completion still needs the "
     "full-barrier wait with the parity of the phase it completes; waiting with the parity of the phase "
     "that already completed returns at once.",
     "PTX ISA §8.9.5, §9.7.13.4; §9.7.13.15.16 (a parity wait names the current or the preceding phase)",
     "    ld.shared.u32 r0, [stage];\n"
     "    fence.proxy.async.shared::cta;\n"
     "    mbarrier.arrive.shared::cta.b64 _, [empty];",
     [("async/S20-ring-refill-nofence", "broken"),
      ("async/cutlass-ring-refill-no-proxy-fence", "broken"),
      ("async/cutlass-ring-refill-missing-full-wait", "broken"),
      ("async/cutlass-ring-refill-wrong-parity", "broken"),
      ("bugs/te2695-smem-read-then-tma-refill", "broken"),
      ("async/S20-ring-refill-consumer-fence", "fixed"),
      ("async/S20-ring-refill-producer-fence", "fixed"),
      ("async/cutlass-ring-refill-consumer-fence", "fixed"),
      ("bugs/te2695-smem-read-fence-tma-refill", "fixed")]),
    ("A read of shared memory, then a TMA load or `try_cancel` into the same bytes (one thread)",
     "A thread reads X with `ld.shared` and then starts an asynchronous write of X (a TMA load, or "
     "`clusterlaunchcontrol.try_cancel` writing its response). Does program order protect the read?",
     "**No: `fence.proxy.async.shared::cta` between the read and the issue.** Asynchronous operations are "
     "not in the issuing thread's program order with respect to its generic accesses.",
     "PTX ISA §8.9.1.1 (async operations and program order), §9.7.13.4",
     "    ld.shared.u32 r0, [X];\n"
     "    fence.proxy.async.shared::cta;\n"
     "    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [X], [g], 16, [bar];",
     [("async/S13-ld-then-tma-load-nofence", "broken"),
      ("async/S13-ld-then-tma-load-fence", "fixed"),
      ("async/S13-ld-then-try_cancel-nofence", "broken"),
      ("async/S13-ld-then-try_cancel-fence", "fixed")]),
    ("Global writes, then a TMA load of them",
     "A kernel writes a global buffer with `st.global` and later TMA-loads it. Which fence?",
     "**`fence.proxy.async.global`** (or `fence.proxy.async` without a space) between the writes and the "
     "load, plus whatever synchronisation orders the writers before the issuer. A `.shared::cta` proxy fence "
     "does not cover global memory.",
     "PTX ISA §9.7.13.4 (state space of the proxy fence)",
     "    st.global.u32 [g], 1;\n"
     "    fence.proxy.async.global;\n"
     "    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [X], [g], 16, [bar];",
     [("async/S25-st.global-fence.shared-cta-tma-load", "broken"),
      ("async/S25-st.global-fence.global-tma-load", "fixed"),
      ("async/S25-st.global-fence-all-tma-load", "fixed")]),
    ("Distributed shared memory, then an async read in the other CTA",
     "CTA 0 writes into CTA 1's shared memory (DSMEM, `st.shared::cluster`); after a cluster barrier CTA 1 "
     "TMA-stores it. Where does the proxy fence go?",
     "**In the issuing thread of CTA 1, after the cluster barrier** (`fence.proxy.async.shared::cta`, or the "
     "one-way `fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster`). A fence in the "
     "writer alone is enough under `ptx.cat`'s reading of the PTX text, but not under the ISCA'22 model "
     "(variant `ptx-cta-proxy-fence`: proxy fences act within their CTA), so do not rely on it.",
     "PTX ISA §8.9.5 (proxy-preserved base causality), §9.7.13.4; ISCA'22 mixed-proxy model",
     "    barrier.cluster.arrive;\n"
     "    barrier.cluster.wait;\n"
     "    fence.proxy.async.shared::cta;\n"
     "    cp.async.bulk.global.shared::cta.bulk_group [g], [X], 16;",
     [("async/S06-dsmem-no-fence", "broken"),
      ("async/S06-dsmem-writer-fence-only", "variant"),
      ("async/S07-dsmem-issuer-acquire-proxy-fence", "fixed"),
      ("async/S07-dsmem-issuer-fence-after-cluster-barrier", "fixed")]),
    ("TMA store, then reusing the tile or publishing the result",
     "After a TMA store (`bulk_group` completion), when may the tile be overwritten, and when may another "
     "CTA be told the global result is ready?",
     "**`cp.async.bulk.wait_group.read 0`** before overwriting the source tile; **`cp.async.bulk.wait_group 0`** "
     "(the full wait, not `.read`) before a release that publishes the global result. `.read` only says the "
     "source has been read.",
     "PTX ISA §9.7.9.25.6.2 (`wait_group` and `.read`), §9.7.9.25.1 (writing the source before completion "
     "is undefined)",
     "    cp.async.bulk.commit_group;\n"
     "    cp.async.bulk.wait_group 0;\n"
     "    st.release.gpu.global.u32 [flag], 1;",
     [("async/S26-tma-store-read-wait-publish", "broken"),
      ("async/S26-tma-store-full-wait-publish", "fixed"),
      ("bugs/deepep657-wait_group.read-wrong-count", "broken"),
      ("bugs/deepep657-wait_group.read-0", "fixed"),
      ("async/S24-tma-load-no-wait-tma-store", "broken"),
      ("async/S24-tma-load-wait-tma-store", "fixed")]),
    ("Reusing the `try_cancel` response slot (cluster launch control)",
     "A work-stealing loop reads the 16-byte `clusterlaunchcontrol.try_cancel` response with `ld.shared` and "
     "issues the next `try_cancel` into the same slot. What orders the reads before the next response?",
     "**Proxy fences around a barrier**: every reader runs "
     "`fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster` (or a bi-directional "
     "`fence.proxy.async.shared::cta`), then `bar.sync` / a non-relaxed cluster barrier, then the issuer runs "
     "`fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster` before `try_cancel`. A "
     "barrier alone races, and a `.relaxed` cluster arrive releases nothing. The response must be read "
     "only after an acquire wait on its mbarrier (cluster scope).",
     "PTX ISA §9.7.13.17 (`try_cancel`), §9.7.13.4, §9.7.13.3 (cluster barrier semantics); CUDA-PG §4.12",
     "    ld.shared.b128 handle, [resp];\n"
     "    fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster;\n"
     "    barrier.cluster.arrive;            // default .release, not .relaxed\n"
     "    barrier.cluster.wait;\n"
     "    @leader fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster;\n"
     "    @leader clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [resp], [bar];",
     [("async/S15-clc-cta-reuse-barsync-only", "broken"),
      ("async/S16-clc-cluster-reuse-barrier-only", "broken"),
      ("seeds/clc-try-cancel-ptx-v1", "broken"),
      ("async/S17-try_cancel-no-wait", "broken"),
      ("async/S14-clc-cta-reuse-relacq-pair", "fixed"),
      ("async/S16-clc-cluster-reuse-relacq-pair", "fixed"),
      ("seeds/clc-try-cancel-ptx-v2", "fixed"),
      ("async/S17-try_cancel-wait-then-read", "fixed")]),
    ("Updating a tensor map in global memory",
     "A kernel modifies a tensor map (`tensormap.replace` or plain stores) and then TMA uses it, in the same "
     "thread or after a flag from another CTA. What is needed?",
     "**The tensormap proxy-fence pair**: `fence.proxy.tensormap::generic.release.<scope>` after the update, "
     "and `fence.proxy.tensormap::generic.acquire.<scope> [tmap], 128` of *that* map before the TMA that "
     "uses it — also for maps written before the kernel started (launch ordering does not cover the "
     "tensormap proxy).",
     "PTX ISA §9.7.13.4 (tensormap proxy fences), §8.9.4 (kernel boundaries and the tensormap proxy)",
     "    tensormap.replace.tile.global_address.global.b1024.b64 [tmap], addr;\n"
     "    fence.proxy.tensormap::generic.release.gpu;\n"
     "    st.release.gpu.global.u32 [flag], 1;\n"
     "    // consumer, after acquiring the flag:\n"
     "    fence.proxy.tensormap::generic.acquire.gpu [tmap], 128;",
     [("async/S27-tensormap-replace-no-release", "broken"),
      ("async/S27-tensormap-replace-no-acquire", "broken"),
      ("async/S27-tensormap-acquire-other-map", "broken"),
      ("async/S27-tensormap-cross-kernel-no-acquire", "broken"),
      ("async/S27-tensormap-replace-relacq", "fixed"),
      ("async/S27-tensormap-cross-kernel-acquire", "fixed")]),
    ("`cp.async` (non-bulk), then reads of the destination",
     "`cp.async` copies into shared memory; when may this thread, and other threads, read the data?",
     "**No proxy fence** (`cp.async` writes through the generic proxy), but a wait: `cp.async.wait_all` or "
     "`commit_group` + `wait_group N` covering the copy in the issuing thread, then `bar.sync` for other "
     "threads; or `cp.async.mbarrier.arrive` and an acquire wait on that mbarrier. A barrier without the "
     "wait does not cover the copy.",
     "PTX ISA §9.7.9.25.3.3 (`wait_group` / `wait_all`), §9.7.13.15.15 (`cp.async.mbarrier.arrive`)",
     "    cp.async.ca.shared.global [X], [g], 4;\n"
     "    cp.async.wait_all;\n"
     "    bar.sync 0;",
     [("async/S21-cp.async-no-wait", "broken"),
      ("async/S22-cp.async-barsync-no-wait", "broken"),
      ("async/S23-cp.async-plain-mbarrier-arrive", "broken"),
      ("async/S21-cp.async-wait_all", "fixed"),
      ("async/S22-cp.async-wait_all-barsync", "fixed"),
      ("async/S23-cp.async-mbarrier-arrive-noinc", "fixed")]),
    ("Initialising and reusing an mbarrier",
     "One thread runs `mbarrier.init`; others arrive and wait. And a barrier is reused phase after phase.",
     "**Generic synchronisation only** (the mbarrier word is always accessed through the generic proxy): a "
     "`bar.sync` after the init (`fence.mbarrier_init.release.cluster` + cluster barrier for other CTAs). "
     "Every phase needs a successful wait before arrivals of the next phase.",
     "PTX ISA §9.7.13.15 (phases), §9.7.13.15.16 (waits), §9.7.13.4 (`fence.mbarrier_init`)",
     "    @leader mbarrier.init.shared::cta.b64 [bar], 1;\n"
     "    bar.sync 0;",
     [("async/S18-mbarrier-init-unsynchronized", "broken"),
      ("async/S19-mbarrier-phase-reuse-ub", "broken"),
      ("async/S18-mbarrier-init-barsync", "fixed"),
      ("async/S19-mbarrier-phase-handshake", "fixed")]),
    ("Bulk reductions, DSMEM bulk copies and TMA tensor stores",
     "Threads write a tile with `st.shared`, then one thread reduces it into global memory "
     "(`cp.reduce.async.bulk` / `.tensor`), stores it through a tensor map (`cp.async.bulk.tensor` "
     "`.global.shared::cta`) or copies it into another CTA of the cluster (`cp.async.bulk.shared::cluster"
     ".shared::cta`). What is needed around it?",
     "**A proxy fence before, a wait after.** The source is read through the async proxy: "
     "`fence.proxy.async.shared::cta` after the generic writes (and `bar.sync` before it for other "
     "threads' writes). The tile may be rewritten only after `cp.async.bulk.wait_group.read` (bulk group) "
     "— by any thread: another thread's write while the copy is in flight is undefined behaviour, not just "
     "a race. A DSMEM copy or reduction completes on the destination CTA's mbarrier: the destination CTA "
     "arms it with `expect_tx` and waits with the right parity before reading. `cp.async.bulk.prefetch` "
     "orders nothing.",
     "PTX ISA §9.7.9.25.2 (async proxy), §9.7.9.25.1 (modifying the source or reading the destination before "
     "completion is undefined), §9.7.9.25.4.2 (`cp.reduce.async.bulk`: `.relaxed.gpu` reductions), "
     "§9.7.9.25.6.2 (`wait_group.read`)",
     "    st.shared.u32 [tile], v;\n"
     "    fence.proxy.async.shared::cta;\n"
     "    cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [out], [tile], 16;\n"
     "    cp.async.bulk.commit_group;\n"
     "    cp.async.bulk.wait_group.read 0;   // before the tile is rewritten",
     [("bulk/B01-reduce-after-st-nofence", "broken"),
      ("bulk/B02-reduce-overwrite-before-wait", "broken"),
      ("bulk/B04-tensor-store-after-st-nofence", "broken"),
      ("bulk/B05-dsmem-copy-no-wait", "broken"),
      ("bulk/B07-bulk-source-rewrite-other-thread-in-flight", "broken"),
      ("bulk/B01-reduce-after-st-fence", "fixed"),
      ("bulk/B02-reduce-wait-read-then-overwrite", "fixed"),
      ("bulk/B03-reduce-dsmem-wait", "fixed"),
      ("bulk/B04-tensor-store-after-st-fence", "fixed"),
      ("bulk/B05-dsmem-copy-wait", "fixed"),
      ("bulk/B07-bulk-source-rewrite-other-thread-after-wait", "fixed")]),
    ("Publishing a tensor map built in shared memory (`tensormap.cp_fenceproxy`)",
     "A thread edits a tensor map in shared memory, copies it to global memory with "
     "`tensormap.cp_fenceproxy...release.<scope>` and signals other threads, which then use the map in TMA. "
     "Who performs the acquire?",
     "**The thread block that uses the map.** `tensormap.cp_fenceproxy` is the copy plus the release half; "
     "`fence.proxy.tensormap::generic.acquire.<scope> [tmap], 128` must be executed in the same thread block "
     "as the TMA that uses the map (by that thread, or by another thread of its block before a "
     "synchronisation) — an acquire in another CTA of the cluster is not enough. Also: the instruction is "
     "`.sync.aligned` and one execution by the warp copies **one** map — give every lane the same `[tmap]` and "
     "`[smap]`. On the H100 (ptxas 13.0) lane i copies bytes 4i..4i+3, so a warp whose lanes pass different "
     "maps writes 4 bytes of each and leaves the rest stale (docs/hardware/README.md, B06).",
     "PTX ISA §9.7.13.16 (`tensormap.cp_fenceproxy`, `.aligned`: all threads of the warp execute the same "
     "instruction), §9.7.13.4 (tensormap proxy fences); CUDA Programming "
     "Guide §10.30.2 (the acquiring thread and the using thread in the same thread block)",
     "    tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.cluster.sync.aligned [tmap], [smap], 128;\n"
     "    st.release.cluster.global.u32 [flag], 1;\n"
     "    // in the block that uses the map, after acquiring the flag:\n"
     "    fence.proxy.tensormap::generic.acquire.cluster [tmap], 128;",
     [("bulk/B06-cp_fenceproxy-no-acquire", "broken"),
      ("bulk/B06-cp_fenceproxy-acquire-other-cta", "broken"),
      ("bulk/B06-cp_fenceproxy-acquire-by-user", "fixed"),
      ("bulk/B06-cp_fenceproxy-acquire-same-cta", "fixed")]),
]

NOT_COVERED = [
    ("`wgmma` operands written with `st.shared`",
     "`wgmma.mma_async` reads shared-memory operands through the async proxy, so generic writes of them need "
     "`fence.proxy.async.shared::cta` (and `wgmma.fence` for register operands) before the `wgmma`. ptxmm does "
     "not model `wgmma` yet, so there is no test to show it."),
    ("`tcgen05` (sm_100)", "Not modelled yet."),
    ("`st.async` / `red.async`",
     "Not in this guide yet (the CUDA guide treats `st.async`/`red.async` as generic-proxy operations)."),
]


def read_expect(test):
    """{model: (observation, flags tuple, reason)} from the test's .expect file."""
    path = os.path.join(ROOT, "litmus", test + ".expect")
    out = {}
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#") or ":" not in line:
                continue
            model, rest = line.split(":", 1)
            verdict = rest.split("|", 1)[0].split()
            out[model.strip()] = (verdict[0], tuple(verdict[1:]))
    return out


def hardware_results():
    """test name -> the stored hardware result with the most instances (and its file)."""
    best = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "docs", "hardware", "*.json"))):
        try:
            with open(path) as f:
                data = json.load(f)
        except (OSError, ValueError):
            continue
        if not isinstance(data, dict) or "results" not in data:
            continue
        for r in data["results"]:
            name = r.get("test")
            if not name:
                continue
            cur = best.get(name)
            if cur is None or (r.get("instances") or 0) > (cur[0].get("instances") or 0):
                best[name] = (r, os.path.basename(path))
    return best


def observed(test, hw, verdict):
    name = os.path.basename(test)
    if name not in hw:
        return "not run yet"
    r, file = hw[name]
    if r.get("status") != "ok":
        reason = r.get("reason") or r.get("status")
        return f"not run: {reason}"
    n = r.get("instances") or 0
    pos = r.get("positive") or 0
    link = f"[{file}](hardware/{file})"
    if pos and verdict[0] == "Never":
        # The model forbids it: never present this as an ordinary observation.
        return (f"**forbidden by the model, yet seen {pos:,} times in {n:,}** ({link}; not explained yet: "
                f"[hardware/README.md](hardware/README.md))")
    if pos:
        return f"outcome seen {pos:,} times in {n:,} ({link})"
    return f"never observed in {n:,} ({link})"


def verdict_text(v):
    obs, flags = v
    return obs + "".join(" " + f for f in flags)


def render(problems):
    hw = hardware_results()
    lines = [
        "# Do I need a proxy fence here? A guide for kernel engineers",
        "",
        "<!-- generated by scripts/gen-guide.py from its idiom table, the suite's .expect files and the stored",
        "     hardware results; edit the script, not this file -->",
        "",
        "Each idiom below gives the answer, the rule it follows (PTX ISA 9.2 section numbers; CUDA-PG = CUDA C++",
        "Programming Guide; ISCA'22 = the mixed-proxy model of Lustig et al.), the minimal fix, and the litmus",
        "tests of the suite that show the broken and the fixed form with `ptx.cat`'s verdict and what an H100",
        "showed. Run a test yourself with `ptxmm check TEST`; for a broken one, `ptxmm fences --repair TEST`",
        "prints the racing instructions and the cheapest verified fix as a diff. The rules are summarised in",
        "[models/README.md](../models/README.md) (\"Rules and idiom shapes relied on\").",
        "",
        "Verdicts: **Never** = the stale/racy outcome of the test's condition cannot happen; **Sometimes** = it",
        "can; `+data-race` / `+undefined` / `+deadlock` = flags raised in some execution. A test is *clean* when",
        "it is Never with no flag. \"outcome seen\" counts the instances whose final state satisfies the test's",
        "`exists` condition.",
        "",
        "## Contents",
        "",
    ]
    for i, idiom in enumerate(IDIOMS, 1):
        lines.append(f"{i}. [{idiom[0]}](#{i}-" + anchor(idiom[0]) + ")")
    lines.append(f"{len(IDIOMS) + 1}. [Not covered yet](#{len(IDIOMS) + 1}-not-covered-yet)")
    lines.append("")
    for i, (title, question, answer, rule, fix, tests) in enumerate(IDIOMS, 1):
        lines += [f"## {i}. {title}", "", question, "", answer, "", f"*Rule:* {rule}.", "", "*Minimal fix:*", ""]
        lines += [fix if fix.startswith("    ") else fix, ""]
        lines += ["| test | form | ptx.cat | variants that differ | H100 |", "|---|---|---|---|---|"]
        for test, form in tests:
            path = os.path.join(ROOT, "litmus", test + ".litmus")
            if not os.path.exists(path):
                problems.append(f"{title}: test litmus/{test}.litmus does not exist")
                continue
            exp = read_expect(test)
            if "ptx" not in exp:
                problems.append(f"{title}: litmus/{test}.expect has no ptx line")
                continue
            clean = exp["ptx"] == ("Never", ())
            if form == "fixed" and not clean:
                problems.append(f"{title}: {test} is listed as fixed but ptx.cat says {verdict_text(exp['ptx'])}")
            if form == "broken" and clean:
                problems.append(f"{title}: {test} is listed as broken but ptx.cat says Never")
            others = ", ".join(f"{m}: {verdict_text(v)}" for m, v in sorted(exp.items())
                               if m != "ptx" and v != exp["ptx"])
            lines.append(f"| [{os.path.basename(test)}](../litmus/{test}.litmus) | {form} | "
                         f"{verdict_text(exp['ptx'])} | {others or '-'} | {observed(test, hw, exp['ptx'])} |")
        lines.append("")
    lines += [f"## {len(IDIOMS) + 1}. Not covered yet", ""]
    for title, text in NOT_COVERED:
        lines.append(f"* **{title}.** {text}")
    lines.append("")
    return "\n".join(lines)


def anchor(title):
    out = []
    for c in title.lower():
        if c.isalnum() or c in "-_":
            out.append(c)
        elif c == " ":
            out.append("-")
    return "".join(out)


def main():
    check = "--check" in sys.argv[1:]
    problems = []
    text = render(problems)
    for p in problems:
        print(f"gen-guide: {p}", file=sys.stderr)
    if check:
        try:
            with open(OUT) as f:
                current = f.read()
        except OSError:
            current = ""
        if current != text:
            print("gen-guide: docs/guide.md is out of date: run scripts/gen-guide.py", file=sys.stderr)
            return 1
        return 1 if problems else 0
    with open(OUT, "w") as f:
        f.write(text)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
