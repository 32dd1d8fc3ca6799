#!/bin/bash
# Issue 32 at 32 GiB, on the device machine (nvidia-h200: 16 cores, 128 GiB RAM, 64 GiB
# disk) from the repository root: the daemon's real parameter-file path. Prepare here (no
# Go toolchain there) and carry devrun/params32:
#   CGO_ENABLED=0 go build -ldflags='-s -w' -o devrun/params32/snarkpipe ./cmd/snarkpipe
#   CGO_ENABLED=0 go test -c -o devrun/params32/itests.test ./itests
# Then: bash cuda/runs/params32.sh (PHASE=all). It
#   1. builds the library (SP_ARCHS=90 unless set; ~90 s) and makes a synthetic 32 GiB C1;
#   2. `snarkpipe bench porep --size 32GiB --proofs 0 --write-params $P`: the INSECURE
#      benchmark keys made on the GPU (~54 s after ~75 s of recording) and streamed back into
#      the official .params + .vk pair with the dev trailer (~47 GB; the write is printed
#      with its rate), plus a 2 KiB Winning PoSt pair whose .vk serves as a foreign .vk;
#   3. starts `snarkpipe daemon --allow-dev-params` on $P (recordings shared with the
#      bench, so nothing is synthesized again) with the Curio gRPC endpoint on
#      127.0.0.1:9820, and through it (itests.test -test.run TestCurioFrontDoorStep):
#      PreloadSRS (page cache), 3 × SubmitProof/AwaitProof at once, EvictSRS, drop caches
#      (if permitted) and PreloadSRS again (cold), printing load times, time to first
#      proof from the daemon's start, steady-state s/proof, peak RSS (VmHWM) of the daemon;
#   4. the three corruptions, each refused by PreloadSRS with its error shown: a foreign
#      .vk (then restored), one flipped byte in H (dd conv=notrunc, then flipped back), and
#      last, destructively, the .params truncated by 4 KiB.
# Expected: about 9–10 min in all, at the edge of one 10-minute call. If it is cut, run it
# as two calls back to back while the machine is warm (/tmp stays): PHASE=write (~5 min:
# library, C1, bench and write) then PHASE=serve (~4 min: daemon, proofs, corruptions).
# Knobs: PROOFS=3, BENCH_TO=420, SP_ARCHS. Logs are bundled into $OUT/params32_logs.tgz; a
# summary is printed last. Every proof is verified in the daemon against the .vk in $P
# before the daemon returns it.
set -u
OUTDIR=${OUT:-/tmp/params32_out}
O=$OUTDIR/params32
mkdir -p "$O"
trap 'tar -czf "$OUTDIR/params32_logs.tgz" -C "$OUTDIR" params32 && rm -rf "$O"' EXIT
T0=$(date +%s)
el() { echo "[$(($(date +%s) - T0))s] $*"; }
B=$PWD/devrun/params32
P=/tmp/p32params      # the parameter directory the daemon reads
OTHER=/tmp/p32other   # the 2 KiB Winning PoSt pair (its .vk is the foreign one)
REC=/tmp/p32rec       # recordings shared by bench and daemon
C1=/tmp/p32c1.json
ST=/tmp/p32state
ADDR=127.0.0.1:9820
LIB=cuda/build/libsnarkpipe_cuda.so
SUM=$O/summary.txt
: >"$SUM"
note() { echo "$*" | tee -a "$SUM"; }

write_phase() {
  if [ ! -f "$LIB" ]; then
    make cuda SP_ARCHS="${SP_ARCHS:-90}" >"$O/build.log" 2>&1 || { el "make cuda FAILED"; grep -E error "$O/build.log" | head -20; exit 1; }
  fi
  cp "$LIB" "$B/" # the daemon looks for the library next to its binary
  el "library ready"
  "$B/snarkpipe" synth --kind c1 --proof StackedDrg32GiBV1_1 --seed 1 --out "$C1" >"$O/synth.txt" 2>&1 || { el "synth FAILED"; cat "$O/synth.txt"; exit 1; }
  el "$(cat "$O/synth.txt")"
  rm -rf "$P" "$OTHER"
  note "disk before the write: $(df -B1 --output=avail /tmp | tail -1) bytes free under /tmp"
  timeout "${BENCH_TO:-420}" "$B/snarkpipe" bench porep --size 32GiB --proofs 0 --write-params "$P" --lib "$LIB" \
    --recordings "$REC" --json "$O/bench_write.json" >"$O/bench_write.txt" 2>&1
  el "bench --write-params rc=$?"
  grep -v '…' "$O/bench_write.txt" | grep -E 'writing|wrote|setup done|key load|peak' | cut -c1-300 | tee -a "$SUM"
  timeout 120 "$B/snarkpipe" bench winning --size 2KiB --proofs 0 --write-params "$OTHER" --lib "$LIB" >"$O/bench_other.txt" 2>&1
  el "2 KiB Winning pair rc=$?"
  ls -l "$P" | tee -a "$SUM"
}

