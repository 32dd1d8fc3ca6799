# Verifies the "field a b r top" lines of dpf_host.cpp: r·2^(B·NL) ≡ a·b (mod p), r < 2p.
import sys
FP = 0x1A0111EA397FE69A4B1BA7B6434BACD764774B84F38512BF6730D2A0F6B0F6241EABFFFEB153FFFFB9FEFFFFFFFFAAAB
P = {"fr": (0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001, 5 * 52),
     "fp": (FP, 8 * 52), "fp48": (FP, 8 * 48)}
bad = n = 0
for line in sys.stdin:
    if line.startswith("#"):
        print(line.strip())
        continue
    f, a, b, r, top = line.split()
    p, rbits = P[f]
    a, b, r = int(a, 16), int(b, 16), int(r, 16)
    n += 1
    if top != "0" or r >= 2 * p or (r * pow(2, rbits, p) - a * b) % p:
        bad += 1
        if bad < 5:
            print("mismatch", f, hex(a), hex(b), hex(r))
print(f"mont: {n} products, {bad} mismatches")
sys.exit(1 if bad else 0)
