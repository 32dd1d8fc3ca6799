#!/usr/bin/env python3
"""Paper projection of 32 GiB PoRep C2 seconds per proof on other GPUs (docs/projection.md).

Every input is labelled: M = measured on our H200, C = computed from the circuit counts,
D = datasheet value, A = assumption (given as a (optimistic, pessimistic) pair).
Run: python3 docs/projection.py   (prints the tables of docs/projection.md)
"""

GB = 1e9

# M: H200 SXM, `snarkpipe bench porep --size 32GiB --proofs 3`, mean row of proofs 2+ (s per partition).
H200 = dict(sms=132, clk=1.98, bw=4.8)  # D (clock: the 1980 MHz the profiles ran at)
U, Z, S = 0.013, 0.031, 0.002            # upload (pinned, PCIe 5), A·z on the device, assemble (host)
Q = dict(fp64=0.304, int=0.392)          # quotient (6 NTTs of 2^27, L MSM beside it)
M = dict(fp64=1.137, int=1.138)          # H MSM with A, B1, B2 beside it
STEADY = dict(fp64=14.680, int=15.600)   # s per proof
K = {a: STEADY[a] / (10 * (U + Z + Q[a] + M[a] + S)) for a in Q}  # steady state / stage sum
PIN_GBS = 53.0                           # M (spec §5.4): pinned host-to-device copy on the H200 host

# C: sealer/porep/testdata/counts.golden, porep-32g.
ROWS, INPUTS, AUX, A_AUX, B_AUX = 130278541, 328, 130169893, 129753292, 33112281
KEY = dict(A=(INPUTS + A_AUX) * 96, B1=(1 + B_AUX) * 96, B2=(1 + B_AUX) * 192, L=AUX * 96, H=(2**27 - 1) * 96)
KEYS = sum(KEY.values())
ABC = 3 * ROWS * 32          # a, b, c from a host A·z
HVEC = 2**27 * 32            # h, one partition
ZPK = U * PIN_GBS * GB       # packed z (bitmaps + values), from the measured upload time
X1 = ABC + ZPK               # per-partition upload before the quotient
QBYTES = 6 * 3 * 2 * 2**27 * 32  # device traffic floor of the quotient: 6 transforms × 3 passes × read+write

# D + A per card. fclk: sustained/boost clock; alu: Blackwell consumer INT32 on all 128 lanes;
# ch: overhead of an H MSM run in base chunks; occ: NTT occupancy (blocks per SM < 3); f64:
# FP64 pipe co-limiting on A100 (32 FP64 lanes per SM instead of 64). m: share of the H200's MSM
# stage bound by device memory (sort, digits, fixups), which scales with bandwidth.
CARDS = [
    # name,         SMs, GHz,  TB/s, GB, PCIe GB/s, arith, mode, fclk,        alu,       ch,          occ,         f64
    ("RTX 4090",    128, 2.52, 1.008, 24, 25, "int",  "stream", (1.05, 0.95), (1.0, 1.0), (0.04, 0.12), (1.0, 1.3), (1, 1)),
    ("RTX 5090",    170, 2.41, 1.792, 32, 50, "int",  "stream", (1.05, 0.95), (1.1, 1.0), (0.04, 0.12), (1.0, 1.3), (1, 1)),
    ("RTX 5070 Ti",  70, 2.45, 0.896, 16, 50, "int",  "stream", (1.05, 0.95), (1.1, 1.0), (0.04, 0.24), (1.0, 1.3), (1, 1)),
    ("A100-80GB SXM", 108, 1.41, 2.039, 80, 25, "fp64", "hb2", (1.0, 1.0), (1.0, 1.0), (0.00, 0.05), (1.0, 1.15), (1.0, 1.3)),
    ("H100-80GB SXM", 132, 1.98, 3.35, 80, 50, "fp64", "hb2", (1.0, 1.0), (1.0, 1.0), (0.00, 0.05), (1.0, 1.0), (1, 1)),
    ("H100-80GB PCIe", 114, 1.755, 2.0, 80, 50, "fp64", "hb2", (1.0, 0.9), (1.0, 1.0), (0.00, 0.05), (1.0, 1.0), (1, 1)),
]
MSHARE = (0.0, 0.04)  # A: m


