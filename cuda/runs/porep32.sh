#!/bin/bash
# 32 GiB PoRep check (issue 14), on the device machine from the repository root: builds the
# library, runs the GPU tests of the sparse products, quotient and resident path, the
# GPU-vs-CPU proof bytes on Filecoin circuits, then one `snarkpipe bench porep`. Prepare
# here (no Go toolchain there) and carry devrun/porep:
#   CGO_ENABLED=0 go test -c -o devrun/porep/gpu.test ./prover/backend/gpu
#   CGO_ENABLED=0 go test -c -o devrun/porep/sealer.test ./sealer
#   CGO_ENABLED=0 go build -ldflags='-s -w' -o devrun/porep/snarkpipe ./cmd/snarkpipe
# Then: bash cuda/runs/porep32.sh (PROOFS=3, BENCH_TO=390 s; TRACE=1 also writes the
# pipeline timeline; SKIPTESTS=1 skips the GPU tests; BENCH_ARGS adds bench flags, e.g.
# "--proof-streams 2 --workers-per-device 3"; BENCH2_ARGS runs a second bench after the
# first, which reads the first one's recordings: e.g. BENCH2_ARGS=--serial-msms). About 460 s with 3 proofs from a cold start (setup ≈ 250 s). Logs
# are bundled into porep_logs.tgz under $OUT; a short summary is printed last.
# KIND=window benches one 32 GiB Window PoSt partition per proof instead (SKIPTESTS=1
# PROOFS=2 BENCH_TO=520: its setup, probe/record then key generation, took more than 330 s
# at 8041e8c).
set -u
OUTDIR=${OUT:-/tmp/porep_out}
O=$OUTDIR/porep
mkdir -p "$O"
trap 'tar -czf "$OUTDIR/porep_logs.tgz" -C "$OUTDIR" porep && rm -rf "$O"' EXIT
T0=$(date +%s)
el() { echo "[$(($(date +%s) - T0))s] $*"; }
B=$PWD/devrun/porep
make cuda >"$O/build.log" 2>&1 || { el "make cuda FAILED"; grep -E error "$O/build.log" cuda/build/*.log | head -30; exit 1; }
el "library built"
if [ "${SKIPTESTS:-0}" != 1 ]; then
(cd prover/backend/gpu && timeout 120 "$B/gpu.test" -test.short -test.v -test.run "${GPU_TESTS:-Eval|Quotient|Resident|Reserve|Groth16ProofMatchesCPU|Packed|Unpack}" \
  >"$O/gpu_test.txt" 2>&1; echo "gpu tests rc=$?")
grep -E -- '^(--- FAIL|FAIL|ok|PASS)' "$O/gpu_test.txt" | head
echo "$(grep -c -- '--- PASS' "$O/gpu_test.txt") passed"
[ "${EQUAL:-1}" = 1 ] && (cd sealer && timeout 120 "$B/sealer.test" -test.run TestGPUPathEqualsCPU -test.v -gpu.equal >"$O/equal.txt" 2>&1; echo "equality rc=$?")
[ -f "$O/equal.txt" ] && grep -E -- '--- |differ' "$O/equal.txt"
fi
KIND=${KIND:-porep}
kind_args=()
[ "$KIND" = window ] && kind_args=(--partitions 1)
# bench NAME PROOFS TIMEOUT ARGS: one run; the recordings directory lets a second run of
# the same call skip the probe/record synthesis.
bench() {
  local name=$1 proofs=$2 to=$3 args=$4
  el "32 GiB bench ($KIND, $name: $args)"
  local trace=()
  [ "${TRACE:-0}" = 1 ] && trace=(--trace "$O/${KIND}32_$name.trace.json")
  timeout "$to" "$B/snarkpipe" bench "$KIND" --size 32GiB --proofs "$proofs" "${kind_args[@]}" \
    --lib cuda/build/libsnarkpipe_cuda.so --recordings "${RECORDINGS:-/tmp/sp_recordings}" \
    --json "$O/bench_$name.json" "${trace[@]}" $args >"$O/bench_$name.txt" 2>&1
  el "bench $name rc=$?"
  grep -v '…' "$O/bench_$name.txt" | grep -E '^setup|slots|mean|first proof|steady|peak|verified ' | cut -c1-260
  # proof 1's first partitions: where the first-call costs show (buffers, dev wait)
  awk '/^per partition/{p=1} p&&/^ +1 +0 +[0-2] /' "$O/bench_$name.txt" | cut -c1-260
}
bench 1 "${PROOFS:-3}" "${BENCH_TO:-390}" "${BENCH_ARGS:-}"
# BENCH2_ARGS: a second run in the same call (PROOFS2, BENCH2_TO), e.g. a variant.
[ -n "${BENCH2_ARGS:-}" ] && bench 2 "${PROOFS2:-3}" "${BENCH2_TO:-200}" "$BENCH2_ARGS"
