// Montgomery product on the FP64 pipe: double-precision fused multiply-adds do the limb
// products that field.cuh's integer carry chains do on the ALU pipe, which the NTT kept
// busy while the FP64 pipe idled. Measured on the H200 (docs/BENCHMARKS.md, "FP64 products
// in the NTT" and "The coset NTT under 45 ms"): Fr 1.47× the CIOS product as a drop-in, Fp 1.25×.
//
// Values are NL limbs of 52 bits, each held as an exact integer-valued double. One limb
// product a·b < 2^104 is split exactly with three FP64 operations:
//   hi = fma_rd(a, b, 2^104)           2^104 + h·2^52, h = floor(a·b / 2^52)
//   s  = (2^104 + 2^52) − hi           (1 − h)·2^52, exact
//   lo = fma_rn(a, b, s)               2^52 + (a·b − h·2^52), in [2^52, 2^53): exact
// and the bit patterns of hi and lo are then integers: bits(hi) = kHiBits + h and
// bits(lo) = kLoBits + l. Column sums add these patterns in 64-bit integers and subtract the
// known multiple of the two constants once per column (wrapping is harmless: the true
// sum stays far below 2^64). The reduction digit m = t·(−p⁻¹) mod 2^52 is one 64-bit
// integer product. Product scanning as in probe/mul29.cuh.
//
// mont(a, b) = a·b·2^(−52·NL) mod p, below 2p for a, b < 2p when 4p < 2^(52·NL) (Fr: NL = 5,
// 260 bits; Fp: NL = 8, 416 bits). This is not field.cuh's Montgomery form (R = 2^(32N)):
// mont(x·R, y·2^(52NL)) = x·y·R, so a caller keeps one operand pre-scaled by 2^(52NL − 32N)
// (Fr: 2^4, Fp: 2^32). The NTT butterflies use it for Fr (ntt.cuh); cuda/probe measures it.
// With limbs of 48 bits (Radix, FpModulus48) Fp takes 8 limbs of R = 2^384, field.cuh's
// own form: the opt-in Fp product of field.cuh (-DSP_FP_DPF, an experiment: docs/BENCHMARKS.md,
// "FP64 Fp products in the MSM").
#pragma once

#include <cstdint>
#include <cstring>

