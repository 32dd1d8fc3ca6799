#!/bin/bash
# GPU kernel run (issue 7), on the device machine from the repository root (see
# docs/BENCHMARKS.md, "GPU kernels"): build the library (A: the candidate; B: the previous
# Montgomery product without the tuning variants, for comparison), run the kernel tests
# against A, benchmark both, profile one 2^27 G1 MSM, and print a short table last. Full
# logs under $OUT. Environment knobs (TOTAL, TESTS, G1TA, ...) are read below. Library A
# has only the units in UNITS_A (default "context fr ntt_fp64 ntt_int g1 g2"): tests of the resident path
# (TestResident*, the out-of-memory tests) need "context fr ntt_fp64 ntt_int g1 g2 spmv".
set -u
# Logs go to a folder that is bundled into one file at exit: the device tool returns
# only a few files from $OUT.
OUTDIR=${OUT:-/tmp/kern_out}
O=$OUTDIR/k
trap 'tar -czf "$OUTDIR/kern_logs.tgz" -C "$OUTDIR" k && rm -rf "$O"' EXIT
mkdir -p "$O"
ROOT=$(pwd)
T0=$(date +%s)
el() { echo "[$(($(date +%s) - T0))s] $*"; }
# budget WANT: the seconds a step may take, at most what is left of TOTAL minus a reserve
# for the summary (the run is killed at its limit, and the table must be printed first).
TOTAL=${TOTAL:-275}
budget() {
  local left=$((TOTAL - ($(date +%s) - T0)))
  [ "$left" -lt 1 ] && left=1
  [ "$1" -lt "$left" ] && echo "$1" || echo "$left"
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv >"$O/smi.txt" 2>&1
cat "$O/smi.txt"
nvcc --version | tail -2
el "build A and B in parallel"
# FLAGS_A: nvcc flags of the candidate (e.g. -DSP_NTT_RADIX8); FLAGS_B those of the
# comparison build (default: the previous product, no MSM variants; "" for the default
# sources, so that A − B is what FLAGS_A changes).
(SP_BUILD_DIR=$ROOT/cuda/build SP_UNITS="${UNITS_A:-context fr ntt_fp64 ntt_int g1 g2}" timeout ${BUILD_TO:-170} sh cuda/build.sh ${FLAGS_A:-} >"$O/buildA.log" 2>&1; echo $? >"$O/buildA.rc") &
# BUILD_B=0: no comparison build (and no bench B).
if [ "${BUILD_B:-1}" = 1 ]; then
  (SP_BUILD_DIR=$ROOT/cuda/build/fullcarry SP_UNITS="context fr ntt_fp64 ntt_int g1 g2" timeout ${BUILD_TO:-170} sh cuda/build.sh \
    ${FLAGS_B--DSP_MUL_FULL_CARRY -DSP_NO_MSM_VARIANTS} >"$O/buildB.log" 2>&1; echo $? >"$O/buildB.rc") &
else
  echo 1 >"$O/buildB.rc"
fi
# FLAGS_C: a third build (NTT rows only), e.g. a second candidate against the same B.
if [ -n "${FLAGS_C:-}" ]; then
  (SP_BUILD_DIR=$ROOT/cuda/build/c SP_UNITS="context fr ntt_fp64 ntt_int g1 g2" timeout ${BUILD_TO:-170} sh cuda/build.sh \
    $FLAGS_C >"$O/buildC.log" 2>&1; echo $? >"$O/buildC.rc") &
fi
wait
cp cuda/build/resources.txt "$O/resA.txt" 2>/dev/null
cp cuda/build/fullcarry/resources.txt "$O/resB.txt" 2>/dev/null
cp cuda/build/c/resources.txt "$O/resC.txt" 2>/dev/null
for u in context fr ntt_fp64 ntt_int g1 g2; do cp cuda/build/$u.log "$O/ptxasA_$u.log" 2>/dev/null; cp cuda/build/fullcarry/$u.log "$O/ptxasB_$u.log" 2>/dev/null; done
RA=$(cat "$O/buildA.rc"); RB=$(cat "$O/buildB.rc")
el "build A rc=$RA, B rc=$RB"
tail -5 "$O/buildA.log"; tail -3 "$O/buildB.log"
LIBA=$ROOT/cuda/build/libsnarkpipe_cuda.so
LIBB=$ROOT/cuda/build/fullcarry/libsnarkpipe_cuda.so
if [ "$RA" != 0 ]; then
  grep -E "error" "$O/buildA.log" | head -20
  if [ "$RB" = 0 ]; then cp "$LIBB" "$LIBA"; LIBA=$LIBB; echo "A failed: using B as the tests' library"; else exit 1; fi
fi
cd prover/backend/gpu
T=${GPU_TEST:-$ROOT/devrun/kern/gpu.test}
el "tests"
timeout $(budget ${TEST_TO:-80}) $T -test.short -test.v -test.run "${TESTS:-TestFieldOps|TestNTT|TestQuotientH|TestMSM|TestBatchAdd|TestGenBases}" >"$O/testA.log" 2>&1
echo "tests rc=$?"
grep -E '^(--- FAIL|--- PASS|ok|FAIL|PASS)|mismatch|panic' "$O/testA.log" | head -40
# The 2^25-point MSM against the sum of its 2^20-point chunks (skipped by -short): the
# pair rounds and the window batches at a real size. LARGE=0 skips it.
if [ "${LARGE:-1}" = 1 ]; then
  timeout $(budget ${LARGE_TO:-60}) $T -test.v -test.run 'TestMSMLargeSplitsAgree' >"$O/testA_large.log" 2>&1
  echo "large MSM test rc=$?"
  grep -E '^(--- FAIL|--- PASS)' "$O/testA_large.log"
fi
if [ "$LIBA" = "$LIBB" ]; then G1TA=""; G2TA=""; fi  # the comparison build has no variants
el "bench A: NTT"
timeout $(budget ${BENCHN_TO:-40}) $T -test.run TestBenchFull -gpubench -gpubench.compare -gpubench.lib "$LIBA" \
  -gpubench.min 10,10,${NTTMIN:-25} -gpubench.g1max 10 -gpubench.g2max 10 -gpubench.nttmax ${NTTMAX:-27} >"$O/benchA_ntt.log" 2>&1
echo "bench A ntt rc=$?"
el "bench A: MSM"
timeout $(budget ${BENCHA_TO:-100}) $T -test.run TestBenchFull -gpubench -gpubench.compare -gpubench.lib "$LIBA" \
  -gpubench.min ${MINA:-25,25},10 -gpubench.g1max ${G1MAX:-27} -gpubench.g2max ${G2MAX:-25} -gpubench.nttmax 10 \
  -gpubench.g1tune "${G1TA-0x100,0x200,0x300,0x7000,0x70000}" -gpubench.g2tune "${G2TA-0x100,0x200}" >"$O/benchA.log" 2>&1
echo "bench A msm rc=$?"
if [ "${NCU:-1}" = 1 ] && command -v ncu >/dev/null; then
  el "ncu: kernel times of the first 2^27 random G1 MSM (library A)"
  timeout $(budget ${NCU_TO:-45}) ncu --clock-control none --csv --metrics gpu__time_duration.sum \
    -k "regex:msm_|Radix|Select|reduce|sum_chunks|batch_add|add_into|Onesweep|Histogram|Scan" --launch-count ${NCU_COUNT:-70} \
    $T -test.run TestBenchFull -gpubench -gpubench.compare -gpubench.lib "$LIBA" -gpubench.min 27,20,20 \
    -gpubench.g1max 27 -gpubench.g2max 20 -gpubench.nttmax 20 >"$O/ncu.csv" 2>"$O/ncu.err"
  echo "ncu rc=$?"
  python3 - "$O/ncu.csv" <<'PY' >"$O/ncu_summary.txt" 2>&1
import csv, sys, collections
tot = collections.OrderedDict(); cnt = collections.Counter()
rows = [l for l in open(sys.argv[1]) if l.startswith('"')]
for r in csv.DictReader(rows):
    if r.get("Metric Name") != "gpu__time_duration.sum": continue
    name = r["Kernel Name"].split("(")[0][:70]
    v = float(r["Metric Value"].replace(",", ""))
    unit = r.get("Metric Unit", "nsecond")
    v *= {"nsecond": 1e-6, "usecond": 1e-3, "msecond": 1.0, "second": 1e3}.get(unit, 1e-6)
    tot[name] = tot.get(name, 0) + v; cnt[name] += 1
for k, v in sorted(tot.items(), key=lambda kv: -kv[1]):
    print(f"{v:9.2f} ms {cnt[k]:4d}x {k}")
print(f"{sum(tot.values()):9.2f} ms total")
PY
fi
if [ "$RB" = 0 ] && [ "$LIBA" != "$LIBB" ]; then
  el "bench B"
  timeout $(budget ${BENCHB_TO:-40}) $T -test.run TestBenchFull -gpubench -gpubench.lib "$LIBB" -gpubench.compare \
    -gpubench.min ${MINB:-27,25,27} -gpubench.g1max ${G1MAX:-27} -gpubench.g2max ${G2MAX:-25} -gpubench.nttmax ${NTTMAX:-27} -gpubench.g1tune "" -gpubench.g2tune "" >"$O/benchB.log" 2>&1
  echo "bench B rc=$?"
fi
if [ -n "${FLAGS_C:-}" ] && [ "$(cat "$O/buildC.rc")" = 0 ]; then
  el "bench C: NTT"
  timeout $(budget ${BENCHN_TO:-40}) $T -test.run TestBenchFull -gpubench -gpubench.compare -gpubench.lib "$ROOT/cuda/build/c/libsnarkpipe_cuda.so" \
    -gpubench.min 10,10,${NTTMIN:-25} -gpubench.g1max 10 -gpubench.g2max 10 -gpubench.nttmax ${NTTMAX:-27} >"$O/benchC_ntt.log" 2>&1
  echo "bench C ntt rc=$?"
fi
el "done"
echo "=== resources (A)"
grep -E "msm_segments|ntt_pass|mul_call|msm_bucket" "$O/resA.txt" | sed 's/_ZN9snarkpipe//' | cut -c1-150 | head -24
echo "=== resources (B)"
grep -E "msm_segments|mul_call|ntt_pass" "$O/resB.txt" | sed 's/_ZN9snarkpipe//' | cut -c1-150 | head -8
echo "=== bench A"
grep -E '^(ntt|device)' "$O/benchA_ntt.log"
grep -E 'FAIL|Error|error' "$O/benchA_ntt.log" | head -5
grep -E '^(g1|g2|generated)|^  \(of' "$O/benchA.log"
grep -E 'FAIL|Error|error' "$O/benchA.log" | head -5
echo "=== ncu (first 2^27 G1 MSM, A)"
head -16 "$O/ncu_summary.txt" 2>/dev/null
if [ -n "${FLAGS_C:-}" ]; then
  echo "=== bench C ($FLAGS_C)"
  grep -E "ntt_pass" "$O/resC.txt" | sed 's/_ZN9snarkpipe//' | cut -c1-150 | head -4
  grep -E '^ntt' "$O/benchC_ntt.log" 2>/dev/null
fi
echo "=== bench B (full-carry product)"
grep -E '^(g1|g2|ntt)|^  \(of' "$O/benchB.log" 2>/dev/null
