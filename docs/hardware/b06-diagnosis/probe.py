#!/usr/bin/env python3
"""Probe kernels for the stale tensor map of B06-cp_fenceproxy-acquire-by-user-gpu.

Reads the stress kernel of probe.litmus as the generator wrote it before the fix that this probe led to (one
`tensormap.cp_fenceproxy ... [%ga0], [%sa0], 128` with each lane's own operands; docs/hardware/README.md, B06)
and writes a variant for `ptxmm run --kernel-ptx`; the probe-*.ptx files beside it are its outputs. P1's register r1 then carries more than the value its tensor
copy delivered (1: through the old map, 2: through the new one):

  r1 = first copy + 16 * (P1's generic loads of the global map, after the copy, differ from the old map)
                  + 64 * second copy (a second fence.proxy.tensormap::generic.acquire and tensor copy after
                                      the first completed: 64 old map, 128 new map)

so `1:r1=1` of the test becomes 1 + 16g + 64s. Variants (argv[1]):
  probe        P0 as generated (tensormap.cp_fenceproxy ... .release.gpu)
  early        as probe, but P1's generic read of the map is right after it saw the flag, before its acquire
               fence (+ 16 if that read differs from the old map)
  after-FENCE  as probe, with one more instruction after P0's tensormap.cp_fenceproxy (before its flag store):
               after-tmaprelease fence.proxy.tensormap::generic.release.gpu; after-proxyasync fence.proxy.async;
               after-sc fence.sc.sys
  genericcopy  P0 copies the map with ld.shared / st.global and then fence.proxy.tensormap::generic.release.gpu
               (the unfused form of the same release pattern)
Usage: probe.py VARIANT < generated.ptx > probe.ptx
"""
import re
import sys

variant = sys.argv[1]
ptx = sys.stdin.read()


def replace_once(text, old, new):
    if text.count(old) != 1:
        sys.exit(f"probe.py: expected one '{old.strip()}' in the kernel, found {text.count(old)}")
    return text.replace(old, new)


# Registers of the probe, declared with the kernel's.
ptx = replace_once(ptx, "  .reg .b64 %tr0;\n",
                   "  .reg .b64 %tr0;\n  .reg .b64 %pb<8>;\n  .reg .pred %pq<2>;\n  .reg .b32 %px<2>;\n")


def compare_map(flag, into):
    """PTX that ORs `flag` into register `into` if the global map differs from the old map anywhere."""
    out = []
    for k in range(0, 128, 16):
        out += [
            f"  ld.relaxed.gpu.global.v2.u64 {{%pb0, %pb1}}, [%ga0+{k}];\n",
            f"  ld.v2.u64 {{%pb2, %pb3}}, [%tr0+{k}];\n",
            "  setp.ne.u64 %pq0, %pb0, %pb2;\n",
            "  setp.ne.or.u64 %pq0, %pb1, %pb3, %pq0;\n",
            f"  selp.u64 %pb4, {flag}, 0, %pq0;\n",
            f"  or.b64 {into}, {into}, %pb4;\n",
        ]
    return out


# P1: after its copy's value is in %v1_r1, read the global map generically (8 x 16 bytes) and compare with
# the old map (the record that ptxmm_init copied into the cell: the cell's tensor-buffer record, offset 0);
# then acquire again and copy again through the map (the mbarrier's next phase).
after_copy = "  ld.weak.shared::cta.u32 %x7, [%sa1];\n  cvt.u64.u32 %v1_r1, %x7;\n"
probe = [after_copy, "  mov.u64 %pb7, 0;\n"] + compare_map(16, "%pb7") + [
    "  add.u64 %v1_r1, %v1_r1, %pb7;\n",
    "  cvta.global.u64 %y6, %ga0;\n",
    "  fence.proxy.tensormap::generic.acquire.gpu [%y6], 128;\n",
    "  mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %v1_state, [%sa2], 16;\n",
    "  cp.async.bulk.tensor.1d.shared::cta.global.tile.mbarrier::complete_tx::bytes [%sa1], [%y6, {0}], [%sa2];\n",
    "$PROBE_w1:\n",
    "  mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %pq1, [%sa2], 1;\n",
    "  @!%pq1 bra $PROBE_w1;\n",
    "  ld.weak.shared::cta.u32 %px0, [%sa1];\n",
    "  cvt.u64.u32 %pb5, %px0;\n",
    "  mul.lo.u64 %pb5, %pb5, 64;\n",
    "  add.u64 %v1_r1, %v1_r1, %pb5;\n",
]
ptx = replace_once(ptx, after_copy, "".join(probe))

if variant == "early":
    # The generic read moves to right after P1 saw the flag, before its acquire fence.
    seen = "  @!%q1_q bra $L1_done;\n"
    ptx = replace_once(ptx, seen, seen + "  mov.u64 %pb7, 0;\n" + "".join(compare_map(16, "%pb7")))
    ptx = replace_once(ptx, after_copy + "  mov.u64 %pb7, 0;\n" + "".join(compare_map(16, "%pb7")), after_copy)

if variant == "genericcopy":
    fused = ("  tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned "
             "[%ga0], [%sa0], 128;\n")
    copy = []
    for k in range(0, 128, 16):
        copy += [f"  ld.shared::cta.v2.u64 {{%pb0, %pb1}}, [%sa0+{k}];\n",
                 f"  st.global.v2.u64 [%ga0+{k}], {{%pb0, %pb1}};\n"]
    copy.append("  fence.proxy.tensormap::generic.release.gpu;\n")
    ptx = replace_once(ptx, fused, "".join(copy))
elif variant.startswith("after-"):
    extra = {"after-tmaprelease": "fence.proxy.tensormap::generic.release.gpu;", "after-proxyasync": "fence.proxy.async;",
             "after-sc": "fence.sc.sys;"}[variant]
    fused = ("  tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned "
             "[%ga0], [%sa0], 128;\n")
    ptx = replace_once(ptx, fused, fused + f"  {extra}\n")
elif variant not in ("probe", "early"):
    sys.exit(f"probe.py: unknown variant {variant}")

sys.stdout.write(ptx)
