// Host check of dpf.cuh (g++; no GPU): sh cuda/probe/dpf_check.sh
//  1. the FP64 split identity of dpf::split, with the host's fma under round-down, equals
//     the 128-bit integer split on random and edge limb pairs;
//  2. prints "field a b r" lines (hex) of dpf::mont on random and edge inputs below 2p for
//     dpf_check.py to verify: r·2^(B·NL) ≡ a·b (mod p) and r < 2p.
#define __host__
#define __device__
#define __forceinline__ inline
#include <cfenv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>

#include "../dpf.cuh"

using namespace snarkpipe;

static uint64_t rs = 0x243f6a8885a308d3ull;
static uint64_t rnd64() {
  rs ^= rs << 13;
  rs ^= rs >> 7;
  rs ^= rs << 17;
  return rs;
}

// check_split: the FP64 identity of dpf::split<B> (Radix<B>) against its integer form.
template <int B>
static int check_split() {
  int bad = 0;
  constexpr uint64_t mask = dpf::Radix<B>::mask;
  const uint64_t edges[] = {0, 1, 2, mask, mask - 1, uint64_t(1) << (B - 1), (uint64_t(1) << (B - 1)) + 1,
                            (uint64_t(1) << (B / 2)) + 1};
  for (int n = 0; n < 2000000; n++) {
    uint64_t x = rnd64() & mask, y = rnd64() & mask;
    if (n < 64) x = edges[n % 8], y = edges[n / 8];
    if (n % 3 == 1) x >>= (rnd64() % B);
    const double a = double(x), b = double(y);
    std::fesetround(FE_DOWNWARD);
    volatile double hi = std::fma(a, b, dpf::Radix<B>::two_hi);
    std::fesetround(FE_TONEAREST);
    volatile double s = (dpf::Radix<B>::two_hi + dpf::kTwo52) - hi;
    volatile double lo = std::fma(a, b, s);
    uint64_t lo1 = 0, hi1 = 0, lo2 = 0, hi2 = 0;
    lo1 = dpf::bits(lo), hi1 = dpf::bits(hi);
    dpf::split<B>(a, b, lo2, hi2);
    if (lo1 != lo2 || hi1 != hi2) {
      if (bad < 5) printf("# split mismatch %llx %llx\n", (unsigned long long)x, (unsigned long long)y);
      bad++;
    }
  }
  printf("# split (%d-bit limbs): 2000000 pairs, %d mismatches\n", B, bad);
  return bad;
}

// random value below 2p as NW words (p = mod32); edge values 0, 1, p − 1, p, 2p − 1.
template <int NW>
static void value(int n, const uint32_t (&p)[NW], uint32_t (&w)[NW]) {
  uint32_t twop[NW];
  uint64_t c = 0;
  for (int i = 0; i < NW; i++) {
    c += uint64_t(p[i]) * 2;
    twop[i] = uint32_t(c);
    c >>= 32;
  }
  const int e = n % 16;
  if (n < 16 * 5) {
    const int which = (n / 16) % 5;
    for (int i = 0; i < NW; i++) w[i] = which < 2 ? 0 : which == 4 ? twop[i] : p[i];
    if (which == 1) w[0] = 1;
    if (which == 2 || which == 4) w[0] -= 1;  // p − 1, 2p − 1 (low words of p, 2p are nonzero)
    (void)e;
    return;
  }
  for (int i = 0; i < NW; i++) w[i] = uint32_t(rnd64());
  w[NW - 1] %= twop[NW - 1];
}

template <class P, int NW>
static void emit(const char* name, const uint32_t (&p)[NW], int count) {
  constexpr int B = P::B;
  for (int n = 0; n < count; n++) {
    uint32_t wa[NW], wb[NW], wr[NW];
    value(n, p, wa);
    value(n < 80 ? (n % 5) * 16 : n + 7919, p, wb);
    double a[P::NL], b[P::NL];
    uint64_t r[P::NL];
    dpf::toB<NW, P::NL, B>(wa, a);
    dpf::toB<NW, P::NL, B>(wb, b);
    dpf::mont<P>(a, b, r);
    dpf::fromB<P::NL, NW, B>(r, wr);
    printf("%s ", name);
    for (const uint32_t* w : {wa, wb, wr}) {
      for (int i = NW - 1; i >= 0; i--) printf("%08x", w[i]);
      printf(" ");
    }
    printf("%llx\n", (unsigned long long)(r[P::NL - 1] >> B));  // must be 0 for limbs to fit
  }
}

int main() {
  static const uint32_t fr[8] = {0x00000001, 0xffffffff, 0xfffe5bfe, 0x53bda402,
                                 0x09a1d805, 0x3339d808, 0x299d7d48, 0x73eda753};
  static const uint32_t fp[12] = {0xffffaaab, 0xb9feffff, 0xb153ffff, 0x1eabfffe, 0xf6b0f624, 0x6730d2a0,
                                  0xf38512bf, 0x64774b84, 0x434bacd7, 0x4b1ba7b6, 0x397fe69a, 0x1a0111ea};
  const int bad = check_split<52>() + check_split<48>();
  emit<dpf::FrModulus, 8>("fr", fr, 20000);
  emit<dpf::FpModulus, 12>("fp", fp, 20000);
  emit<dpf::FpModulus48, 12>("fp48", fp, 20000);
  return bad ? 1 : 0;
}
