#!/bin/sh
# Builds cuda/build/libsnarkpipe_cuda.so, CUDA runtime linked statically, with machine code
# for every GPU generation storage providers prove on plus PTX of the newest (newer GPUs
# compile it at load):
#   sm_80 A100 · sm_86 RTX 3090 · sm_89 RTX 4090, L40S · sm_90 H100, H200 ·
#   sm_100 B200 · sm_120 RTX 5090, 5070 Ti, RTX PRO 6000
# Usage: cuda/build.sh [nvcc flags...]. Environment:
#   SP_ARCHS  the machine-code architectures (default "80 86 89 90 100 120"; "90" for a
#             quick build for the H200; "none" for PTX only)
#   SP_PTX    the PTX architecture (default: the last of SP_ARCHS; "none" for no PTX);
#             SP_ARCHS=none SP_PTX=80 builds a library the driver compiles on any GPU
#   SP_BUILD_DIR (output folder, default cuda/build) and SP_UNITS (the .cu units, default
#             all; context, fr, ntt_fp64, ntt_int, g1 and g2 are the ones cuda.go requires)
#   SP_NVCC_THREADS  nvcc threads per unit (default 4): the architectures of a unit
#             compile in parallel
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out="${SP_BUILD_DIR:-$here/build}"
units="${SP_UNITS:-context fr ntt_fp64 ntt_int g1 g2 spmv setup host}"
archs="${SP_ARCHS:-80 86 89 90 100 120}"
[ "$archs" = none ] && archs=""
last=""
for a in $archs; do last=$a; done
ptx="${SP_PTX:-$last}"
[ "$ptx" = none ] && ptx=""
gencode=""
desc=""
for a in $archs; do
  gencode="$gencode -gencode arch=compute_$a,code=sm_$a"
  desc="$desc${desc:+,}sm_$a"
done
if [ -n "$ptx" ]; then
  gencode="$gencode -gencode arch=compute_$ptx,code=compute_$ptx"
  desc="$desc${desc:+,}compute_$ptx"
fi
[ -n "$gencode" ] || { echo "build.sh: no architecture (SP_ARCHS and SP_PTX both none)"; exit 2; }
mkdir -p "$out"
NVCC=nvcc
flags="-std=c++17 -O3 -Xcompiler -fPIC -cudart static $gencode --threads ${SP_NVCC_THREADS:-4} -Xptxas -v \
  -DSP_BUILD_ARCHS=\"$desc\""
objs=""
pids=""
start=$(date +%s)
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
# Registers, stack and spills per kernel (ptxas names the function, then its resources;
# with several architectures, each kernel once per architecture, in the order built).
for src in $units; do
  awk -v unit="$src" '/Compiling entry function/ { f = $0; sub(/.*function .?/, "", f); sub(/.? for .*/, "", f); a = $0; sub(/.* for .?/, "", a); sub(/.?$/, "", a) }
    /Function properties for/ { f = $0; sub(/.*properties for /, "", f) }
    /Used [0-9]+ registers/ { r = $0; sub(/.*Used /, "", r); print unit " " a ": " substr(f, 1, 90) ": " r }
    /bytes stack frame/ { s = $0; sub(/^ */, "", s); if (s ~ /[1-9][0-9]* bytes (stack|spill)/) print unit " " a ": " substr(f, 1, 90) ": " s }' \
    "$out/$src.log"
done >"$out/resources.txt"
grep -hE "msm_segments|ntt_pass|mul_call|msm_bucket_reduce|batch_add_partials" "$out/resources.txt" | head -60 || true
"$NVCC" -shared -cudart static $gencode $objs -o "$out/libsnarkpipe_cuda.so"
echo "built $out/libsnarkpipe_cuda.so ($desc) in $(($(date +%s) - start)) s, $(du -k "$out/libsnarkpipe_cuda.so" | cut -f1) KiB"
