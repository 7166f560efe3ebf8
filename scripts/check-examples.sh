#!/usr/bin/env bash
# Compiles every variant of the example kernels listed in examples/examples.json with `nvcc -ptx -lineinfo`,
# assembles the PTX with ptxas, runs `ptxmm check-kernel --json` on it and checks the report against the
# manifest and the `// ptxmm-expect: MACRO` line markers of the sources (format: examples/README.md): every
# bug flagged at its marked lines with a verified repair of the kind the manifest names.
#
#   scripts/check-examples.sh [PTXMM]      PTXMM: the ptxmm binary (default $PTXMM, else build/ptxmm)
#
# Environment: NVCC (default: nvcc on PATH, else $CUDA_HOME/bin/nvcc, else /usr/local/cuda/bin/nvcc),
# PTXMM_EXAMPLES_KEEP=DIR keeps the PTX, the reports and the litmus tests in DIR,
# PTXMM_EXAMPLES_SKIP_CODE=N exits N instead of 0 when everything was skipped (ctest's SKIP_RETURN_CODE).
# Exit status: 0 every variant passed (or the check was skipped, loudly, for want of nvcc), 1 a variant
# failed, 2 bad usage or a broken manifest.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
ptxmm="${1:-${PTXMM:-$root/build/ptxmm}}"

nvcc="${NVCC:-}"
if [[ -z "$nvcc" ]]; then
  for cand in "$(command -v nvcc || true)" "${CUDA_HOME:+$CUDA_HOME/bin/nvcc}" /usr/local/cuda/bin/nvcc; do
    if [[ -n "$cand" && -x "$cand" ]]; then nvcc="$cand"; break; fi
  done
fi
if [[ -z "$nvcc" ]]; then
  echo "SKIP examples: nvcc not found (not on PATH, not in \$CUDA_HOME/bin or /usr/local/cuda/bin; set NVCC=...)"
  exit "${PTXMM_EXAMPLES_SKIP_CODE:-0}"
fi
if ! "$nvcc" --version >/dev/null 2>&1; then
  echo "SKIP examples: nvcc not usable ($nvcc --version fails)"
  exit "${PTXMM_EXAMPLES_SKIP_CODE:-0}"
fi
if [[ ! -x "$ptxmm" ]]; then
  echo "check-examples: ptxmm binary '$ptxmm' not found or not executable (pass it as the argument or set PTXMM)" >&2
  exit 2
fi

exec python3 - "$root" "$nvcc" "$ptxmm" <<'PY'
import json, os, re, shutil, subprocess, sys, tempfile

root, nvcc, ptxmm = sys.argv[1:4]
examples_dir = os.path.join(root, "examples")
manifest_path = os.path.join(examples_dir, "examples.json")
model = os.path.join(root, "models", "ptx.cat")
MARKER = re.compile(r"//\s*ptxmm-expect:\s*(.*)$")
KINDS = {"data-race", "undefined", "deadlock", "livelock", "outcome"}
REPAIRS = {"fence", "parity", "wait", "move", "barrier"}


def die(msg):
    print(f"check-examples: {msg}", file=sys.stderr)
    sys.exit(2)


