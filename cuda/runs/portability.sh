#!/bin/bash
# GPU portability check (issue 30), on the device machine from the repository root, in
# phases (one device call each; the machine keeps cuda/build between calls while warm,
# and a phase rebuilds what is missing). Prepare here and carry devrun/port:
#   CGO_ENABLED=0 go test -c -ldflags='-s -w' -o devrun/port/gpu.test ./prover/backend/gpu
#   CGO_ENABLED=0 go test -c -ldflags='-s -w' -o devrun/port/sealer.test ./sealer
#   CGO_ENABLED=0 go test -c -ldflags='-s -w' -o devrun/port/pipeline.test ./prover/pipeline
#   CGO_ENABLED=0 go build -ldflags='-s -w' -o devrun/port/snarkpipe ./cmd/snarkpipe
# PHASE=tests: builds the library for every architecture (make cuda, timed, its size) and
#   one holding only compute_80 PTX; runs the proving path's GPU tests against the CPU
#   (kernels, resident proofs), GPU=CPU proof bytes on Filecoin circuits (8 MiB PoRep,
#   2 KiB Winning) and the resident pipeline, with SP_TEST_GPU_ARITH=fp64 and =int; then
#   the GPU tests and proof bytes again from the compute_80 PTX library (JIT).
# PHASE=caps: a 32 GiB PoRep under a 24 GiB cap (must be refused within seconds), 8 MiB
#   and 512 MiB PoRep proofs under a 4 GiB cap, and the kernel table (snarkpipe bench gpu)
#   with the FP64 and the integer NTT products.
# PHASE=porep32: 32 GiB PoRep, PROOFS (3) proofs with gpu_arith fp64, then int (the
#   second reads the first's recordings).
# PHASE=final: the library for sm_90 only (SP_ARCHS=90, half the build time), the GPU tests
#   with both arithmetics, GPU=CPU proof bytes (fp64), 8 MiB and 512 MiB PoRep under a 4 GiB
#   cap with both, and the 32 GiB PoRep with fp64 (PROOFS proofs): the re-check after
#   changes to the MSM's memory sizing, in one call.
# Logs come back in $OUT/port_logs.tgz; a summary is printed last.
set -u
OUTDIR=${OUT:-/tmp/port_out}
O=$OUTDIR/p
mkdir -p "$O"
trap 'tar -czf "$OUTDIR/port_logs.tgz" -C "$OUTDIR" p && rm -rf "$O"' EXIT
B=$PWD/devrun/port
T0=$(date +%s)
el() { echo "[$(($(date +%s) - T0))s] $*"; }
left() { echo $((${BUDGET:-540} - ($(date +%s) - T0))); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee "$O/smi.txt"

build_libs() {
  if [ ! -f cuda/build/libsnarkpipe_cuda.so ] && [ -n "${SP_ARCHS:-}" ]; then
    (time sh cuda/build.sh) >"$O/build_fat.log" 2>&1 || { el "build FAILED"; grep -hE "error" "$O/build_fat.log" cuda/build/*.log | head -30; exit 1; }
    grep -E "^built|^real" "$O/build_fat.log"
  fi
  if [ ! -f cuda/build/libsnarkpipe_cuda.so ]; then
    (time sh cuda/build.sh) >"$O/build_fat.log" 2>&1 &
    local fat=$!
    if [ "${PTX80:-1}" = 1 ]; then
      (time SP_BUILD_DIR=$PWD/cuda/build/ptx80 SP_ARCHS=none SP_PTX=80 sh cuda/build.sh) >"$O/build_ptx80.log" 2>&1 &
      wait $!
    fi
    wait $fat || { el "fat build FAILED"; grep -hE "error" "$O/build_fat.log" cuda/build/*.log | head -30; exit 1; }
    grep -E "^built|^real" "$O/build_fat.log" "$O/build_ptx80.log" 2>/dev/null
    cp cuda/build/resources.txt "$O/resources_fat.txt"
  fi
  el "libraries ready"
}

summary() { grep -E -- '^(--- FAIL|FAIL|ok|PASS)' "$1" | sort | uniq -c | head -8; grep -cE -- '^--- PASS' "$1" | sed 's/^/  passed: /'; grep -E -- '^--- FAIL' "$1" | head; }

GPUT='Resident|LoadShape|BenchSetup|Degenerate|Unpack|Packed|Pinned|Pool|OutOfMemory|PinHost|Groth16ProofMatchesCPU|NTT|Quotient|MSM|Arith|MemoryLimit|FieldOps'
gpu_tests() { # $1 arith, $2 label
  (cd prover/backend/gpu && SP_TEST_GPU_ARITH=$1 timeout ${GPU_TO:-240} "$B/gpu.test" -test.short -test.v -test.run "$GPUT" \
    >"$O/gpu_$2.txt" 2>&1; echo "rc=$?" >>"$O/gpu_$2.txt")
  el "gpu tests $2: $(tail -1 "$O/gpu_$2.txt")"; summary "$O/gpu_$2.txt"
}
equal_tests() {
  (cd sealer && SP_TEST_GPU_ARITH=$1 timeout ${EQ_TO:-240} "$B/sealer.test" -test.run TestGPUPathEqualsCPU -test.v -gpu.equal \
    >"$O/equal_$2.txt" 2>&1; echo "rc=$?" >>"$O/equal_$2.txt")
  el "GPU=CPU proof bytes $2: $(tail -1 "$O/equal_$2.txt")"; grep -E -- '--- |differ' "$O/equal_$2.txt"
}
pipeline_tests() {
  (cd prover/pipeline && SP_TEST_GPU_ARITH=$1 timeout ${PIPE_TO:-150} "$B/pipeline.test" -test.run TestGPUResidentPipeline -test.v \
    -pipeline.gpulib ../../cuda/build/libsnarkpipe_cuda.so -pipeline.gpulog 22 -pipeline.gpuproofs 3 >"$O/pipeline_$2.txt" 2>&1
    echo "rc=$?" >>"$O/pipeline_$2.txt")
  el "resident pipeline $2: $(tail -1 "$O/pipeline_$2.txt")"; grep -E -- '--- |device:' "$O/pipeline_$2.txt" | head -4
}

case "${PHASE:-tests}" in
tests)
  build_libs
  for a in fp64 int; do gpu_tests $a $a; done
  for a in fp64 int; do equal_tests $a $a; done
  for a in fp64 int; do pipeline_tests $a $a; done
  if [ -f cuda/build/ptx80/libsnarkpipe_cuda.so ] && [ "$(left)" -gt 120 ]; then
    export CUDA_CACHE_MAXSIZE=4294967296  # the driver's compiled PTX, kept for the next test binary
    mv cuda/build/libsnarkpipe_cuda.so cuda/build/fat.so
    cp cuda/build/ptx80/libsnarkpipe_cuda.so cuda/build/libsnarkpipe_cuda.so
    GPU_TO=$(($(left) - 60)) gpu_tests int ptx80
    [ "$(left)" -gt 60 ] && EQ_TO=$(($(left) - 20)) equal_tests int ptx80
    mv -f cuda/build/fat.so cuda/build/libsnarkpipe_cuda.so
  fi
  ;;
caps | final)
  build_libs
  if [ "${PHASE}" = final ]; then
    for a in fp64 int; do gpu_tests $a $a; done
    equal_tests fp64 fp64
    for size in 8MiB 512MiB; do
      for a in fp64 int; do
        timeout 150 "$B/snarkpipe" bench porep --size $size --proofs 2 --device-memory-limit 4 --gpu-arith $a \
          --lib cuda/build/libsnarkpipe_cuda.so --json "$O/cap4_${size}_$a.json" >"$O/cap4_${size}_$a.txt" 2>&1
        el "PoRep $size under 4 GiB, $a: rc=$?"; grep -E 'backend:|steady|peak GPU|verified|rror' "$O/cap4_${size}_$a.txt" | cut -c1-300 | head -6
      done
    done
    timeout $(($(left) - 10)) "$B/snarkpipe" bench porep --size 32GiB --proofs ${PROOFS:-3} --gpu-arith fp64 \
      --lib cuda/build/libsnarkpipe_cuda.so --json "$O/porep32_fp64.json" >"$O/porep32_fp64.txt" 2>&1
    el "32 GiB PoRep fp64 rc=$?"; grep -E 'backend:|setup \(|first proof|steady|proving wall|peak|verified ' "$O/porep32_fp64.txt" | cut -c1-260
    el "done"; exit 0
  fi
  el "32 GiB PoRep under a 24 GiB cap (must fail fast)"
  s=$(date +%s%N)
  timeout 120 "$B/snarkpipe" bench porep --size 32GiB --proofs 1 --device-memory-limit 24 --lib cuda/build/libsnarkpipe_cuda.so \
    >"$O/refuse32.txt" 2>&1
  rc=$?
  el "refused rc=$rc after $((($(date +%s%N) - s) / 1000000)) ms"; cut -c1-700 "$O/refuse32.txt" | tail -4
  for size in 8MiB 512MiB; do
    timeout 150 "$B/snarkpipe" bench porep --size $size --proofs 2 --device-memory-limit 4 --lib cuda/build/libsnarkpipe_cuda.so \
      --json "$O/cap4_$size.json" >"$O/cap4_$size.txt" 2>&1
    el "PoRep $size under 4 GiB rc=$?"; grep -E 'backend:|setup done|steady|peak|verified|FAIL|rror' "$O/cap4_$size.txt" | cut -c1-300 | head -8
  done
  timeout 200 "$B/snarkpipe" bench gpu --lib cuda/build/libsnarkpipe_cuda.so --gpu-arith fp64 >"$O/kern_fp64.txt" 2>&1
  el "bench gpu fp64 rc=$?"; cat "$O/kern_fp64.txt"
  timeout 120 "$B/snarkpipe" bench gpu --lib cuda/build/libsnarkpipe_cuda.so --gpu-arith int --g1-max 20 --g2-max 20 >"$O/kern_int.txt" 2>&1
  el "bench gpu int rc=$?"; grep -E 'device|NTT|ntt' "$O/kern_int.txt"
  ;;
porep32)
  build_libs
  for a in fp64 int; do
    timeout ${BENCH_TO:-330} "$B/snarkpipe" bench porep --size 32GiB --proofs ${PROOFS:-3} --gpu-arith $a \
      --lib cuda/build/libsnarkpipe_cuda.so --recordings /tmp/sp_rec --json "$O/porep32_$a.json" >"$O/porep32_$a.txt" 2>&1
    el "32 GiB PoRep $a rc=$?"; grep -E 'backend:|setup done|mean|first proof|steady|peak|verified ' "$O/porep32_$a.txt" | cut -c1-260
  done
  ;;
esac
el "done"
