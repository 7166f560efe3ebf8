#!/usr/bin/env bash
# Hardware campaign for ptxmm on a GPU machine (the `run` device tool): builds the standalone
# hardware runner (ptxmm-hw, tools/ptxmm-hw: generator + CUDA driver runner + litmus7 logs, no Z3),
# runs the calibration tests, the deadlock/watchdog demonstration and (if present) the async-proxy
# suite, and writes logs + JSON to $OUT (default ./out).
#   scripts/device-campaign.sh [ITERATIONS] [all|suite]
#     all (default): calibration (ITERATIONS per test), deadlock/watchdog, litmus/async (1e6 per test)
#     suite: every other suite directory (base bugs seeds mixedproxy clc), ITERATIONS per test
#     proxy: litmus/mixedproxy (surface/texture objects) and litmus/async with bank-conflict lanes
#            (bankConflictLanes 8), ITERATIONS per test
#     files PATH...: the given tests or directories only, ITERATIONS per test (files.json, files.log)
#     campaign STORE [BUDGET] [PHASES]: the durable campaign of a store planned where the checker is
#            (`ptxmm campaign run --db STORE --plan-only --mutants ...`, docs/hardware/README.md).
#            PHASES (comma-separated, default run,tune,rerun,report): run = its pending runs; tune =
#            the stress parameters for BUDGET seconds (default 240; TUNE_ITER instances per mutant run,
#            default 100000; TUNE_PARAMS the parameters it starts from, TUNE_SEED its seed); evaluate = no
#            search: TUNE_PARAMS at TUNE_ITER instances on every mutant they have not killed yet (BUDGET s);
#            rerun = the tests again with the best parameters; report = coverage.txt and campaign.html (plots only where
#            matplotlib is). The store ($OUT/campaign.db), best-params.json and the logs land in
#            $OUT; a phase cut short by its time bound resumes when the returned store is given
#            back as STORE. ITERATIONS is ignored (the store holds the iteration counts).
#     multigpu STORE [KILL_AFTER] [LEASE]: the planned STORE resumed three times (copies): one worker on
#            GPU 0, --gpus all, and --gpus all with GPU 1's worker SIGKILLed after KILL_AFTER s (default
#            20; LEASE default 20 s); stores, logs and coverage in $OUT (docs/hardware/README.md);
#            MG_PHASES=one,all,kill (default) chooses which of the three; the driver's JIT cache is off
#            unless MG_JIT_CACHE=on (a warm cache makes a later run look faster); all in $OUT/multigpu.tgz
#     killresume STORE [KILL_AFTER]: STORE run uninterrupted, and again with the campaign's process group
#            SIGKILLed after KILL_AFTER s (default 10) and resumed; the (test, status) sets are compared
#     tensor: every suite test with a tensor copy or a tensor-map instruction (cp.async.bulk.tensor,
#             cp.reduce.async.bulk.tensor, tensormap.*; maps encoded with cuTensorMapEncodeTiled), ITERATIONS
#             per test (tensor.json, tensor.log); a test that cannot run says why in tensor.log
# Needs: g++ (C++20), the CUDA toolkit (cuda.h, libcuda), the header-only libraries nlohmann/json,
# fmt and CLI11, from the system or carried by the caller in .hwdeps/include (e.g. copies of
# /usr/include/nlohmann, /usr/include/fmt and /usr/include/CLI of the development machine), and
# SQLite (the campaign store): sqlite3.h from the system or .hwdeps/include, the library from the
# system (`ldconfig -p | grep libsqlite3.so.0`: Python's sqlite3 module usually brings it) or
# .hwdeps/lib/libsqlite3.so.0.
# ptxmm-hw is the CMake target of the same name; the GPU machine has no cmake (nor Z3, which the full
# build needs), so it is compiled here with g++ from the same sources: the stages it links and
# tools/ptxmm-hw/main.cpp, with harness/cli/RunOptions.cpp (the options it shares with `ptxmm run`).
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
ITER=${1:-20000000}
MODE=${2:-all}
CUDA=${CUDA_HOME:-/usr/local/cuda}
export PATH="$CUDA/bin:$PATH"
BIN=/tmp/ptxmm-hw
log() { echo "== $*" | tee -a "$OUT/campaign.log"; }

