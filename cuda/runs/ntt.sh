#!/bin/bash
# NTT variants on the device machine (issue 7), from the repository root. Prepare here and
# carry devrun/kern:
#   CGO_ENABLED=0 go test -c -o devrun/kern/gpu.test ./prover/backend/gpu
# Builds library A (the sources as they are: context fr ntt_fp64 ntt_int g1 g2) and, for each variant of
# VARIANTS ("name:nvcc flags;name:flags", e.g. "nospec:-DSP_NTT_NO_SPECIALIZE"), ntt_fp64.cu again
# with its flags, linked with A's other units (the FP64 NTT lives in ntt_fp64.cu). Then for A and every
# variant: the NTT, coset and quotient tests (short and full size) and the NTT rows from
# 2^NTTMIN to 2^27 (median of REPEATS after a warm-up), the builds taking turns ROUNDS
# times so that drift hits them alike. NCU=1 adds a Nsight Compute profile of library A's
# 2^27 coset passes (full section set) and the times of every kernel of one coset call.
# Logs come back in $OUT/ntt_logs.tgz; a table is printed last.
set -u
OUTDIR=${OUT:-/tmp/ntt_out}
O=$OUTDIR/n
trap 'tar -czf "$OUTDIR/ntt_logs.tgz" -C "$OUTDIR" n && rm -rf "$O"' EXIT
mkdir -p "$O"
ROOT=$(pwd)
T0=$(date +%s)
el() { echo "[$(($(date +%s) - T0))s] $*"; }
T=${GPU_TEST:-$ROOT/devrun/kern/gpu.test}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv | tee "$O/smi.txt"
el "build A and the variants' ntt_fp64.cu"
B=$ROOT/cuda/build
NAMES="A"
IFS=';' read -ra VS <<<"${VARIANTS:-}"
for v in "${VS[@]}"; do
  [ -z "$v" ] && continue
  name=${v%%:*} flags=${v#*:}
  mkdir -p "$B/v_$name"
  nvcc -std=c++17 -O3 -Xcompiler -fPIC -cudart static -gencode arch=compute_90,code=sm_90 -Xptxas -v ${FLAGS_A:-} $flags \
    -c cuda/ntt_fp64.cu -o "$B/v_$name/ntt_fp64.o" >"$O/build_$name.log" 2>&1 &
  NAMES="$NAMES $name"
done
SP_UNITS="context fr ntt_fp64 ntt_int g1 g2" sh cuda/build.sh ${FLAGS_A:-} >"$O/buildA.log" 2>&1 || { grep -E "error" "$O/buildA.log" | head -20; exit 1; }
wait
grep ntt_pass "$B/resources.txt" | sed 's/_ZN9snarkpipe//' | cut -c1-160 >"$O/resA.txt"
for n in $NAMES; do
  [ "$n" = A ] && continue
  d=$B/v_$n
  [ -f "$d/ntt_fp64.o" ] && nvcc -shared -cudart static -gencode arch=compute_90,code=sm_90 "$B/context.o" "$B/fr.o" "$d/ntt_fp64.o" "$B/ntt_int.o" "$B/g1.o" "$B/g2.o" \
    -o "$d/libsnarkpipe_cuda.so" >>"$O/build_$n.log" 2>&1
done
el "built: $NAMES"
cp "$B/libsnarkpipe_cuda.so" "$B/v_A.so"
lib() { [ "$1" = A ] && echo "$B/v_A.so" || echo "$B/v_$1/libsnarkpipe_cuda.so"; }
# PROBE=1: the FP64 product alone (cuda/probe: rate and SASS mix), A's flags and PROBE_FLAGS.
if [ "${PROBE:-0}" = 1 ]; then
  for pf in "" ${PROBE_FLAGS:-}; do
    d=$O/probe${pf:+_${pf#-D}}
    mkdir -p "$d"
    NVCC_APPEND_FLAGS="${FLAGS_A:-} $pf" timeout 120 sh cuda/probe/run.sh "$d" >"$d/out.txt" 2>&1
    el "probe $pf rc=$?"
  done
fi
# Clocks, power and throttle reasons while the tests and benches run.
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader \
  -lms 250 >"$O/smi_log.csv" 2>&1 &
SMI=$!
cd prover/backend/gpu
for n in $NAMES; do
  L=$(lib "$n")
  [ -f "$L" ] || { echo "variant $n: no library"; grep -E "error" "$O/build_$n.log" | head; continue; }
  [ "$n" != A ] && awk '/Function properties for .*ntt_pass/ {f=$0} /Used [0-9]+ registers|spill/ { if (f) print f " :: " $0 }' "$O/build_$n.log" |
    sed 's/_ZN9snarkpipe//' | cut -c1-200 >"$O/res_$n.txt"
  cp "$L" "$B/libsnarkpipe_cuda.so"  # the tests load cuda/build/libsnarkpipe_cuda.so
  timeout ${TEST_TO:-90} $T -test.v -test.run 'TestFieldOps|TestNTT|TestQuotientH' >"$O/test_$n.log" 2>&1
  echo "tests $n rc=$? $(grep -c '^--- PASS' "$O/test_$n.log") passed, $(grep -c '^--- FAIL' "$O/test_$n.log") failed"
done
cp "$B/v_A.so" "$B/libsnarkpipe_cuda.so"
for r in $(seq 1 "${ROUNDS:-2}"); do
  for n in $NAMES; do
    L=$(lib "$n")
    [ -f "$L" ] || continue
    timeout ${BENCH_TO:-60} $T -test.run TestBenchFull -gpubench -gpubench.lib "$L" -gpubench.min 10,10,${NTTMIN:-25} \
      -gpubench.g1max 10 -gpubench.g2max 10 -gpubench.nttmax 27 >"$O/bench_${n}_$r.log" 2>&1
    el "bench $n round $r rc=$?"
  done
done
if [ "${NCU:-0}" = 1 ] && command -v ncu >/dev/null; then
  # The bench makes, per size, 4 forward calls (3 passes each), then the coset calls: with
  # NTTMIN=27 the coset passes are ntt_pass launches 13 to 15.
  ARGS="-test.run TestBenchFull -gpubench -gpubench.lib $B/v_A.so -gpubench.min 10,10,27 -gpubench.g1max 10 -gpubench.g2max 10 -gpubench.nttmax 27"
  timeout ${NCU_TO:-150} ncu --clock-control none --set full -k regex:'^ntt_pass' --launch-skip 12 --launch-count 3 \
    -f -o "$O/coset" $T $ARGS >"$O/ncu_coset.log" 2>&1
  el "ncu coset passes rc=$?"
  ncu --import "$O/coset.ncu-rep" --page details --print-units base >"$O/coset_details.txt" 2>&1
  ncu --import "$O/coset.ncu-rep" --page raw --csv >"$O/coset_raw.csv" 2>&1
  # every transform kernel (passes and twiddle tables) of the 2^27 forward and coset calls
  timeout ${NCU_TO:-150} ncu --clock-control none --csv --metrics gpu__time_duration.sum -k regex:'ntt|pow_table' --launch-count 130 \
    $T $ARGS >"$O/ncu_times.csv" 2>"$O/ncu_times.err"
  el "ncu kernel times rc=$?"
fi
kill $SMI 2>/dev/null
el "done"
echo "=== ntt_pass resources"
cat "$O/resA.txt"
for n in $NAMES; do [ -f "$O/res_$n.txt" ] && { echo "-- $n"; cat "$O/res_$n.txt"; }; done
echo "=== NTT rows (ms), one column per round"
python3 - "$O" $NAMES <<'PY'
import sys, re, glob, collections
d, names = sys.argv[1], sys.argv[2:]
rows = collections.OrderedDict()
for n in names:
    for f in sorted(glob.glob(f"{d}/bench_{n}_*.log")):
        for line in open(f):
            m = re.match(r"^(ntt\S*)\s+2\^(\d+)\s+([\d.]+) ms", line)
            if m:
                rows.setdefault((m.group(1), int(m.group(2))), collections.OrderedDict()).setdefault(n, []).append(m.group(3))
for (k, lg), per in rows.items():
    print(f"{k:24s} 2^{lg}  " + "  ".join(f"{n}: {'/'.join(v)}" for n, v in per.items()))
PY
echo "=== SM clock (MHz) / power (W) / throttle reasons during tests and benches"
python3 - "$O/smi_log.csv" <<'PY'
import sys, collections
clk, pw, thr = [], [], collections.Counter()
for line in open(sys.argv[1]):
    f = [x.strip() for x in line.split(",")]
    if len(f) < 5 or not f[1].split()[0].isdigit(): continue
    c = int(f[1].split()[0])
    if c < 1000: continue  # idle between calls
    clk.append(c); pw.append(float(f[2].split()[0])); thr[f[4]] += 1
clk.sort(); pw.sort()
if clk:
    q = lambda v, p: v[min(len(v) - 1, int(p * len(v)))]
    print(f"samples {len(clk)}: clock min {clk[0]} p10 {q(clk,.1)} median {q(clk,.5)} max {clk[-1]}; power median {q(pw,.5)} max {pw[-1]}")
    print("throttle reasons:", dict(thr.most_common(5)))
PY
for d in "$O"/probe*; do [ -d "$d" ] && { echo "=== $(basename "$d")"; grep -E "Gmul|mismatch|instructions|DFMA|IADD" "$d/out.txt" | head -12; }; done
if [ -f "$O/coset_details.txt" ]; then
  echo "=== ncu: coset passes (A)"
  grep -E "^  ntt_pass|Duration|Issue Slots Busy|Warp Cycles Per Issued|Achieved Occupancy|DRAM Throughput|Memory Throughput|Registers Per|L2 Hit Rate|Compute \(SM\) Throughput" "$O/coset_details.txt" | head -60
fi
