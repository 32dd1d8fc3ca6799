#!/bin/sh
# Builds cuda/build/libsnarkpipe_cuda.so: sm_90 machine code plus compute_90 PTX (newer
# GPUs JIT it), CUDA runtime linked statically. Usage: cuda/build.sh [nvcc flags...]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out="$here/build"
mkdir -p "$out"
NVCC=nvcc
flags="-std=c++17 -O3 -Xcompiler -fPIC -cudart static \
  -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 \
  -Xptxas -v"
objs=""
pids=""
# The units are independent: compile them in parallel.
for src in context fr g1 g2 spmv setup host; do
  "$NVCC" $flags "$@" -c "$here/$src.cu" -o "$out/$src.o" >"$out/$src.log" 2>&1 &
  pids="$pids $!"
  objs="$objs $out/$src.o"
done
fail=0
for p in $pids; do wait "$p" || fail=1; done
if [ "$fail" != 0 ]; then
  for src in context fr g1 g2 spmv setup host; do grep -E "error|warning" "$out/$src.log" || true; done
  exit 1
fi
grep -hE "spill|Used [0-9]+ registers" "$out"/*.log | sort | uniq -c | sort -rn | head -40 || true
"$NVCC" -shared -cudart static -gencode arch=compute_90,code=sm_90 $objs -o "$out/libsnarkpipe_cuda.so"
echo "built $out/libsnarkpipe_cuda.so"