log "device: $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader 2>/dev/null)"
# PTXMM_HW_REUSE=1: keep the ptxmm-hw an earlier run of this script built from the same sources (several modes
# in one device call build it once); a binary of other sources (a warm machine keeps /tmp across calls) is
# rebuilt: the digest of every source and header it is built from is stored beside it.
SRCS="harness/support/*.cpp harness/ptx/*.cpp harness/litmus/*.cpp harness/outcome/*.cpp harness/ptxgen/*.cpp harness/ptxgen/emit/*.cpp harness/runner/*.cpp harness/report/*.cpp harness/campaign/*.cpp harness/cli/RunOptions.cpp harness/cli/CampaignCli.cpp tools/ptxmm-hw/main.cpp"
# shellcheck disable=SC2086
SRCSUM=$(cat $SRCS $(find harness tools -name '*.hpp' -o -name '*.def' | sort) | md5sum | cut -d' ' -f1)
if [ -n "${PTXMM_HW_REUSE:-}" ] && [ -x $BIN ] && [ "$(cat $BIN.srcsum 2>/dev/null)" = "$SRCSUM" ]; then
  log "reusing $BIN (same sources)"
else
  log "building ptxmm-hw"
  for h in nlohmann/json.hpp fmt/format.h CLI/CLI.hpp sqlite3.h; do
    [ -f "/usr/include/$h" ] || [ -f ".hwdeps/include/$h" ] || { log "missing header $h: carry it in .hwdeps/include"; exit 1; }
  done
  if [ -f .hwdeps/lib/libsqlite3.so.0 ]; then
    SQLITE="-L$PWD/.hwdeps/lib -l:libsqlite3.so.0 -Wl,-rpath,$PWD/.hwdeps/lib"
  elif ldconfig -p 2>/dev/null | grep -q 'libsqlite3.so.0 '; then
    SQLITE="-l:libsqlite3.so.0"
  else
    log "missing libsqlite3.so.0: carry it in .hwdeps/lib"; exit 1
  fi
  OBJ=/tmp/ptxmm-obj; rm -rf $OBJ; mkdir -p $OBJ
  CXXFLAGS="-std=c++20 -O2 -DFMT_HEADER_ONLY -DPTXMM_HAVE_CUDA=1 -DPTXMM_SOURCE_DIR='\"$PWD\"' -Iharness -I.hwdeps/include -I$CUDA/include"
  # shellcheck disable=SC2086
  ls $SRCS | xargs -P 16 -I{} sh -c 'g++ '"$CXXFLAGS"' -c {} -o '"$OBJ"'/$(echo {} | tr / _).o' 2>&1 | tee "$OUT/build.log" | grep -E 'error' | tail -20
  # shellcheck disable=SC2086
  g++ $OBJ/*.o -o $BIN $SQLITE -ldl -lpthread 2>&1 | tee -a "$OUT/build.log" | tail -5
  [ -x $BIN ] || { log "build failed"; exit 1; }
  echo "$SRCSUM" > $BIN.srcsum
fi

MODEL=()
[ -f .hwdeps/model-states.jsonl ] && MODEL=(--model-states .hwdeps/model-states.jsonl)
P="$OUT/params.json"
# params FILE SEED [KEY=VALUE...]: the stress parameters of the runs below (every mode uses the same ones
# apart from the seed and the overrides given) written as JSON to FILE.
params() {
  python3 - "$@" <<'PY'
import json, sys
path, seed, *overrides = sys.argv[1:]
p = {"memStressPct": 100, "memStressIterations": 64, "memStressPattern": 3, "preStressPct": 100,
     "preStressIterations": 8, "preStressPattern": 0, "stressLineSize": 64, "stressTargetLines": 4,
     "scratchMemorySize": 65536, "memStride": 64, "shufflePct": 100, "barrierPct": 100,
     "spinBound": 200000, "launchTimeoutMs": 10000, "groupsPerBlock": 4, "stressWarpsPerBlock": 2,
     "seed": int(seed)}
for kv in overrides:
    k, v = kv.split("=", 1)
    p[k] = int(v)
with open(path, "w") as f:
    json.dump(p, f, indent=1)
    f.write("\n")
PY
}
# run_set NAME FILE_OR_DIR...: ITER instances per test under $P, NAME.json and NAME.log in $OUT, the
# tests that did not run and any forbidden state seen printed.
run_set() {
  local name=$1
  shift
  timeout 540 $BIN "${MODEL[@]}" --iterations "$ITER" --params "$P" --json "$OUT/$name.json" "$@" > "$OUT/$name.log" 2>&1
  log "$name exit: $?"
  grep -E "^(Test .* (skipped|error|timed-out)|!!!)" "$OUT/$name.log" | head -80
}
if [ "$MODE" = suite ]; then
  params "$P" 2
  log "suite: $ITER instances per test"
  run_set suite litmus/base litmus/async litmus/bugs litmus/seeds litmus/mixedproxy litmus/clc
  exit 0
fi
if [ "$MODE" = files ]; then
  shift 2
  params "$P" 4
  log "files: $ITER instances per test: $*"
  run_set files "$@"
  exit 0
fi
if [ "$MODE" = campaign ]; then
  STORE=${3:?campaign STORE [BUDGET] [PHASES]}
  BUDGET=${4:-240}
  PHASES=",${5:-run,tune,rerun,report},"
  DB="$OUT/campaign.db"
  [ -f "$DB" ] || cp "$STORE" "$DB"
  if [[ $PHASES == *,run,* ]]; then
    log "campaign: pending runs of $DB"
    timeout 560 $BIN campaign resume "$DB" --backend cuda --no-progress > "$OUT/campaign-run.log" 2>&1
    log "campaign run exit: $?"
    tail -12 "$OUT/campaign-run.log"
  fi
  if [[ $PHASES == *,tune,* ]]; then
    log "tune: $BUDGET s"
    timeout $((BUDGET + 120)) $BIN campaign tune --db "$DB" --backend cuda --budget "$BUDGET" \
      --iterations "${TUNE_ITER:-100000}" ${TUNE_PARAMS:+--params "$TUNE_PARAMS"} ${TUNE_SEED:+--seed "$TUNE_SEED"} \
      --out "$OUT/best-params.json" > "$OUT/tune.log" 2>&1
    log "tune exit: $?"
    tail -30 "$OUT/tune.log"
  fi
  if [[ $PHASES == *,evaluate,* ]]; then
    log "evaluate: ${TUNE_PARAMS:?evaluate needs TUNE_PARAMS} at ${TUNE_ITER:?evaluate needs TUNE_ITER} instances, $BUDGET s"
    timeout $((BUDGET + 120)) $BIN campaign tune --db "$DB" --backend cuda --budget "$BUDGET" --evaluate \
      --params "$TUNE_PARAMS" --iterations "$TUNE_ITER" --no-progress > "$OUT/evaluate-$TUNE_ITER.log" 2>&1
    log "evaluate exit: $?"
    tail -30 "$OUT/evaluate-$TUNE_ITER.log"
  fi
  if [[ $PHASES == *,rerun,* ]]; then
    log "the tests again with the tuned parameters"
    timeout 560 $BIN campaign rerun "$DB" --backend cuda --tuned --no-progress \
      > "$OUT/campaign-tuned.log" 2>&1
    log "tuned run exit: $?"
    tail -6 "$OUT/campaign-tuned.log"
  fi
  if [[ $PHASES == *,report,* ]]; then
    $BIN campaign coverage "$DB" > "$OUT/coverage.txt" 2>&1
    $BIN campaign report "$DB" --html "$OUT/campaign.html" > "$OUT/report.log" 2>&1
    log "report exit: $? (plots need python3-matplotlib; else render again where it is)"
  fi
  exit 0
fi
if [ "$MODE" = multigpu ]; then
  # The same planned store three times: one worker on GPU 0, one worker per GPU (--gpus all), and one
  # worker per GPU with one worker SIGKILLed KILL_AFTER seconds in (its claimed run comes back after the
  # lease). Each store lands in $OUT with its log; per-GPU throughput is read from the stores.
  STORE=${3:?multigpu STORE [KILL_AFTER] [LEASE]}
  KILL_AFTER=${4:-20}
  LEASE=${5:-20}
  # The driver caches JIT-compiled kernels (~/.nv/ComputeCache): a run after another one of the same
  # tests skips the JIT and looks faster. Throughput is compared with the cache off (MG_JIT_CACHE=on keeps it).
  [ "${MG_JIT_CACHE:-off}" = off ] && export CUDA_CACHE_DISABLE=1
  log "JIT cache: ${MG_JIT_CACHE:-off}"
  nvidia-smi -L | tee -a "$OUT/campaign.log"
  nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee -a "$OUT/campaign.log"
  timed() {  # NAME ARGS...: resume a fresh copy of the store, log exit status and wall time
    local name=$1 t0 rc
    shift
    cp "$STORE" "$OUT/$name.db"
    t0=$(date +%s.%N)
    timeout 280 "$@" > "$OUT/$name.log" 2>&1
    rc=$?
    log "$name: exit $rc, wall $(python3 -c "print(round($(date +%s.%N) - $t0, 1))") s"
    tail -4 "$OUT/$name.log"
  }
  MG=",${MG_PHASES:-one,all,kill},"  # which of the three runs (a device call is limited to 10 minutes)
  [[ $MG == *,one,* ]] && timed one-gpu $BIN campaign resume "$OUT/one-gpu.db" --backend cuda --gpus 0 --lease "$LEASE" --no-progress
  [[ $MG == *,all,* ]] && timed all-gpus $BIN campaign resume "$OUT/all-gpus.db" --backend cuda --gpus all --lease "$LEASE" --no-progress
  if [[ $MG == *,kill,* ]]; then
    cp "$STORE" "$OUT/kill.db"
    t0=$(date +%s.%N)
    timeout 280 $BIN campaign resume "$OUT/kill.db" --backend cuda --gpus all --lease "$LEASE" --no-progress \
      > "$OUT/kill.log" 2>&1 &
    CAMPAIGN=$!
    sleep "$KILL_AFTER"
    VICTIM=$(pgrep -f "campaign worker --db $OUT/kill.db --gpu 1" | head -1)
    log "kill: SIGKILL worker of GPU 1 (pid $VICTIM) after $KILL_AFTER s"
    [ -n "$VICTIM" ] && kill -9 "$VICTIM"
    wait $CAMPAIGN
    log "kill: exit $?, wall $(python3 -c "print(round($(date +%s.%N) - $t0, 1))") s"
    tail -6 "$OUT/kill.log"
  fi
  for n in one-gpu all-gpus kill; do
    [ -f "$OUT/$n.db" ] && $BIN campaign coverage "$OUT/$n.db" > "$OUT/$n-coverage.txt" 2>&1
  done
  # One archive: the device tool returns at most 8 files.
  (cd "$OUT" && tar czf multigpu.tgz ./*.db ./*.log ./*-coverage.txt && rm -f ./*.db ./*-coverage.txt one-gpu.log all-gpus.log kill.log)
  exit 0
fi
if [ "$MODE" = killresume ]; then
  # The planned STORE run uninterrupted (ref.db), and again (killed.db) with the campaign's process group
  # SIGKILLed KILL_AFTER seconds in, then resumed; the two stores' (test, status) sets are compared.
  STORE=${3:?killresume STORE [KILL_AFTER]}
  KILL_AFTER=${4:-10}
  cp "$STORE" "$OUT/ref.db"
  cp "$STORE" "$OUT/killed.db"
  timeout 280 $BIN campaign resume "$OUT/ref.db" --backend cuda --no-progress > "$OUT/ref.log" 2>&1
  log "uninterrupted: exit $?"
  setsid $BIN campaign resume "$OUT/killed.db" --backend cuda --no-progress > "$OUT/killed.log" 2>&1 &
  LEADER=$!
  sleep "$KILL_AFTER"
  python3 - "$OUT/killed.db" > "$OUT/killed-at-kill.txt" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
print(dict(db.execute("select status, count(*) from runs group by status").fetchall()))
PY
  kill -9 -- -"$LEADER"
  wait "$LEADER" 2>/dev/null
  log "killed the campaign's process group after $KILL_AFTER s: $(cat "$OUT/killed-at-kill.txt")"
  timeout 280 $BIN campaign resume "$OUT/killed.db" --backend cuda --no-progress > "$OUT/resumed.log" 2>&1
  log "resumed: exit $?"
  python3 - "$OUT/ref.db" "$OUT/killed.db" <<'PY' | tee -a "$OUT/campaign.log"
import sqlite3, sys
def pairs(p):
    db = sqlite3.connect(p)
    return set(db.execute("select t.name, r.status from runs r join tests t on t.id = r.test"))
a, b = pairs(sys.argv[1]), pairs(sys.argv[2])
print(f"uninterrupted {len(a)} (test, status) pairs, killed+resumed {len(b)}: {'identical' if a == b else 'DIFFERENT'}")
for x in sorted(a ^ b): print("  differs:", x)
PY
  (cd "$OUT" && tar czf killresume.tgz ref.db killed.db ref.log killed.log resumed.log killed-at-kill.txt && rm -f ref.db killed.db ref.log killed.log resumed.log)
  exit 0
fi
if [ "$MODE" = tensor ]; then
  params "$P" 5 memStride=128
  mapfile -t TENSOR < <(grep -rlE 'bulk\.tensor|tensormap' litmus --include='*.litmus' | sort)
  log "tensor: ${#TENSOR[@]} tests, $ITER instances per test"
  run_set tensor "${TENSOR[@]}"
  exit 0
fi
if [ "$MODE" = proxy ]; then
  params "$P" 3 bankConflictLanes=8 bankConflictPct=100 bankConflictIterations=256 bankConflictPattern=1
  log "proxy: mixedproxy (surface/texture) and async (bank-conflict lanes), $ITER instances per test"
  run_set proxy litmus/mixedproxy litmus/async
  exit 0
fi
params "$P" 1
CAL="litmus/hw/MP+weak.litmus litmus/hw/MP+rlx.litmus litmus/hw/MP+fence.acq_rel.gpu.litmus litmus/hw/MP+rel+acq.gpu.litmus
     litmus/hw/SB+weak.litmus litmus/hw/SB+fence.sc.gpu.litmus litmus/hw/LB+weak.litmus litmus/hw/LB+fence.acq_rel.gpu.litmus
     litmus/hw/2+2W+weak.litmus litmus/hw/2+2W+fence.sc.gpu.litmus litmus/hw/CoRR+weak.litmus litmus/hw/CoRR+rlx.litmus"
log "calibration: $ITER instances per test"
# shellcheck disable=SC2086
timeout 300 $BIN "${MODEL[@]}" --iterations "$ITER" --params "$P" --json "$OUT/calibration.json" $CAL 2>&1 | tee "$OUT/calibration.log"
log "calibration exit: ${PIPESTATUS[0]}"

# SASS of MP+weak (what ptxas made of the weak accesses).
$BIN --emit-ptx /tmp/ptx litmus/hw/MP+weak.litmus litmus/hw/CoRR+weak.litmus
for t in MP+weak CoRR+weak; do
  ptxas -arch=sm_90a -O3 "/tmp/ptx/$t.ptx" -o "/tmp/ptx/$t.cubin" && cuobjdump -sass "/tmp/ptx/$t.cubin" > "/tmp/ptx/$t.sass"
done
cat /tmp/ptx/MP+weak.sass /tmp/ptx/CoRR+weak.sass > "$OUT/sass.txt" 2>/dev/null

log "deadlock: bounded spins (spinBound 20000), then the watchdog (spinBound 1e15, 3 s), then MP+weak again"
params "$OUT/params-deadlock.json" 1 spinBound=20000
params "$OUT/params-watchdog.json" 1 spinBound=1000000000000000 launchTimeoutMs=3000
{
  $BIN --iterations 1000000 --params "$OUT/params-deadlock.json" --json "$OUT/deadlock.json" litmus/hw/Deadlock-mbarrier.litmus
  echo "exit: $?"
  timeout 120 $BIN --iterations 1000000 --params "$OUT/params-watchdog.json" --json "$OUT/watchdog.json" \
    litmus/hw/Deadlock-mbarrier.litmus litmus/hw/MP+weak.litmus
  echo "exit: $?"
} 2>&1 | tee "$OUT/deadlock.log"

if [ -d litmus/async ]; then
  log "async-proxy suite (tests that parse and generate)"
  timeout 200 $BIN "${MODEL[@]}" --iterations 1000000 --params "$P" --json "$OUT/async.json" litmus/async 2>&1 | tee "$OUT/async.log" | tail -60
fi
log "done"