namespace snarkpipe {
namespace dpf {

constexpr uint64_t kMask = (uint64_t(1) << 52) - 1;
constexpr uint64_t kHiBits = 0x4670000000000000ull;  // bits of 2^104
constexpr uint64_t kLoBits = 0x4330000000000000ull;  // bits of 2^52
constexpr double kTwo52 = 4503599627370496.0;        // 2^52
constexpr double kTwo104 = kTwo52 * kTwo52;

// Radix<B>: the constants of limbs of B <= 52 bits. A limb product a·b < 2^(2B) splits
// at 2^B the same way: hi = fma_rd(a, b, 2^(B+52)) lies in [2^(B+52), 2^(B+53)), where
// doubles are 2^B apart, so bits(hi) = bits(2^(B+52)) + floor(a·b / 2^B); and
// lo = fma_rn(a, b, 2^(B+52) + 2^52 − hi) = 2^52 + (a·b mod 2^B) is exact. B = 52 is the
// file comment's case; B = 48 gives Fp 8 limbs of 384 bits, field.cuh's own R.
template <int B>
struct Radix {
  static constexpr uint64_t mask = (uint64_t(1) << B) - 1;
  static constexpr uint64_t hi_bits = uint64_t(1023 + B + 52) << 52;  // bits of 2^(B+52)
  static constexpr double two_hi = kTwo52 * double(uint64_t(1) << B);
};

__host__ __device__ __forceinline__ uint64_t bits(double x) {
#ifdef __CUDA_ARCH__
  return uint64_t(__double_as_longlong(x));
#else
  uint64_t u;
  std::memcpy(&u, &x, 8);
  return u;
#endif
}
__host__ __device__ __forceinline__ double from_bits(uint64_t u) {
#ifdef __CUDA_ARCH__
  return __longlong_as_double((long long)u);
#else
  double x;
  std::memcpy(&x, &u, 8);
  return x;
#endif
}

// to_double: an integer below 2^52 as an exact double (one OR, one subtraction).
__host__ __device__ __forceinline__ double to_double(uint64_t v) { return from_bits(v | kLoBits) - kTwo52; }

// split adds bits(hi) and bits(lo) of a·b (see the file comment and Radix) to hi_acc and
// lo_acc. The host version computes the same patterns with 128-bit integers (host
// emulation and tests; SplitByFma checks the FP64 identity itself on the host).
template <int B = 52>
__host__ __device__ __forceinline__ void split(double a, double b, uint64_t& lo_acc, uint64_t& hi_acc) {
#ifdef __CUDA_ARCH__
  const double hi = __fma_rd(a, b, Radix<B>::two_hi);
  const double s = __dsub_rn(Radix<B>::two_hi + kTwo52, hi);
  const double lo = __fma_rn(a, b, s);
  hi_acc += bits(hi);
  lo_acc += bits(lo);
#else
  const unsigned __int128 p = (unsigned __int128)uint64_t(a) * uint64_t(b);
  hi_acc += Radix<B>::hi_bits + uint64_t(p >> B);
  lo_acc += kLoBits + (uint64_t(p) & Radix<B>::mask);
#endif
}

// split_hi adds only bits(hi) of a·b to hi_acc (for m·p₀, whose low half is known).
template <int B = 52>
__host__ __device__ __forceinline__ void split_hi(double a, double b, uint64_t& hi_acc) {
#ifdef __CUDA_ARCH__
  hi_acc += bits(__fma_rd(a, b, Radix<B>::two_hi));
#else
  hi_acc += Radix<B>::hi_bits + uint64_t(((unsigned __int128)uint64_t(a) * uint64_t(b)) >> B);
#endif
}

// Modulus: P::NL limbs of P::B bits P::p[i] (as doubles) and P::pinv = −p⁻¹ mod 2^B.
struct FrModulus {
  static constexpr int NL = 5, B = 52;
  static constexpr uint64_t pinv = 0xffffeffffffffull;
  static __host__ __device__ __forceinline__ double p(int i) {
    return i == 0   ? double(0xfffff00000001ull)
           : i == 1 ? double(0x2fffe5bfefffull)
           : i == 2 ? double(0x9a1d80553bda4ull)
           : i == 3 ? double(0x7d483339d8080ull)
                    : double(0x73eda753299dull);
  }
};
struct FpModulus {
  static constexpr int NL = 8, B = 52;
  static constexpr uint64_t pinv = 0x3fffcfffcfffdull;
  static __host__ __device__ __forceinline__ double p(int i) {
    return i == 0   ? double(0xeffffffffaaabull)
           : i == 1 ? double(0xfeb153ffffb9full)
           : i == 2 ? double(0x6b0f6241eabffull)
           : i == 3 ? double(0x12bf6730d2a0full)
           : i == 4 ? double(0x764774b84f385ull)
           : i == 5 ? double(0x1ba7b6434bacdull)
           : i == 6 ? double(0x1ea397fe69a4bull)
                    : double(0x1a011ull);
  }
};

// FpModulus48: Fp in 8 limbs of 48 bits, R = 2^384 as field.cuh's (a drop-in product).
struct FpModulus48 {
  static constexpr int NL = 8, B = 48;
  static constexpr uint64_t pinv = 0xfffcfffcfffdull;
  static __host__ __device__ __forceinline__ double p(int i) {
    return i == 0   ? double(0xffffffffaaabull)
           : i == 1 ? double(0xb153ffffb9feull)
           : i == 2 ? double(0xf6241eabfffeull)
           : i == 3 ? double(0x6730d2a0f6b0ull)
           : i == 4 ? double(0x4b84f38512bfull)
           : i == 5 ? double(0x434bacd76477ull)
           : i == 6 ? double(0xe69a4b1ba7b6ull)
                    : double(0x1a0111ea397full);
  }
};

// mont: r = a·b·2^(−B·NL) mod p, limbs below 2^B (the last one smaller), value < 2p.
template <class P>
__host__ __device__ __forceinline__ void mont(const double (&a)[P::NL], const double (&b)[P::NL],
                                              uint64_t (&r)[P::NL]) {
  constexpr int NL = P::NL, B = P::B;
  constexpr uint64_t mask = Radix<B>::mask, hi_bits = Radix<B>::hi_bits;
  double m[NL];
  uint64_t acc = 0, nxt = 0;  // raw pattern sums of this column and of the next
  int nlo = 0, nhi = 0, nnext = 0;  // patterns in acc (lo, hi) and in nxt: compile-time after unrolling
#pragma unroll
  for (int k = 0; k < 2 * NL - 1; k++) {
    const int i0 = k < NL ? 0 : k - NL + 1;
#pragma unroll
    for (int i = i0; i <= k && i < NL; i++) {
      split<B>(a[i], b[k - i], acc, nxt);
      nlo++, nnext++;
    }
#pragma unroll
    for (int i = i0; i < k && i < NL; i++) {
      split<B>(m[i], P::p(k - i), acc, nxt);
      nlo++, nnext++;
    }
    uint64_t t = acc - uint64_t(nlo) * kLoBits - uint64_t(nhi) * hi_bits;
    if (k < NL) {
      const uint64_t mk = ((t & mask) * P::pinv) & mask;
      m[k] = to_double(mk);
      // m·p₀ ≡ −t (mod 2^B), so the low half of m·p₀ is 2^B − (t mod 2^B), or 0 when
      // t mod 2^B = 0: adding it leaves (t + 2^B − 1) >> B carried out. Only the high
      // half is computed.
#ifndef SP_DPF_FULL_SPLIT  // comparisons: both halves of m·p₀ computed and added
      split_hi<B>(m[k], P::p(0), nxt);
      t += mask;
#else
      uint64_t lo = 0;
      split<B>(m[k], P::p(0), lo, nxt);
      t += lo - kLoBits;  // now a multiple of 2^B
#endif
      nnext++;
    } else {
      r[k - NL] = t & mask;
    }
    acc = nxt + (t >> B);
    nxt = 0;
    nlo = 0;
    nhi = nnext;
    nnext = 0;
  }
  r[NL - 1] = acc - uint64_t(nhi) * hi_bits;
}

// toB splits NW 32-bit words (value < 2^(32·NW) <= 2^(B·NL)) into NL doubles of B bits.
template <int NW, int NL, int B>
__host__ __device__ __forceinline__ void toB(const uint32_t (&w)[NW], double (&l)[NL]) {
#pragma unroll
  for (int i = 0; i < NL; i++) {
    const int q = (B * i) / 32, s = (B * i) % 32;
    uint64_t v = 0;
    if (q < NW) v = uint64_t(w[q]) >> s;
    if (q + 1 < NW) v |= uint64_t(w[q + 1]) << (32 - s);
    if (s > 64 - B && q + 2 < NW) v |= uint64_t(w[q + 2]) << (64 - s);
    l[i] = to_double(v & Radix<B>::mask);
  }
}

// fromB packs NL limbs below 2^B (value below 2^(32·NW)) into NW 32-bit words.
template <int NL, int NW, int B>
__host__ __device__ __forceinline__ void fromB(const uint64_t (&l)[NL], uint32_t (&w)[NW]) {
#pragma unroll
  for (int j = 0; j < NW; j++) {
    const int i = (32 * j) / B, s = (32 * j) % B;
    uint64_t v = l[i] >> s;
    if (s > B - 32 && i + 1 < NL) v |= l[i + 1] << (B - s);
    w[j] = uint32_t(v);
  }
}

// to52, from52: toB and fromB for the 52-bit limbs of Fr (and FpModulus).
template <int NW, int NL>
__host__ __device__ __forceinline__ void to52(const uint32_t (&w)[NW], double (&l)[NL]) {
  toB<NW, NL, 52>(w, l);
}
template <int NL, int NW>
__host__ __device__ __forceinline__ void from52(const uint64_t (&l)[NL], uint32_t (&w)[NW]) {
  fromB<NL, NW, 52>(l, w);
}

}  // namespace dpf
}  // namespace snarkpipe
