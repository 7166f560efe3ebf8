#!/usr/bin/env python3
"""Generate the scaling families of docs/performance.md (issue 14): pipelines as CUTLASS-style kernels
write them, straight-line over N iterations and correctly synchronised (every member's verdict is Never
with no flag, so the checker has to prove the whole pipeline safe), and a many-final-state coherence
family.

  ring-K{K}-N{N}: a K-stage TMA ring, one producer thread and one consumer thread of one CTA. Iteration i
  uses stage s = i % K and lap l = i // K. The producer waits on empty[s] for the consumer's release of
  lap l-1 (from lap 1 on), arms full[s] with the byte count and issues a TMA load of g{i} into buf{s}. The
  consumer waits on full[s] with the parity of lap l, reads buf{s}, orders the read before the next refill
  with fence.proxy.async.shared::cta and arrives on empty[s]. The condition asks for a stale or early value.
  ring2c-K{K}-N{N}: the same with two consumer threads (warp-specialised ping-pong, each in its own warp):
  consumer c takes the iterations i with i % 2 == c, and the consumer of an iteration is the one that
  arrives on its stage's empty barrier (every barrier expects one arrival).
  ringmc-K{K}-N{N}: a 2-CTA cluster. The producer (CTA 0) arms full[s] of both CTAs (the remote one through
  shared::cluster) and issues one multicast TMA (ctaMask 3) per iteration; one consumer per CTA waits on its
  CTA's full[s] (.acquire.cluster: the complete-tx of a multicast is .release.cluster), reads, fences and
  arrives .release.cluster on CTA 0's empty[s], a cluster-scope barrier expecting both arrivals; the
  producer's empty wait is .acquire.cluster.
  cpasync-K{K}-N{N}: the unrolled cp.async multistage pipeline of one thread (CUTLASS sm80 mainloop):
  a prologue issues K-1 stages (one commit group each); iteration i waits with cp.async.wait_group K-2,
  reads buf{i%K} and issues the load of iteration i+K-1 into the stage read in iteration i-1 (a commit
  group per iteration, empty past the end). K = 1 issues, commits and waits (wait_group 0) per iteration.
  cow-W{W}-R{R}: many final states: W writer threads each write x twice (2w+1, 2w+2), R reader threads read
  x twice; the condition (a reader seeing the second write of a thread before its first) is coherence-
  forbidden, so the checker enumerates every final state to prove it (cow-W3-R2 has 1,546).

Usage: bench/gen-pipelines.py OUTDIR [FAMILY:K:N | cow:W:R ...]   (default: the whole benchmark set)
Prints one path per generated test, with its family and size: "path<TAB>family<TAB>K<TAB>N".
"""
import argparse
import os

CTA0 = "cta 0,cluster 0,gpu 0"


def wait(label, pred, bar, parity, sem=""):
    """A blocking parity wait (try_wait in a spin loop), `sem` the qualifiers after .parity."""
    return [f"{label}:", f"    mbarrier.try_wait.parity{sem}.shared::cta.b64 {pred}, [{bar}], {parity};",
            f"    @!{pred} bra {label};"]


def ring(k, n, consumers=1):
    name = f"ring{'' if consumers == 1 else str(consumers) + 'c'}-K{k}-N{n}"
    init = [f".shared buf{s} = 0" for s in range(k)]
    init += [f".global g{i} = {i + 1}" for i in range(n)]
    init += [f".mbarrier full{s} = 1" for s in range(k)] + [f".mbarrier empty{s} = 1" for s in range(k)]
    prod = [f"P0@{CTA0},warp 0:" if consumers > 1 else f"P0@{CTA0}:"]
    cons = [[f"P{c + 1}@{CTA0},warp {c + 1}:" if consumers > 1 else f"P{c + 1}@{CTA0}:"] for c in range(consumers)]
    for i in range(n):
        s, lap = i % k, i // k
        if lap > 0:
            prod += wait(f"e{i}", f"pe{i}", f"empty{s}", (lap - 1) % 2)
        prod += [f"    mbarrier.arrive.expect_tx.shared::cta.b64 _, [full{s}], 16;",
                 f"    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf{s}], [g{i}], 16, [full{s}];"]
        c = cons[i % consumers]
        c += wait(f"f{i}", f"pf{i}", f"full{s}", lap % 2) + [
              f"    ld.shared.u32 r{i}, [buf{s}];",
              "    fence.proxy.async.shared::cta;",
              f"    mbarrier.arrive.shared::cta.b64 _, [empty{s}];"]
    cond = " \\/ ".join(f"{(i % consumers) + 1}:r{i} != {i + 1}" for i in range(n))
    return name, text(name, f"{k}-stage TMA ring, {n} iterations, {consumers} consumer(s)", init, [prod] + cons, cond)


