#!/bin/sh
# Builds cuda/build/libsnarkpipe_cuda.so: sm_90 machine code plus compute_90 PTX (newer
# GPUs JIT it), CUDA runtime linked statically. Usage: cuda/build.sh [nvcc flags...]
# For comparison builds: SP_BUILD_DIR (output folder, default cuda/build) and SP_UNITS
# (the .cu units, default all; context, fr, g1 and g2 are the ones cuda.go requires).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out="${SP_BUILD_DIR:-$here/build}"
units="${SP_UNITS:-context fr g1 g2 spmv setup host}"
mkdir -p "$out"
NVCC=nvcc
flags="-std=c++17 -O3 -Xcompiler -fPIC -cudart static \
  -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 \
  -Xptxas -v"
objs=""
pids=""
# The units are independent: compile them in parallel.
for src in $units; do
  "$NVCC" $flags "$@" -c "$here/$src.cu" -o "$out/$src.o" >"$out/$src.log" 2>&1 &
  pids="$pids $!"
  objs="$objs $out/$src.o"
done
fail=0
for p in $pids; do wait "$p" || fail=1; done
if [ "$fail" != 0 ]; then
  for src in $units; do grep -E "error|warning" "$out/$src.log" || true; done
  exit 1
fi
# Registers, stack and spills per kernel (ptxas names the function, then its resources).
for src in $units; do
  awk -v unit="$src" '/Compiling entry function/ { f = $0; sub(/.*function .?/, "", f); sub(/.? for .*/, "", f) }
    /Function properties for/ { f = $0; sub(/.*properties for /, "", f) }
    /Used [0-9]+ registers/ { r = $0; sub(/.*Used /, "", r); print unit ": " substr(f, 1, 90) ": " r }
    /bytes stack frame/ { s = $0; sub(/^ */, "", s); if (s ~ /[1-9][0-9]* bytes (stack|spill)/) print unit ": " substr(f, 1, 90) ": " s }' \
    "$out/$src.log"
done >"$out/resources.txt"
grep -hE "msm_segments|ntt_pass|mul_call|msm_bucket_reduce|batch_add_partials" "$out/resources.txt" | head -60 || true
"$NVCC" -shared -cudart static -gencode arch=compute_90,code=sm_90 $objs -o "$out/libsnarkpipe_cuda.so"
echo "built $out/libsnarkpipe_cuda.so"
