#!/bin/bash
# Issue 14's residency measurement at 32 GiB on the nvidia-h200-x2 machine, in two device
# calls made back to back (the machine, and /tmp, stay while it is warm; an idle machine
# goes back after about 30 s, so issue the second call at once).
#   here:  CGO_ENABLED=0 go build -ldflags='-s -w' -o devrun/res/snarkpipe ./cmd/snarkpipe
#   call 1: PHASE=record bash cuda/runs/residency.sh    (carry devrun/res; ~6 min)
#   call 2: PHASE=measure bash cuda/runs/residency.sh   (same binary: the recordings'
#           keys are trusted, so no synthesis is repeated; ~7 min; PINKEYS=1 page-locks
#           the host keys, PROOFS=N sets the 32 GiB proofs, default 4)
# record builds the library and records both circuits into /tmp/rec (one proof each, keys
# made on the GPUs). measure runs 32 GiB C2 proofs on GPU 0 with host keys made on GPU 1
# and a Window PoSt partition arriving after the first proof (a swap: both keys do not fit
# one H200), then the same at 512 MiB, where both circuits fit and no swap happens. Logs
# are bundled into $OUT/logs.tgz.
set -u
O=${OUT:-/tmp/res_out}; L=/tmp/res_logs; mkdir -p "$O" "$L" /tmp/rec
B=devrun/res
T0=$(date +%s)
el() { echo "[$(($(date +%s) - T0))s] $*"; }
trap 'tar -czf "$O/logs.tgz" -C /tmp res_logs' EXIT
LIB=/tmp/cb/libsnarkpipe_cuda.so
if [ ! -f "$LIB" ]; then
  mkdir -p /tmp/cb && SP_BUILD_DIR=/tmp/cb sh cuda/build.sh >"$L/build.log" 2>&1 || { el "BUILD FAILED"; exit 1; }
  el "library built"
fi
run() { name=$1; t=$2; shift 2; timeout "$t" ./$B/snarkpipe bench "$@" --lib "$LIB" --recordings /tmp/rec --json "$L/$name.json" >"$L/$name.txt" 2>&1
  el "$name rc=$?"; grep -E 'setup done|key load|first proof|steady|peak|verified  |Window PoSt|latency|queue .* load|device [0-9] while' "$L/$name.txt" | cut -c1-220 | tail -14; }
case "${PHASE:-measure}" in
record)
  # The two recordings at once, one per GPU, each into its own directory (each process
  # rewrites its whole hints.json), then merged into /tmp/rec.
  mkdir -p /tmp/recW /tmp/recP
  (timeout 420 ./$B/snarkpipe bench window --size 32GiB --proofs 1 --device 1 --lib "$LIB" --recordings /tmp/recW >"$L/rec_window.txt" 2>&1; echo "window rc=$?") &
  (timeout 420 ./$B/snarkpipe bench porep --size 32GiB --proofs 1 --device 0 --lib "$LIB" --recordings /tmp/recP >"$L/rec_porep.txt" 2>&1; echo "porep rc=$?") &
  wait
  cp /tmp/recW/*.r1cs /tmp/recP/*.r1cs /tmp/rec/
  python3 - <<'PY'
import json
m = {}
for d in ("/tmp/recW", "/tmp/recP"):
    m.update(json.load(open(d + "/hints.json")))
json.dump(m, open("/tmp/rec/hints.json", "w"), indent=2)
print("hints:", ", ".join(f"{k} probed by {v.get('ProbedBy', '-')[:20]}" for k, v in m.items()))
PY
  grep -hE 'setup done|verified  ' "$L/rec_window.txt" "$L/rec_porep.txt" | cut -c1-200
  el "recorded"
  ;;
measure)
  # PINKEYS=1: the host keys page-locked (pipeline pin_keys), so the swap's key loads skip
  # the pageable staging (16 s for the Window key in the first measurement).
  run swap32g 420 porep --size 32GiB --proofs ${PROOFS:-4} --window-during --host-keys --device 0 --key-device 1 ${PINKEYS:+--pin-keys}
  run noswap512m 120 porep --size 512MiB --proofs 4 --window-during --host-keys --device 0 --key-device 1
  ;;
esac
