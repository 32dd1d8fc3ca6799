#!/bin/bash
# Kernel profile (issue 7), on the device machine from the repository root: where the time
# of a 2^27 NTT and a 2^27 random G1 MSM goes. Prepare here and carry devrun/prof:
#   CGO_ENABLED=0 go test -c -o devrun/prof/gpu.test ./prover/backend/gpu
# Then: bash cuda/runs/profile.sh. It builds the library (or takes LIB=path), then with
# Nsight Compute (--clock-control none, METHOD.md): the kernel times of the first 2^27 G1
# MSM, and the full section set of one launch of each NTT pass kernel, the MSM
# accumulation and the bucket reduction. Reports (.ncu-rep and text) go to $OUT/prof.tgz.
set -u
O=${OUT:-/tmp/prof_out}
mkdir -p "$O/prof"
ROOT=$(pwd)
T0=$(date +%s)
el() { echo "[$(($(date +%s) - T0))s] $*"; }
T=$ROOT/devrun/prof/gpu.test
LIB=${LIB:-}
if [ -z "$LIB" ]; then
  sh cuda/build.sh ${NVFLAGS--DSP_NTT_RADIX8} >"$O/prof/build.log" 2>&1 || { el "build FAILED"; grep -E error "$O/prof/build.log" | head; exit 1; }
  LIB=$ROOT/cuda/build/libsnarkpipe_cuda.so
  cp cuda/build/resources.txt "$O/prof/resources.txt"
fi
el "library ready"
cd prover/backend/gpu
NCU="ncu --clock-control none"
# ntt: the first three launches of each pass kernel are a 2^27 forward transform's passes
# (the library is built with -DSP_NTT_RADIX8 so that both kernels run: -gpubench.compare
# adds the legacy rows).
NTTARGS="-test.run TestBenchFull -gpubench -gpubench.compare -gpubench.lib $LIB -gpubench.min 10,10,27 -gpubench.g1max 10 -gpubench.g2max 10 -gpubench.nttmax 27"
MSMARGS="-test.run TestBenchFull -gpubench -gpubench.lib $LIB -gpubench.min 27,20,20 -gpubench.g1max 27 -gpubench.g2max 20 -gpubench.nttmax 20 -gpubench.compare"
timeout ${NTT_TO:-90} $NCU --set full -k regex:'^ntt_pass$' --launch-count 3 -f -o "$O/prof/ntt" $T $NTTARGS >"$O/prof/ntt.log" 2>&1
el "ncu ntt (legacy) rc=$?"
timeout ${NTT_TO:-90} $NCU --set full -k regex:ntt_pass_radix8 --launch-count 3 -f -o "$O/prof/ntt8" $T $NTTARGS >"$O/prof/ntt8.log" 2>&1
el "ncu ntt (radix-8) rc=$?"
timeout ${TIMES_TO:-60} $NCU --csv --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread \
  -k "regex:msm_|Radix|Select|reduce|sum_chunks|batch_add|add_into|Onesweep|Histogram|Scan" --launch-count ${NCU_COUNT:-80} $T $MSMARGS >"$O/prof/msm_times.csv" 2>"$O/prof/msm_times.err"
el "ncu msm times rc=$?"
timeout ${MSM_TO:-120} $NCU --set full -k regex:'msm_segments|msm_bucket_reduce' --launch-count 2 -f -o "$O/prof/msm" $T $MSMARGS >"$O/prof/msm.log" 2>&1
el "ncu msm detail rc=$?"
for r in ntt ntt8 msm; do
  [ -f "$O/prof/$r.ncu-rep" ] && ncu --import "$O/prof/$r.ncu-rep" --page details --print-units base >"$O/prof/$r.txt" 2>&1
done
python3 - "$O/prof/msm_times.csv" <<'PY' >"$O/prof/msm_times.txt" 2>&1
import csv, sys, collections
tot = collections.OrderedDict(); cnt = collections.Counter(); info = {}
rows = [l for l in open(sys.argv[1]) if l.startswith('"')]
for r in csv.DictReader(rows):
    name = r["Kernel Name"].split("(")[0][:60]
    m = r.get("Metric Name")
    if m == "gpu__time_duration.sum":
        v = float(r["Metric Value"].replace(",", ""))
        v *= {"nsecond": 1e-6, "usecond": 1e-3, "msecond": 1.0, "second": 1e3}.get(r.get("Metric Unit", "nsecond"), 1e-6)
        tot[name] = tot.get(name, 0) + v; cnt[name] += 1
    elif m:
        info.setdefault(name, {})[m.split("__")[1]] = r["Metric Value"]
for k, v in sorted(tot.items(), key=lambda kv: -kv[1]):
    print(f"{v:9.2f} ms {cnt[k]:4d}x {k} {info.get(k, '')}")
print(f"{sum(tot.values()):9.2f} ms total")
PY
cd "$O" && tar -czf prof.tgz prof && trap 'rm -rf "$O/prof"' EXIT  # one file back (the tool returns few)
echo "=== msm kernel times (first launches of the 2^27 G1 bench)"
head -20 "$O/prof/msm_times.txt"
for r in ntt ntt8 msm; do
  echo "=== $r"
  grep -E "^  [a-z_].*\(|Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Executed Ipc A|Issue Slots Busy|SM Busy|Compute \(SM\) Throughput|Memory Throughput|Executed Instructions  |Shared.*Bank|Block Limit" "$O/prof/$r.txt" 2>/dev/null | sed 's/  */ /g' | cut -c1-160 | head -60
done