def ring_cluster(k, n):
    name = f"ringmc-K{k}-N{n}"
    init = [f".shared buf{s} = 0" for s in range(k)]
    init += [f".global g{i} = {i + 1}" for i in range(n)]
    init += [f".mbarrier full{s} = 1" for s in range(k)] + [f".mbarrier empty{s}@cta0 = 2" for s in range(k)]
    prod = [f"P0@{CTA0},warp 0:"]
    cons = [[f"P1@{CTA0},warp 1:"], ["P2@cta 1,cluster 0,gpu 0:"]]
    for i in range(n):
        s, lap = i % k, i // k
        if lap > 0:
            prod += wait(f"e{i}", f"pe{i}", f"empty{s}", (lap - 1) % 2, ".acquire.cluster")
        prod += [f"    mbarrier.arrive.expect_tx.relaxed.cluster.shared::cluster.b64 _, [full{s}@cta{c}], 16;"
                 for c in range(2)]
        prod += [f"    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
                 f"[buf{s}], [g{i}], 16, [full{s}], 3;"]
        for c in range(2):
            cons[c] += wait(f"f{i}", f"pf{i}", f"full{s}", lap % 2, ".acquire.cluster") + [
                        f"    ld.shared.u32 r{i}, [buf{s}];",
                        "    fence.proxy.async.shared::cta;",
                        f"    mbarrier.arrive.release.cluster.shared::cluster.b64 _, [empty{s}@cta0];"]
    cond = " \\/ ".join(f"{c + 1}:r{i} != {i + 1}" for i in range(n) for c in range(2))
    return name, text(name, f"{k}-stage multicast TMA ring over a 2-CTA cluster, {n} iterations", init, [prod] + cons,
                      cond)


def cp_async(k, n):
    name = f"cpasync-K{k}-N{n}"
    init = [f".shared buf{s} = 0" for s in range(k)] + [f".global g{i} = {i + 1}" for i in range(n)]
    th = [f"P0@{CTA0}:"]

    def load(i):
        return ([f"    cp.async.cg.shared.global [buf{i % k}], [g{i}], 16;"] if i < n else []) + \
            ["    cp.async.commit_group;"]

    if k == 1:
        for i in range(n):
            th += load(i) + ["    cp.async.wait_group 0;", f"    ld.shared.u32 r{i}, [buf0];"]
    else:
        for i in range(k - 1):
            th += load(i)
        for i in range(n):
            th += [f"    cp.async.wait_group {k - 2};", f"    ld.shared.u32 r{i}, [buf{i % k}];"] + load(i + k - 1)
    cond = " \\/ ".join(f"0:r{i} != {i + 1}" for i in range(n))
    return name, text(name, f"{k}-stage cp.async multistage pipeline, {n} iterations", init, [th], cond)


def cow(w, r):
    name = f"cow-W{w}-R{r}"
    threads = []
    for t in range(w):
        threads.append([f"P{t}@cta {t},gpu 0:", f"    st.relaxed.gpu.u32 [x], {2 * t + 1};",
                        f"    st.relaxed.gpu.u32 [x], {2 * t + 2};"])
    for t in range(w, w + r):
        threads.append([f"P{t}@cta {t},gpu 0:", "    ld.relaxed.gpu.u32 r0, [x];", "    ld.relaxed.gpu.u32 r1, [x];"])
    cond = " \\/ ".join(f"({t}:r0 == {2 * v + 2} /\\ {t}:r1 == {2 * v + 1})" for t in range(w, w + r) for v in range(w))
    return name, text(name, f"{w} threads write x twice, {r} threads read it twice", ["x = 0"], threads, cond)


def text(name, doc, init, threads, cond):
    return (f"PTX {name}\n\"bench/gen-pipelines.py: {doc}\"\n{{ {'; '.join(init)} }}\n" +
            "\n".join("\n".join(t) for t in threads) + f"\nexists ({cond})\n")


def default_sizes():
    sizes = []
    for k in (1, 2, 4, 8):
        for n in (k + 1, 2 * k + 1):
            sizes += [("ring", k, n), ("cpasync", k, n)]
            if 2 <= k <= 4:
                sizes += [("ring2c", k, n), ("ringmc", k, n)]
    sizes += [("ring", 1, n) for n in (4, 6, 8, 10, 12, 14)] + [("ring", 2, n) for n in (4, 8, 12, 16, 20, 24)]  # growth in N, fixed K
    sizes += [("cow", w, r) for w in (3, 4) for r in (1, 2, 3)]
    return sizes


GEN = {"ring": lambda k, n: ring(k, n), "ring2c": lambda k, n: ring(k, n, 2), "ringmc": ring_cluster,
       "cpasync": cp_async, "cow": cow}


def size_arg(text):
    """FAMILY:K:N (cow:W:R) for argparse."""
    parts = text.split(":")
    if len(parts) != 3 or parts[0] not in GEN or not parts[1].isdigit() or not parts[2].isdigit():
        raise argparse.ArgumentTypeError(f"'{text}': expected FAMILY:K:N with FAMILY one of {', '.join(GEN)} "
                                         "and K, N positive integers")
    fam, k, n = parts[0], int(parts[1]), int(parts[2])
    if k < 1 or n < 1:
        raise argparse.ArgumentTypeError(f"'{text}': K and N must be at least 1")
    return fam, k, n


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\nUsage:")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="Prints one path per generated test: \"path<TAB>family<TAB>K<TAB>N\".")
    ap.add_argument("outdir", nargs="?", default="bench/pipelines", help="where to write the tests "
                    "(default: bench/pipelines)")
    ap.add_argument("sizes", nargs="*", type=size_arg, metavar="FAMILY:K:N",
                    help="members to generate (cow:W:R for cow); default: the whole benchmark set")
    args = ap.parse_args()
    out = args.outdir
    sizes = args.sizes or default_sizes()
    os.makedirs(out, exist_ok=True)
    for fam, k, n in sizes:
        # Ping-pong needs two stages: with one, the second consumer's parity wait for lap 1 passes at once
        # on the fresh barrier (the preceding phase counts as complete) and it reads early.
        if fam == "ring2c" and k < 2:
            continue
        name, body = GEN[fam](k, n)
        path = os.path.join(out, name + ".litmus")
        with open(path, "w") as f:
            f.write(body)
        print(f"{path}\t{fam}\t{k}\t{n}")


if __name__ == "__main__":
    main()