def project(card, i, batch):
    name, sms, clk, bw, mem, pcie, arith, mode, fclk, alu, ch, occ, f64 = card
    r_int = sms * clk / (H200["sms"] * H200["clk"]) * fclk[i] * alu[i]
    r_bw = bw / H200["bw"]
    m = MSHARE[i]
    msm = M["int"] * ((1 - m) / r_int + m / r_bw) * (1 + ch[i])
    if arith == "int":
        quo, k = Q["int"] * occ[i] / r_int, K["int"]
    else:  # FP64 product, never worse than the integer one the prover can be forced to
        quo = min(Q["fp64"] * occ[i] * f64[i] / r_int, Q["int"] * occ[i] / r_int)
        k = K["fp64"]
    quo = max(k * quo, QBYTES / (bw * 1e12))
    msm *= k
    link = pcie * GB
    if mode == "stream":  # keys, a/b/c and packed z cross PCIe; A·z on the host
        p1 = X1 / link
        x2 = (KEYS + (batch * HVEC if batch > 1 else 0)) / link
        over = 10 * max(quo, p1) + (10 / batch) * max(batch * msm, x2)
        serial = 10 * (quo + p1) + (10 / batch) * (batch * msm + x2)
        floor = 10 * p1 + (10 / batch) * x2
        compute = 10 * (quo + msm)
    else:  # 80 GB: H and B2 bases stream per partition beside the MSM stage
        x = (KEY["H"] + KEY["B2"]) / link
        dev = Z / r_bw + U * PIN_GBS / pcie
        over = 10 * (dev + quo + max(msm, x))
        serial = 10 * (dev + quo + msm + x)
        floor = 10 * x
        compute = 10 * (dev + quo + msm)
    return dict(r_int=r_int, r_bw=r_bw, quo=quo, msm=msm, compute=compute, floor=floor, over=over, serial=serial)


def main():
    print(f"K fp64 {K['fp64']:.4f} int {K['int']:.4f}; keys {KEYS/GB:.2f} GB ({KEYS/2**30:.2f} GiB): "
          + ", ".join(f"{n} {v/GB:.2f}" for n, v in KEY.items()))
    print(f"a,b,c {ABC/GB:.2f} GB, h {HVEC/GB:.2f} GB, packed z {ZPK/GB:.2f} GB, quotient traffic {QBYTES/GB:.0f} GB")
    print(f"per partition over PCIe, streamed: B=1 {(KEYS+X1)/GB:.1f} GB, B=10 {(KEYS/10+X1+HVEC)/GB:.1f} GB; "
          f"80 GB cards (H + B2) {(KEY['H']+KEY['B2'])/GB:.2f} GB")
    print("| card | r_int | r_bw | quotient s/part | MSM stage s/part | compute s/proof | PCIe floor B=1 / B=10 | projected B=1 | projected B=10 | no overlap B=10 |")
    for c in CARDS:
        lo1, hi1 = project(c, 0, 1), project(c, 1, 1)
        lo10, hi10 = project(c, 0, 10), project(c, 1, 10)
        rng = lambda a, b, key: f"{a[key]:.1f}–{b[key]:.1f}"
        rng3 = lambda a, b, key: f"{a[key]:.3f}–{b[key]:.3f}"
        b10 = rng(lo10, hi10, "over") if c[7] == "stream" else "–"
        ser = rng(lo10, hi10, "serial") if c[7] == "stream" else rng(lo1, hi1, "serial")
        fl = f"{lo1['floor']:.1f} / {lo10['floor']:.1f}" if c[7] == "stream" else f"{lo1['floor']:.1f}"
        print(f"| {c[0]} | {lo1['r_int']/c[8][0]/c[9][0]:.3f} | {lo1['r_bw']:.3f} | {rng3(lo1, hi1, 'quo')} | {rng3(lo1, hi1, 'msm')} | "
              f"{rng(lo1, hi1, 'compute')} | {fl} | {rng(lo1, hi1, 'over')} | {b10} | {ser} |")


if __name__ == "__main__":
    main()
