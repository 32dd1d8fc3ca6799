#!/bin/bash
# Memory tiers (issue 31), on the device machine from the repository root, one call.
# Prepare here and carry devrun/tiers:
#   CGO_ENABLED=0 go test -c -ldflags='-s -w' -o devrun/tiers/gpu.test ./prover/backend/gpu
#   CGO_ENABLED=0 go test -c -ldflags='-s -w' -o devrun/tiers/pipeline.test ./prover/pipeline
#   CGO_ENABLED=0 go build -ldflags='-s -w' -o devrun/tiers/snarkpipe ./cmd/snarkpipe
# Builds the library for sm_90 (SP_ARCHS, default 90) unless present; runs the streamed-MSM
# and streamed-key GPU tests against the CPU and the pipeline's key tiers; then a 32 GiB
# PoRep (PROOFS proofs, default 3) under each cap of CAPS (GiB, default "46 76"), the
# first recording the circuit into /tmp/sp_rec for the others. Logs in $OUT/tiers_logs.tgz.
set -u
OUTDIR=${OUT:-/tmp/tiers_out}
O=$OUTDIR/t
mkdir -p "$O"
trap 'tar -czf "$OUTDIR/tiers_logs.tgz" -C "$OUTDIR" t && rm -rf "$O"' EXIT
B=$PWD/devrun/tiers
T0=$(date +%s)
el() { echo "[$(($(date +%s) - T0))s] $*"; }
left() { echo $((${BUDGET:-570} - ($(date +%s) - T0))); }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$O/smi.txt"
free -g | head -2 | tee "$O/free.txt"
if [ ! -f cuda/build/libsnarkpipe_cuda.so ]; then
  (time SP_ARCHS=${SP_ARCHS:-90} sh cuda/build.sh) >"$O/build.log" 2>&1 || { el "build FAILED"; grep -hE "error" "$O/build.log" cuda/build/*.log | head -30; exit 1; }
  grep -E "^built" "$O/build.log"
fi
el "library ready"
(cd prover/backend/gpu && timeout 120 "$B/gpu.test" -test.short -test.v -test.run 'Streamed|ResidentProofMatchesCPU|MSMG1MatchesGnark|MemoryLimit' >"$O/gpu.txt" 2>&1; echo "rc=$?" >>"$O/gpu.txt")
el "gpu tests: $(tail -1 "$O/gpu.txt")"; grep -E -- '^(--- |    --- )' "$O/gpu.txt" | head -20
(cd prover/pipeline && timeout 120 "$B/pipeline.test" -test.run 'TestGPUResidentPipeline' -test.v -pipeline.gpulib ../../cuda/build/libsnarkpipe_cuda.so \
  -pipeline.gpulog 20 -pipeline.gpuproofs 2 >"$O/pipeline.txt" 2>&1; echo "rc=$?" >>"$O/pipeline.txt")
el "pipeline tiers: $(tail -1 "$O/pipeline.txt")"; grep -E -- '--- ' "$O/pipeline.txt" | head -6
for cap in ${CAPS:-46 76}; do
  [ "$(left)" -lt 120 ] && { el "no time left for the ${cap} GiB cap"; break; }
  timeout $(($(left) - 10)) "$B/snarkpipe" bench porep --size 32GiB --proofs ${PROOFS:-3} --device-memory-limit $cap ${TIER_ARGS:-} \
    --lib cuda/build/libsnarkpipe_cuda.so --recordings /tmp/sp_rec --json "$O/porep32_cap$cap.json" >"$O/porep32_cap$cap.txt" 2>&1
  el "32 GiB PoRep under a $cap GiB cap: rc=$?"
  grep -E 'backend:|memory tier|setup \(|first proof|steady|proving wall|peak|verified |rror' "$O/porep32_cap$cap.txt" | cut -c1-300
  grep -E '^ +[0-9]+ +[0-9]+ +[0-9]+ ' "$O/porep32_cap$cap.txt" | tail -3
done
el "done"
