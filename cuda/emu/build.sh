#!/bin/sh
# Builds cuda/build/emu/libsnarkpipe_cuda.so: the CUDA sources compiled for the host with
# g++ (kernel launches rewritten as serial loops, portable field arithmetic), so the Go
# GPU tests can check the library's logic without a GPU:
#   sh cuda/emu/build.sh && go test -short ./prover/backend/gpu/
# (-fno-strict-aliasing: the kernels read and write points through uint4 vectors, as nvcc
# allows.) SP_EMU_FLAGS adds compiler flags, e.g. SP_EMU_FLAGS=-DSP_NTT_RADIX8 to check a
# build variant. It checks nothing CUDA-specific (PTX carry chains, races, shared memory); the real
# library does that on a GPU host.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src="$here/.."
out="$src/build/emu"
mkdir -p "$out/src"
cp "$src"/*.cuh "$src"/capi.h "$out/src/"
for f in context fr ntt_fp64 ntt_int g1 g2 spmv setup host; do cp "$src/$f.cu" "$out/src/$f.cpp"; done
python3 - "$out/src" <<'PY'
import re, sys, pathlib
launch = re.compile(r'([A-Za-z_][\w:]*(?:<[^<>;()]*>)?)<<<(.*?)>>>')
def repl(m):
    kind = 'Serial' if m.group(1).startswith('ntt_pass') else 'Launch'
    return 'for (emu::%s L_(%s); L_.next();) %s' % (kind, m.group(2), m.group(1))
for p in pathlib.Path(sys.argv[1]).iterdir():
    # Dynamic shared memory is the thread_local smem_raw of cuda_runtime.h.
    text = p.read_text().replace('extern __shared__ uint4 smem_raw[];', '')
    p.write_text(launch.sub(repl, text))
PY
g++ -std=c++17 -O2 -fno-strict-aliasing -fPIC -shared -DSP_HOST_EMU ${SP_EMU_FLAGS:-} -Wno-unknown-pragmas -I"$here" -I"$out/src" -include cuda_runtime.h \
  "$out/src/context.cpp" "$out/src/fr.cpp" "$out/src/ntt_fp64.cpp" "$out/src/ntt_int.cpp" "$out/src/g1.cpp" "$out/src/g2.cpp" "$out/src/spmv.cpp" "$out/src/setup.cpp" "$out/src/host.cpp" \
  "$here/host_registry.cpp" -o "$out/libsnarkpipe_cuda.so"
echo "built $out/libsnarkpipe_cuda.so (host emulation)"
