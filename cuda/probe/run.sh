#!/bin/sh
# Builds and runs cuda/probe/mulprobe.cu on a GPU host (nvcc, sm_90), then counts the
# SASS instructions of the out-of-line products: sh cuda/probe/run.sh [outdir]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../build/probe}
mkdir -p "$out"
nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -Xptxas -v -o "$out/mulprobe" "$here/mulprobe.cu" >"$out/ptxas.log" 2>&1 ||
  { cat "$out/ptxas.log"; exit 1; }
grep -E "registers|spill" "$out/ptxas.log" | sed 's/ptxas info *: //' | cut -c1-160 >"$out/resources.txt" || true
"$out/mulprobe"
cuobjdump -sass "$out/mulprobe" >"$out/sass.txt"
# Instruction mix of each out-of-line product (mul_call, mul29_call, dpf_call): opcode counts.
python3 - "$out/sass.txt" <<'PY'
import re, sys, collections
fn, mix = None, collections.OrderedDict()
for line in open(sys.argv[1]):
    m = re.match(r'\s*Function : (\S+)', line)
    if m:
        fn = m.group(1) if any(k in m.group(1) for k in ('mul_call', 'mul29_call', 'dpf_call')) else None
        if fn: mix[fn] = collections.Counter()
        continue
    if fn:
        m = re.match(r'\s*/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)', line)
        if m: mix[fn][m.group(1)] += 1
for fn, c in mix.items():
    print(f"{fn[:70]}: {sum(c.values())} instructions")
    print("   " + ", ".join(f"{k} {v}" for k, v in c.most_common(12)))
PY
