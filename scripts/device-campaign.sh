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
#            default 100000); rerun = the tests again with
#            the best parameters; report = coverage.txt and campaign.html (plots only where
#            matplotlib is). The store ($OUT/campaign.db), best-params.json and the logs land in
#            $OUT; a phase cut short by its time bound resumes when the returned store is given
#            back as STORE. ITERATIONS is ignored (the store holds the iteration counts).
#     multigpu STORE [KILL_AFTER] [LEASE]: the planned STORE resumed three times (copies): one worker on
#            GPU 0, --gpus all, and --gpus all with GPU 1's worker SIGKILLed after KILL_AFTER s (default
#            20; LEASE default 20 s); stores, logs and coverage in $OUT (docs/hardware/README.md);
#            MG_PHASES=one,all,kill (default) chooses which of the three; the driver's JIT cache is off
#            unless MG_JIT_CACHE=on (a warm cache makes a later run look faster); all in $OUT/multigpu.tgz
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
if [ "$MODE" = suite ]; then
  cat > "$P" <<JSON
{"memStressPct": 100, "memStressIterations": 64, "memStressPattern": 3, "preStressPct": 100,
 "preStressIterations": 8, "preStressPattern": 0, "stressLineSize": 64, "stressTargetLines": 4,
 "scratchMemorySize": 65536, "memStride": 64, "shufflePct": 100, "barrierPct": 100,
 "spinBound": 200000, "launchTimeoutMs": 10000, "groupsPerBlock": 4, "stressWarpsPerBlock": 2, "seed": 2}
JSON
  log "suite: $ITER instances per test"
  timeout 540 $BIN "${MODEL[@]}" --iterations "$ITER" --params "$P" --json "$OUT/suite.json" \
    litmus/base litmus/async litmus/bugs litmus/seeds litmus/mixedproxy litmus/clc > "$OUT/suite.log" 2>&1
  log "suite exit: $?"
  grep -E "^(Test .* (skipped|error|timed-out)|!!!)" "$OUT/suite.log" | head -80
  exit 0
fi
if [ "$MODE" = files ]; then
  shift 2
  cat > "$P" <<JSON
{"memStressPct": 100, "memStressIterations": 64, "memStressPattern": 3, "preStressPct": 100,
 "preStressIterations": 8, "preStressPattern": 0, "stressLineSize": 64, "stressTargetLines": 4,
 "scratchMemorySize": 65536, "memStride": 64, "shufflePct": 100, "barrierPct": 100,
 "spinBound": 200000, "launchTimeoutMs": 10000, "groupsPerBlock": 4, "stressWarpsPerBlock": 2, "seed": 4}
JSON
  log "files: $ITER instances per test: $*"
  timeout 540 $BIN "${MODEL[@]}" --iterations "$ITER" --params "$P" --json "$OUT/files.json" "$@" > "$OUT/files.log" 2>&1
  log "files exit: $?"
  grep -E "^(Test .* (skipped|error|timed-out)|!!!)" "$OUT/files.log" | head -80
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
      --iterations "${TUNE_ITER:-100000}" --out "$OUT/best-params.json" > "$OUT/tune.log" 2>&1
    log "tune exit: $?"
    tail -30 "$OUT/tune.log"
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
if [ "$MODE" = tensor ]; then
  cat > "$P" <<JSON
{"memStressPct": 100, "memStressIterations": 64, "memStressPattern": 3, "preStressPct": 100,
 "preStressIterations": 8, "preStressPattern": 0, "stressLineSize": 64, "stressTargetLines": 4,
 "scratchMemorySize": 65536, "memStride": 128, "shufflePct": 100, "barrierPct": 100,
 "spinBound": 200000, "launchTimeoutMs": 10000, "groupsPerBlock": 4, "stressWarpsPerBlock": 2, "seed": 5}
JSON
  mapfile -t TENSOR < <(grep -rlE 'bulk\.tensor|tensormap' litmus --include='*.litmus' | sort)
  log "tensor: ${#TENSOR[@]} tests, $ITER instances per test"
  timeout 540 $BIN "${MODEL[@]}" --iterations "$ITER" --params "$P" --json "$OUT/tensor.json" "${TENSOR[@]}" \
    > "$OUT/tensor.log" 2>&1
  log "tensor exit: $?"
  grep -E "^(Test .* (skipped|error|timed-out)|!!!)" "$OUT/tensor.log" | head -80
  exit 0
fi
if [ "$MODE" = proxy ]; then
  cat > "$P" <<JSON
{"memStressPct": 100, "memStressIterations": 64, "memStressPattern": 3, "preStressPct": 100,
 "preStressIterations": 8, "preStressPattern": 0, "stressLineSize": 64, "stressTargetLines": 4,
 "scratchMemorySize": 65536, "memStride": 64, "shufflePct": 100, "barrierPct": 100,
 "spinBound": 200000, "launchTimeoutMs": 10000, "groupsPerBlock": 4, "stressWarpsPerBlock": 2, "seed": 3,
 "bankConflictLanes": 8, "bankConflictPct": 100, "bankConflictIterations": 256, "bankConflictPattern": 1}
JSON
  log "proxy: mixedproxy (surface/texture) and async (bank-conflict lanes), $ITER instances per test"
  timeout 540 $BIN "${MODEL[@]}" --iterations "$ITER" --params "$P" --json "$OUT/proxy.json" \
    litmus/mixedproxy litmus/async > "$OUT/proxy.log" 2>&1
  log "proxy exit: $?"
  grep -E "^(Test .* (skipped|error|timed-out)|!!!)" "$OUT/proxy.log" | head -80
  exit 0
fi
cat > "$P" <<JSON
{"memStressPct": 100, "memStressIterations": 64, "memStressPattern": 3, "preStressPct": 100,
 "preStressIterations": 8, "preStressPattern": 0, "stressLineSize": 64, "stressTargetLines": 4,
 "scratchMemorySize": 65536, "memStride": 64, "shufflePct": 100, "barrierPct": 100,
 "spinBound": 200000, "launchTimeoutMs": 10000, "groupsPerBlock": 4, "stressWarpsPerBlock": 2, "seed": 1}
JSON
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
sed 's/"spinBound": 200000/"spinBound": 20000/' "$P" > "$OUT/params-deadlock.json"
sed 's/"spinBound": 200000, "launchTimeoutMs": 10000/"spinBound": 1000000000000000, "launchTimeoutMs": 3000/' "$P" > "$OUT/params-watchdog.json"
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
