#!/usr/bin/env python3
"""Generate the pipeline scaling family: a K-stage TMA ring run for N iterations, straight-line, as a
CUTLASS-style producer/consumer pipeline writes it, correctly synchronised (every member's verdict is
Never with no flag), so the checker has to prove the whole ring safe.

  ring-K{K}-N{N}: one producer thread and one consumer thread of one CTA. Iteration i uses stage s = i % K
  and lap l = i // K. The producer waits on empty[s] for the consumer's release of lap l-1 (from lap 1 on),
  arms full[s] with the byte count and issues a TMA load of g{i} into buf{s}. The consumer waits on
  full[s] with the parity of lap l, reads buf{s}, orders the read before the next refill with
  fence.proxy.async.shared::cta and arrives on empty[s]. The condition asks for a stale or early value.
  ring2c-K{K}-N{N}: the same with two consumer threads (warp-specialised ping-pong): consumer c takes the
  iterations i with i % 2 == c, and the consumer of an iteration is the one that arrives on its stage's
  empty barrier (every barrier expects one arrival).

Usage: bench/gen-pipelines.py OUTDIR [K:N ...]   (default: the sizes of docs/performance.md)
Prints one path per generated test.
"""
import os
import sys


def ring(k, n, consumers=1):
    name = f"ring{'' if consumers == 1 else str(consumers) + 'c'}-K{k}-N{n}"
    init = [f".shared buf{s} = 0" for s in range(k)]
    init += [f".global g{i} = {i + 1}" for i in range(n)]
    init += [f".mbarrier full{s} = 1" for s in range(k)] + [f".mbarrier empty{s} = 1" for s in range(k)]
    prod = ["P0@cta 0,cluster 0,gpu 0:"]
    cons = [[f"P{c + 1}@cta 0,cluster 0,gpu 0:"] for c in range(consumers)]
    for i in range(n):
        s, lap = i % k, i // k
        if lap > 0:
            prod += [f"e{i}:",
                     f"    mbarrier.try_wait.parity.shared::cta.b64 pe{i}, [empty{s}], {(lap - 1) % 2};",
                     f"    @!pe{i} bra e{i};"]
        prod += [f"    mbarrier.arrive.expect_tx.shared::cta.b64 _, [full{s}], 16;",
                 f"    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf{s}], [g{i}], 16, [full{s}];"]
        c = cons[i % consumers]
        c += [f"f{i}:",
              f"    mbarrier.try_wait.parity.shared::cta.b64 pf{i}, [full{s}], {lap % 2};",
              f"    @!pf{i} bra f{i};",
              f"    ld.shared.u32 r{i}, [buf{s}];",
              "    fence.proxy.async.shared::cta;",
              f"    mbarrier.arrive.shared::cta.b64 _, [empty{s}];"]
    cond = " \\/ ".join(f"{(i % consumers) + 1}:r{i} != {i + 1}" for i in range(n))
    text = (f"PTX {name}\n\"bench/gen-pipelines.py: {k}-stage TMA ring, {n} iterations, {consumers} consumer(s)\"\n"
            f"{{ {'; '.join(init)} }}\n" + "\n".join(prod) + "\n" + "\n".join("\n".join(c) for c in cons) +
            f"\nexists ({cond})\n")
    return name, text


DEFAULT = [(1, 2), (1, 3), (1, 4), (1, 6), (2, 4), (2, 5), (2, 8), (4, 8), (4, 9), (8, 17)]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "bench/pipelines"
    sizes = [tuple(int(x) for x in a.split(":")) for a in sys.argv[2:]] or DEFAULT
    os.makedirs(out, exist_ok=True)
    for k, n in sizes:
        # Ping-pong needs two stages: with one, the second consumer's parity wait for lap 1 passes at once
        # on the fresh barrier (the preceding phase counts as complete) and it reads early.
        for consumers in (1, 2) if 2 <= k <= 4 else (1,):
            name, text = ring(k, n, consumers)
            path = os.path.join(out, name + ".litmus")
            with open(path, "w") as f:
                f.write(text)
            print(path)


if __name__ == "__main__":
    main()
