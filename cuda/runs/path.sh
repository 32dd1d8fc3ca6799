#!/bin/bash
# GPU proving-path check (issues 13/14), on the device machine from the repository root.
# Prepare here (no Go toolchain there) and carry devrun/path:
#   CGO_ENABLED=0 go test -c -o devrun/path/gpu.test ./prover/backend/gpu
#   CGO_ENABLED=0 go test -c -o devrun/path/sealer.test ./sealer
#   CGO_ENABLED=0 go test -c -o devrun/path/pipeline.test ./prover/pipeline
#   CGO_ENABLED=0 go build -ldflags='-s -w' -o devrun/path/snarkpipe ./cmd/snarkpipe
#   CGO_ENABLED=0 go test -c -o devrun/path/itests.test ./itests     # only for ITESTS=1 or full
# Then: bash cuda/runs/path.sh (SIZE=32GiB PROOFS=3 by default; SIZE=8MiB for a quick
# run; ITESTS=1 also runs the fast integration tests, whose daemons then use the GPU;
# ITESTS=full all of them). Builds the library, runs the GPU tests of the proving path against the CPU oracle,
# the GPU-vs-CPU proof byte equality on Filecoin circuits, and one snarkpipe bench; full
# logs under $OUT, a short summary last.
set -u
# Logs go to a folder that is bundled into one file at exit: the device tool returns
# only a few files from $OUT.
OUTDIR=${OUT:-/tmp/path_out}
O=$OUTDIR/p
trap 'tar -czf "$OUTDIR/path_logs.tgz" -C "$OUTDIR" p && rm -rf "$O"' EXIT
B=devrun/path
mkdir -p "$O"
T0=$(date +%s)
el() { echo "[$(($(date +%s) - T0))s] $*"; }
make cuda >"$O/build.log" 2>&1 || { el "make cuda FAILED"; grep -E error "$O/build.log" cuda/build/*.log | head -30; exit 1; }
el "library built"
(cd prover/backend/gpu && timeout 300 ../../../$B/gpu.test -test.short -test.v \
  -test.run 'Resident|LoadShape|BenchSetup|Degenerate|Unpack|Packed|Pinned|Pool|OutOfMemory|PinHost|Groth16ProofMatchesCPU|NTT|Quotient|MSM' \
  >"$O/gpu_test.txt" 2>&1; echo "gpu tests rc=$?")
grep -E -- '^(--- FAIL|FAIL|ok|PASS)' "$O/gpu_test.txt" | head -20
(cd sealer && timeout 300 ../$B/sealer.test -test.run TestGPUPathEqualsCPU -test.v -gpu.equal >"$O/equal.txt" 2>&1; echo "equality rc=$?")
grep -E -- '--- |differ' "$O/equal.txt"
(cd prover/pipeline && timeout 300 ../../$B/pipeline.test -test.run TestGPUResidentPipeline -test.v \
  -pipeline.gpulib ../../cuda/build/libsnarkpipe_cuda.so -pipeline.gpulog 22 -pipeline.gpuproofs 3 \
  >"$O/pipeline.txt" 2>&1; echo "pipeline rc=$?")
grep -E -- '--- ' "$O/pipeline.txt"
timeout ${BENCH_TO:-420} ./$B/snarkpipe bench porep --size ${SIZE:-32GiB} --proofs ${PROOFS:-3} \
  --lib cuda/build/libsnarkpipe_cuda.so --json "$O/bench.json" >"$O/bench.txt" 2>&1
el "bench rc=$?"
grep -E 'setup done|mean|first proof|steady|peak|verified ' "$O/bench.txt" | cut -c1-240
# ITESTS=1: the fast integration tests (-short); ITESTS=full: all of them (make itest's set).
if [ "${ITESTS:-0}" != 0 ]; then
  SHORT=-test.short
  [ "$ITESTS" = full ] && SHORT=
  (cd itests && SNARKPIPE_ITEST_BIN=$PWD/../$B/snarkpipe timeout ${ITESTS_TO:-400} ../$B/itests.test $SHORT -test.v \
    >"$O/itests.txt" 2>&1; echo "itests rc=$?")
  grep -E -- '^(--- FAIL|--- PASS|--- SKIP|FAIL|ok|PASS)' "$O/itests.txt" | sort | uniq -c | sort -rn | head -5
  grep -E -- '--- (FAIL|PASS): TestDaemonProvesOnGPUWhenPresent' "$O/itests.txt"
  grep -B25 -- '^--- FAIL' "$O/itests.txt" | cut -c1-300 | tail -60  # a failure's log, in the output
fi