# curio STEP [FLAGS]: one TestCurioFrontDoorStep run against the daemon; prints its lines.
curio() {
  local step=$1
  shift
  "$B/itests.test" -test.run '^TestCurioFrontDoorStep$' -test.v -curio.addr "$ADDR" -curio.step "$step" "$@" >"$O/curio_$step.txt" 2>&1
  local rc=$?
  grep -E '^curio:|--- FAIL|_test.go' "$O/curio_$step.txt" | cut -c1-400 | tee -a "$SUM"
  return $rc
}

since() { awk -v a="$(date +%s.%N)" -v b="$1" 'BEGIN { printf "%.1f", a - b }'; }
hwm() { note "daemon $1: $(grep -E 'VmHWM|VmRSS' /proc/"$DPID"/status | tr -s ' \n' ' ')"; }

# flip_h INDEX: XOR 0x01 into byte 20 of point INDEX of the H vector (in place; twice
# restores it). H starts after the verifying key (864 bytes, IC length, IC points) and
# its own length field.
flip_h() {
  local ic off b
  ic=$(od -An -tu4 --endian=big -j864 -N4 "$PF" | tr -d ' ')
  off=$((864 + 4 + ic * 96 + 4 + $1 * 96 + 20))
  b=$(od -An -tu1 -j"$off" -N1 "$PF" | tr -d ' ')
  printf "$(printf '\\%03o' $((b ^ 1)))" | dd of="$PF" bs=1 seek="$off" count=1 conv=notrunc status=none
  echo "$off"
}

serve_phase() {
  PF=$(ls "$P"/*.params 2>/dev/null | head -1)
  [ -n "$PF" ] || { el "no .params in $P: run PHASE=write first"; exit 1; }
  VK=${PF%.params}.vk
  note "parameters: $PF $(stat -c %s "$PF") bytes; $(basename "$VK") $(stat -c %s "$VK") bytes"
  mkdir -p "$ST"
  cat >"$O/daemon.toml" <<EOF
listen = "127.0.0.1:0"
param_dir = "$P"
allow_dev_params = true
recordings_dir = "$REC"
token_secret = "$ST/secret"
state_dir = "$ST"
backend = "gpu"

[cuzk]
enabled = true
address = "$ADDR"
EOF
  DSTART=$(date +%s.%N)
  "$B/snarkpipe" daemon --config "$O/daemon.toml" >"$O/daemon.log" 2>&1 &
  DPID=$!
  for _ in $(seq 1 120); do
    (exec 3<>/dev/tcp/127.0.0.1/9820) 2>/dev/null && break
    kill -0 "$DPID" 2>/dev/null || { el "daemon exited"; tail -20 "$O/daemon.log"; exit 1; }
    sleep 0.5
  done
  el "daemon up after $(since "$DSTART") s"
  curio preload || { el "preload FAILED"; tail -20 "$O/daemon.log"; }
  hwm "after the page-cache load (peak RSS so far is the load's)"
  curio prove -curio.c1 "$C1" -curio.proofs "${PROOFS:-3}"
  first=$(grep -oE 'first_done_unix=[0-9.]+' "$O/curio_prove.txt" | cut -d= -f2)
  [ -n "$first" ] && note "time to first proof from the daemon's start: $(awk -v a="$first" -v b="$DSTART" 'BEGIN { printf "%.1f", a - b }') s"
  hwm "after the proofs"
  curio evict
  sync
  if echo 3 >/proc/sys/vm/drop_caches 2>/dev/null; then
    note "page cache dropped: the next load reads the disk"
    curio preload && mv "$O/curio_preload.txt" "$O/curio_preload_cold.txt"
  else
    note "drop_caches not permitted: no cold-cache load measured"
  fi
  curio evict

  el "corruption 1: a foreign .vk (the 2 KiB Winning PoSt's)"
  cp "$VK" /tmp/p32vk.bak
  cp "$(ls "$OTHER"/*.vk | head -1)" "$VK"
  curio preload-fails -curio.want "does not belong to|$VK"
  cp /tmp/p32vk.bak "$VK"

  el "corruption 2: one flipped byte in H (point 1000)"
  off=$(flip_h 1000)
  note "flipped byte at offset $off"
  curio preload-fails -curio.want "h[1000]"
  flip_h 1000 >/dev/null

  el "corruption 3: the .params truncated by 4 KiB (destructive)"
  truncate -s -4096 "$PF"
  curio preload-fails -curio.want "truncated"

  kill -TERM "$DPID"
  wait "$DPID"
  el "daemon stopped rc=$?"
  grep -E 'loading parameters|recording circuit' "$O/daemon.log" | cut -c1-300 | tee -a "$SUM"
}

case "${PHASE:-all}" in
write) write_phase ;;
serve) serve_phase ;;
all) write_phase && serve_phase ;;
*) echo "PHASE must be all, write or serve"; exit 2 ;;
esac
el "done"
echo "=== summary"
cat "$SUM"