def markers(path):
    """Maps each bug macro to the set of source lines that carry `// ptxmm-expect: MACRO[, MACRO...]`."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = MARKER.search(line)
            if not m:
                continue
            names = [x.strip() for x in m.group(1).split(",") if x.strip()]
            if not names:
                die(f"{path}:{n}: empty ptxmm-expect marker")
            for name in names:
                if not re.fullmatch(r"[A-Z_][A-Z0-9_]*", name):
                    die(f"{path}:{n}: '{name}' in a ptxmm-expect marker is not a macro name")
                out.setdefault(name, set()).add(n)
    return out


def supported_codes():
    """The sm_XX codes nvcc can generate (None when nvcc cannot list them)."""
    try:
        r = subprocess.run([nvcc, "--list-gpu-code"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return set(r.stdout.split()) if r.returncode == 0 else None


def base_code(arch):  # sm_90a / sm_100f -> sm_90 / sm_100
    return re.sub(r"[af]$", "", arch)


try:
    with open(manifest_path, encoding="utf-8") as f:
        manifest = json.load(f)
except (OSError, json.JSONDecodeError) as e:
    die(f"{manifest_path}: {e}")

flags = manifest.get("nvcc_flags", ["-ptx", "-lineinfo", "-O3"])
codes = supported_codes()
# the ptxas of nvcc's own toolkit first, so that the PTX is assembled by the version that wrote it
ptxas = os.path.join(os.path.dirname(nvcc), "ptxas")
ptxas = ptxas if os.access(ptxas, os.X_OK) else shutil.which("ptxas")
keep = os.environ.get("PTXMM_EXAMPLES_KEEP")
work = keep or tempfile.mkdtemp(prefix="ptxmm-examples.")
os.makedirs(work, exist_ok=True)

passed = failed = skipped = 0


def report(ok, label, why):
    global passed, failed
    if ok:
        passed += 1
        print(f"PASS {label}: {why}")
    else:
        failed += 1
        print(f"FAIL {label}: {why}")


def check_report(label, variant, rc, out, err, src_name, marked):
    try:
        rep = json.loads(out)
    except json.JSONDecodeError:
        first = (err.strip().splitlines() or out.strip().splitlines() or ["(no output)"])[0]
        return False, f"ptxmm check-kernel exit {rc}, stdout is not one JSON object: {first}"
    kernels = rep.get("kernels")
    if not isinstance(kernels, list) or not kernels:
        return False, f"ptxmm check-kernel exit {rc}: the report lists no kernel"
    bad = [k for k in kernels if k.get("status") in ("error", "undecided")]
    if bad:
        k = bad[0]
        return False, f"kernel {k.get('name')} is {k.get('status')}: {k.get('message', '')}"
    if variant["expect"] == "clean":
        dirty = [k for k in kernels if k.get("status") != "clean"]
        if dirty:
            k = dirty[0]
            fs = k.get("findings") or []
            first = fs[0].get("message", "") if fs else ""
            return False, f"kernel {k.get('name')} is {k.get('status')} ({len(fs)} finding(s); first: {first})"
        if rc != 0:
            return False, f"every kernel clean but exit status {rc} (want 0)"
        return True, f"{len(kernels)} kernel(s) clean"
    # a bug variant: some finding of an expected kind must name every marked line of its macros
    want_lines = set()
    for d in variant["defines"]:
        want_lines |= marked.get(d, set())
    kinds = set(variant["kinds"])
    seen = []
    for k in kernels:
        for fd in k.get("findings") or []:
            lines = {s["source"]["line"] for s in fd.get("sites") or []
                     if isinstance(s.get("source"), dict)
                     and os.path.basename(str(s["source"].get("file", ""))) == src_name}
            seen.append(f"{fd.get('kind')} at {sorted(lines)}")
            if fd.get("kind") in kinds and want_lines <= lines:
                if rc != 1:
                    return False, f"finding found but exit status {rc} (want 1)"
                repair = fd.get("repair") or []
                got = sorted({str(r.get("kind")) for r in repair})
                if got != [variant["repair"]]:
                    return False, (f"{fd.get('kind')} finding names lines {sorted(want_lines)} but its repair is "
                                   f"{'/'.join(got) or 'missing'} (want {variant['repair']}): {fd.get('message', '')}")
                return True, (f"{fd.get('kind')} ({fd.get('flag')}) names lines {sorted(want_lines)}: "
                              f"{fd.get('message', '')}; repair ({variant['repair']}): "
                              + ", ".join(f"{r.get('edit')} `{r.get('instruction')}` {r.get('position')} "
                                          f"line {r.get('ptx_line')}"
                                          + (f" ({src_name}:{r['source'].get('line')})"
                                             if isinstance(r.get("source"), dict) else "")
                                          for r in repair))
    if not seen:
        return False, f"no finding (want {'/'.join(sorted(kinds))} naming {src_name} lines {sorted(want_lines)})"
    return False, (f"no {'/'.join(sorted(kinds))} finding names every line {sorted(want_lines)} of {src_name}; "
                   f"findings: {'; '.join(seen)}")


for ex in manifest.get("examples", []):
    src = ex.get("source")
    arch = ex.get("arch")
    variants = ex.get("variants", [])
    if not src or not arch or not variants:
        die(f"{manifest_path}: every example needs source, arch and variants")
    path = os.path.join(examples_dir, src)
    if not os.path.isfile(path):
        die(f"{manifest_path}: {src} does not exist")
    marked = markers(path)
    defined = set()
    for v in variants:
        for key in ("name", "defines", "expect"):
            if key not in v:
                die(f"{manifest_path}: {src}: a variant lacks '{key}'")
        if v["expect"] not in ("clean", "findings"):
            die(f"{manifest_path}: {src}/{v['name']}: expect must be clean or findings")
        if v["expect"] == "clean" and v["defines"]:
            die(f"{manifest_path}: {src}/{v['name']}: a clean variant defines no bug macro")
        if v["expect"] == "findings":
            if not v["defines"] or not v.get("kinds") or not set(v["kinds"]) <= KINDS:
                die(f"{manifest_path}: {src}/{v['name']}: a bug variant needs defines and kinds from {sorted(KINDS)}")
            if v.get("repair") not in REPAIRS:
                die(f"{manifest_path}: {src}/{v['name']}: a bug variant needs the repair kind it expects, one of "
                    f"{sorted(REPAIRS)}")
            for d in v["defines"]:
                if d not in marked:
                    die(f"{path}: no line is marked '// ptxmm-expect: {d}' (variant {v['name']})")
        defined |= set(v["defines"])
    stray = set(marked) - defined
    if stray:
        die(f"{path}: ptxmm-expect markers name macros no variant defines: {sorted(stray)}")

    if codes is not None and base_code(arch) not in codes:
        for v in variants:
            skipped += 1
            print(f"SKIP {src}:{v['name']}: nvcc ({nvcc}) cannot target {arch} (--list-gpu-code: {' '.join(sorted(codes))})")
        continue

    for v in variants:
        label = f"{src}:{v['name']}"
        stem = f"{os.path.splitext(src)[0]}.{v['name']}"
        ptx = os.path.join(work, stem + ".ptx")
        cmd = [nvcc, *flags, f"-arch={arch}", *[f"-D{d}" for d in v["defines"]], path, "-o", ptx]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            msg = (r.stderr.strip().splitlines() or ["(no message)"])[0]
            report(False, label, f"nvcc failed ({' '.join(cmd)}): {msg}")
            continue
        if ptxas:
            r = subprocess.run([ptxas, f"-arch={arch}", ptx, "-o", os.devnull], capture_output=True, text=True)
            if r.returncode != 0:
                msg = (r.stderr.strip().splitlines() or ["(no message)"])[0]
                report(False, label, f"ptxas -arch={arch} rejects the PTX: {msg}")
                continue
        outdir = os.path.join(work, stem + ".tests")
        cmd = [ptxmm, "check-kernel", ptx, "--json", "--model", model, "-o", outdir]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        except subprocess.TimeoutExpired:
            report(False, label, f"ptxmm check-kernel ran over 600 s ({' '.join(cmd)})")
            continue
        with open(os.path.join(work, stem + ".json"), "w", encoding="utf-8") as f:
            f.write(r.stdout)
        ok, why = check_report(label, v, r.returncode, r.stdout, r.stderr, src, marked)
        report(ok, label, why)

if not keep:
    shutil.rmtree(work, ignore_errors=True)
note = "" if ptxas else " (ptxas not found: the PTX was not assembled)"
print(f"examples: {passed} passed, {failed} failed, {skipped} skipped{note}")
if failed:
    sys.exit(1)
if skipped and not passed:
    print(f"SKIP examples: nvcc ({nvcc}) cannot target any example's arch")
    sys.exit(int(os.environ.get("PTXMM_EXAMPLES_SKIP_CODE", "0")))
sys.exit(0)
PY
