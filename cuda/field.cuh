// Montgomery arithmetic over a prime field with N 32-bit limbs, the field given as a
// template parameter (see bls12_381.cuh for Fp and Fr). Values are kept fully reduced
// (< p) in Montgomery form with R = 2^(32N), which is the memory layout of gnark-crypto's
// fp.Element / fr.Element (little-endian 64-bit limbs = little-endian 32-bit limbs).
//
// Multiplication is CIOS with PTX carry chains (mad.lo.cc / madc.hi.cc). The carry flag
// lives between consecutive asm statements, so every statement of a chain is volatile:
// the compiler must not reorder them relative to each other.
#pragma once

#include <cstdint>

#include "carry.cuh"
#include "dpf.cuh"

namespace snarkpipe {

// Plain multi-limb helpers of Fe::inv_binary (values, not Montgomery forms).
namespace limbs {
template <int N>
__device__ __forceinline__ bool is_one(const uint32_t (&a)[N]) {
  uint32_t acc = a[0] ^ 1u;
#pragma unroll
  for (int i = 1; i < N; i++) acc |= a[i];
  return acc == 0;
}
template <int N>
__device__ __forceinline__ void shr1(uint32_t (&a)[N]) {
#pragma unroll
  for (int i = 0; i < N - 1; i++) a[i] = (a[i] >> 1) | (a[i + 1] << 31);
  a[N - 1] >>= 1;
}
// a >= b
template <int N>
__device__ __forceinline__ bool geq(const uint32_t (&a)[N], const uint32_t (&b)[N]) {
#pragma unroll
  for (int i = N - 1; i >= 0; i--)
    if (a[i] != b[i]) return a[i] > b[i];
  return true;
}
// a -= b (a >= b)
template <int N>
__device__ __forceinline__ void sub(uint32_t (&a)[N], const uint32_t (&b)[N]) {
  uint64_t borrow = 0;
#pragma unroll
  for (int i = 0; i < N; i++) {
    const uint64_t d = uint64_t(a[i]) - b[i] - borrow;
    a[i] = uint32_t(d);
    borrow = (d >> 32) & 1;
  }
}
}  // namespace limbs

template <class P>
struct alignas(16) Fe {
  using Params = P;
  static constexpr int N = P::N;
  uint32_t v[N];

  static __host__ __device__ __forceinline__ Fe zero() {
    Fe r;
#pragma unroll
    for (int i = 0; i < N; i++) r.v[i] = 0;
    return r;
  }

  // one in Montgomery form (R mod p).
  static __device__ __forceinline__ Fe one() {
    Fe r;
#pragma unroll
    for (int i = 0; i < N; i++) r.v[i] = P::one(i);
    return r;
  }

  __device__ __forceinline__ bool is_zero() const {
    uint32_t acc = v[0];
#pragma unroll
    for (int i = 1; i < N; i++) acc |= v[i];
    return acc == 0;
  }

  __device__ __forceinline__ bool operator==(const Fe& b) const {
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < N; i++) acc |= v[i] ^ b.v[i];
    return acc == 0;
  }
  __device__ __forceinline__ bool operator!=(const Fe& b) const { return !(*this == b); }

  // modulus(i): limb i of p, or of 2p for the lazy forms (Twice).
  template <bool Twice>
  static __device__ __forceinline__ uint32_t modulus(int i) {
    if constexpr (Twice) {
      return P::mod2(i);
    } else {
      return P::mod(i);
    }
  }

  // reduce_once returns x - p (x - 2p: Twice) when x (with carry-out `hi`) is at least
  // that, else x.
  template <bool Twice = false>
  static __device__ __forceinline__ Fe reduce_once(const Fe& x, uint32_t hi) {
#ifdef SP_HOST_EMU
    Fe s;
    uint64_t borrow = 0;
    for (int i = 0; i < N; i++) {
      const uint64_t d = uint64_t(x.v[i]) - modulus<Twice>(i) - borrow;
      s.v[i] = uint32_t(d);
      borrow = (d >> 32) & 1;
    }
    return (hi || !borrow) ? s : x;
#else
    Fe s;
    uint32_t borrow;
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(s.v[0]) : "r"(x.v[0]), "r"(modulus<Twice>(0)));
#pragma unroll
    for (int i = 1; i < N; i++)
      asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(s.v[i]) : "r"(x.v[i]), "r"(modulus<Twice>(i)));
    asm volatile("subc.u32 %0, %1, 0;" : "=r"(borrow) : "r"(hi));
    // borrow == 0xffffffff: x < p, keep x.
    Fe r;
#pragma unroll
    for (int i = 0; i < N; i++) r.v[i] = (x.v[i] & borrow) | (s.v[i] & ~borrow);
    return r;
#endif
  }

  __device__ __forceinline__ Fe operator+(const Fe& b) const { return add_mod<false>(b); }

  template <bool Twice>
  __device__ __forceinline__ Fe add_mod(const Fe& b) const {
#ifdef SP_HOST_EMU
    Fe r;
    uint64_t carry = 0;
    for (int i = 0; i < N; i++) {
      const uint64_t t = uint64_t(v[i]) + b.v[i] + carry;
      r.v[i] = uint32_t(t);
      carry = t >> 32;
    }
    return reduce_once<Twice>(r, uint32_t(carry));
#else
    Fe r;
    uint32_t carry;
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r.v[0]) : "r"(v[0]), "r"(b.v[0]));
#pragma unroll
    for (int i = 1; i < N; i++)
      asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r.v[i]) : "r"(v[i]), "r"(b.v[i]));
    asm volatile("addc.u32 %0, 0, 0;" : "=r"(carry));
    return reduce_once<Twice>(r, carry);
#endif
  }

  // add_unreduced returns a + b without the final subtraction: < 2p, a valid multiplicand
  // for the product of a field whose modulus is below 2^(32N)/8 (Fp; see mul_inline).
  __device__ __forceinline__ Fe add_unreduced(const Fe& b) const {
    static_assert(N == 12, "add_unreduced is for Fp only (p < 2^381)");
#ifdef SP_HOST_EMU
    Fe r;
    uint64_t carry = 0;
    for (int i = 0; i < N; i++) {
      const uint64_t t = uint64_t(v[i]) + b.v[i] + carry;
      r.v[i] = uint32_t(t);
      carry = t >> 32;
    }
    return r;
#else
    Fe r;
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r.v[0]) : "r"(v[0]), "r"(b.v[0]));
#pragma unroll
    for (int i = 1; i < N - 1; i++)
      asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r.v[i]) : "r"(v[i]), "r"(b.v[i]));
    asm volatile("addc.u32 %0, %1, %2;" : "=r"(r.v[N - 1]) : "r"(v[N - 1]), "r"(b.v[N - 1]));
    return r;
#endif
  }

  __device__ __forceinline__ Fe operator-(const Fe& b) const { return sub_mod<false>(b); }

  template <bool Twice>
  __device__ __forceinline__ Fe sub_mod(const Fe& b) const {
#ifdef SP_HOST_EMU
    Fe r;
    uint64_t borrow = 0;
    for (int i = 0; i < N; i++) {
      const uint64_t d = uint64_t(v[i]) - b.v[i] - borrow;
      r.v[i] = uint32_t(d);
      borrow = (d >> 32) & 1;
    }
    if (borrow) {
      uint64_t carry = 0;
      for (int i = 0; i < N; i++) {
        const uint64_t t = uint64_t(r.v[i]) + modulus<Twice>(i) + carry;
        r.v[i] = uint32_t(t);
        carry = t >> 32;
      }
    }
    return r;
#else
    Fe r;
    uint32_t mask;
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(r.v[0]) : "r"(v[0]), "r"(b.v[0]));
#pragma unroll
    for (int i = 1; i < N; i++)
      asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(r.v[i]) : "r"(v[i]), "r"(b.v[i]));
    asm volatile("subc.u32 %0, 0, 0;" : "=r"(mask));
    // mask == 0xffffffff on borrow: add p (2p) back.
    asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(r.v[0]) : "r"(modulus<Twice>(0) & mask));
#pragma unroll
    for (int i = 1; i < N - 1; i++)
      asm volatile("addc.cc.u32 %0, %0, %1;" : "+r"(r.v[i]) : "r"(modulus<Twice>(i) & mask));
    asm volatile("addc.u32 %0, %0, %1;" : "+r"(r.v[N - 1]) : "r"(modulus<Twice>(N - 1) & mask));
    return r;
#endif
  }

  // diff_2p returns a − b + 2p in N words and the top bit (a, b < 2p: the value is in
  // (0, 4p), below 2^(32N + 1) for Fr), unreduced: for a product that takes such input
  // (the NTT's FP64 product, ntt_twiddles.cuh) it saves sub_lazy's conditional addition.
  __device__ __forceinline__ Fe diff_2p(const Fe& b, uint32_t& top) const {
#ifdef SP_HOST_EMU
    Fe r;
    uint64_t carry = 0, borrow = 0;
    for (int i = 0; i < N; i++) {
      const uint64_t t = uint64_t(v[i]) + modulus<true>(i) + carry;
      carry = t >> 32;
      const uint64_t d = (t & 0xffffffffu) - b.v[i] - borrow;
      r.v[i] = uint32_t(d);
      borrow = (d >> 32) & 1;
    }
    top = uint32_t(carry - borrow);
    return r;
#else
    Fe t, r;
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(t.v[0]) : "r"(v[0]), "r"(modulus<true>(0)));
#pragma unroll
    for (int i = 1; i < N; i++)
      asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(t.v[i]) : "r"(v[i]), "r"(modulus<true>(i)));
    asm volatile("addc.u32 %0, 0, 0;" : "=r"(top));
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(r.v[0]) : "r"(t.v[0]), "r"(b.v[0]));
#pragma unroll
    for (int i = 1; i < N; i++)
      asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(r.v[i]) : "r"(t.v[i]), "r"(b.v[i]));
    asm volatile("subc.u32 %0, %0, 0;" : "+r"(top));
    return r;
#endif
  }

  // The lazy forms of the NTT's butterflies (ntt.cuh) keep values in [0, 2p), which needs
  // 2p < 2^(32N) (Fr: 2r < 0.91·2^256; only Fr defines mod2). They skip the final
  // subtraction of each product; reduce_lazy brings a value back below p.
  // add_lazy, sub_lazy: a ± b mod 2p for a, b < 2p.
  __device__ __forceinline__ Fe add_lazy(const Fe& b) const { return add_mod<true>(b); }
  __device__ __forceinline__ Fe sub_lazy(const Fe& b) const { return sub_mod<true>(b); }
  __device__ __forceinline__ Fe reduce_lazy() const { return reduce_once<false>(*this, 0); }

  __device__ __forceinline__ Fe operator-() const { return zero() - *this; }

  __device__ __forceinline__ Fe dbl() const { return *this + *this; }

  // Montgomery product. Fp products (12 limbs, ~600 instructions) are out-of-line calls
  // unless the field's parameters ask for inlining (P::kInlineMul): inlining them into
  // every curve formula made ptxas run for more than ten minutes on the G2 unit; Fr
  // products (8 limbs) stay inline for the NTT.
  __device__ __forceinline__ Fe operator*(const Fe& b) const {
    if constexpr (N > 8 && !P::kInlineMul) {
      return mul_call(*this, b);
    } else {
      return mul_inline(*this, b);
    }
  }

  static __device__ __noinline__ Fe mul_call(const Fe a, const Fe b) { return mul_inline(a, b); }

#if defined(SP_MUL_FULL_CARRY) && !defined(SP_HOST_EMU)
  // The previous product, kept for comparison builds (cuda/build.sh -DSP_MUL_FULL_CARRY):
  // CIOS carrying every row into two extra limbs.
  static __device__ __forceinline__ Fe mul_inline(const Fe& a, const Fe& b) {
    const uint32_t* v = a.v;
    uint32_t t[N + 2];
#pragma unroll
    for (int i = 0; i < N + 2; i++) t[i] = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
      const uint32_t bi = b.v[i];
      asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[0]) : "r"(v[0]), "r"(bi));
#pragma unroll
      for (int j = 1; j < N; j++)
        asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[j]) : "r"(v[j]), "r"(bi));
      asm volatile("addc.cc.u32 %0, %0, 0;" : "+r"(t[N]));
      asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N + 1]));
      asm volatile("mad.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[1]) : "r"(v[0]), "r"(bi));
#pragma unroll
      for (int j = 1; j < N; j++)
        asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[j + 1]) : "r"(v[j]), "r"(bi));
      asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N + 1]));

      const uint32_t m = t[0] * P::M0;
      asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[0]) : "r"(m), "r"(P::mod(0)));
#pragma unroll
      for (int j = 1; j < N; j++)
        asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[j]) : "r"(m), "r"(P::mod(j)));
      asm volatile("addc.cc.u32 %0, %0, 0;" : "+r"(t[N]));
      asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N + 1]));
      asm volatile("mad.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[1]) : "r"(m), "r"(P::mod(0)));
#pragma unroll
      for (int j = 1; j < N; j++)
        asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[j + 1]) : "r"(m), "r"(P::mod(j)));
      asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N + 1]));
#pragma unroll
      for (int j = 0; j <= N; j++) t[j] = t[j + 1];
      t[N + 1] = 0;
    }
    Fe r;
#pragma unroll
    for (int i = 0; i < N; i++) r.v[i] = t[i];
    return reduce_once(r, t[N]);
  }
  static __device__ __forceinline__ Fe mul_lazy(const Fe& w, const Fe& x) { return mul_inline(w, x); }
#else
  // Montgomery product a·b·R^-1 for a < p (CIOS: one row of a·b[i], then one reduction
  // row). Both BLS12-381 moduli leave the top bit of their last limb clear with room to
  // spare (p < 2^32N / 8 for Fp, r < 0.46·2^32N for Fr), so with a < p and the running
  // sum t < 2p, every partial sum t + a·b[i] + m·p stays below 2^(32(N+1)): the rows never
  // carry past limb N and need no second extra limb (the "no-carry" CIOS: 4N + 3 carry-chain
  // instructions per row instead of 4N + 7). The result is < 2p before the final
  // subtraction. For Fp (p < 2^(32N)/8) the multiplicands may also be unreduced sums
  // below 2p: every partial sum stays below 3p·(2^32 + 1) < 2^(32(N+1)) and the result
  // (a·b + M·p)/R < p·(1 + 4p/R) < 1.5p, so one subtraction still reduces it fully.
  // The host emulation runs this same sequence (carry.cuh).
  static __device__ __forceinline__ Fe mul_inline(const Fe& a, const Fe& b) {
#ifdef SP_FP_DPF  // opt-in: Fp products on the FP64 pipe (mixed on the MSMs: docs/BENCHMARKS.md)
    if constexpr (N == 12) return reduce_once(mul_fp64(a, b), 0);
#endif
    return reduce_once(mul_wide(a, b), 0);
  }

  // mul_fp64: an Fp product on the FP64 pipe (dpf.cuh, 8 limbs of 48 bits: R = 2^384, the
  // Montgomery form of this file), below 2p for a, b < 2p (4p < 2^384).
  static __device__ __forceinline__ Fe mul_fp64(const Fe& a, const Fe& b) {
    static_assert(N == 12, "mul_fp64 is for Fp");
    double x[8], y[8];
    uint64_t r[8];
    dpf::toB<12, 8, 48>(a.v, x);
    dpf::toB<12, 8, 48>(b.v, y);
    dpf::mont<dpf::FpModulus48>(x, y, r);
    Fe out;
    dpf::fromB<8, 12, 48>(r, out.v);
    return out;
  }

  // mul_lazy: w·x·R^-1 in [0, 2p) for w < p and any x < 2^(32N). The rows run over x's
  // limbs with the multiplicand w < p, so the partial sums stay below 2^(32(N+1)) as
  // above, and the result (w·x + M·p)/R < p·x/R + p < 2p.
  static __device__ __forceinline__ Fe mul_lazy(const Fe& w, const Fe& x) { return mul_wide(w, x); }

  // mul_wide: the product before the final subtraction, < 2p.
  static __device__ __forceinline__ Fe mul_wide(const Fe& a, const Fe& b) {
    const uint32_t* v = a.v;
    uint32_t t[N + 1];
#pragma unroll
    for (int i = 0; i <= N; i++) t[i] = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
      const uint32_t bi = b.v[i];
      // t += a·b[i]; t[N] is zero here.
      t[0] = cc::mad_lo_cc(v[0], bi, t[0]);
#pragma unroll
      for (int j = 1; j < N; j++) t[j] = cc::madc_lo_cc(v[j], bi, t[j]);
      t[N] = cc::addc(0, 0);
      t[1] = cc::mad_hi_cc(v[0], bi, t[1]);
#pragma unroll
      for (int j = 1; j < N - 1; j++) t[j + 1] = cc::madc_hi_cc(v[j], bi, t[j + 1]);
      t[N] = cc::madc_hi(v[N - 1], bi, t[N]);
      reduce_row(t);
    }
    Fe r;
#pragma unroll
    for (int i = 0; i < N; i++) r.v[i] = t[i];
    return r;
  }
#endif

  // reduce_row: t += m·p with m = t[0]·M0 making t[0] zero, then t /= 2^32 (one
  // Montgomery reduction row over t[0..N]; t[N] is zero after it).
  static __device__ __forceinline__ void reduce_row(uint32_t (&t)[N + 1]) {
    const uint32_t m = t[0] * P::M0;
    if constexpr (P::kLowOneMinusOne) {  // Fr: −6 % on the 2^27 NTT (docs/BENCHMARKS.md)
      reduce_row_low_one(t, m);
      return;
    }
    t[0] = cc::mad_lo_cc(m, P::mod(0), t[0]);
#pragma unroll
    for (int j = 1; j < N; j++) t[j] = cc::madc_lo_cc(m, P::mod(j), t[j]);
    t[N] = cc::addc(t[N], 0);
    t[1] = cc::mad_hi_cc(m, P::mod(0), t[1]);
    reduce_row_tail<1>(t, m);
  }

  // reduce_row_tail: the rest of a reduction row's hi chain, from limb From of p (the
  // carry flag continues the statement before it), then t /= 2^32.
  template <int From>
  static __device__ __forceinline__ void reduce_row_tail(uint32_t (&t)[N + 1], uint32_t m) {
#pragma unroll
    for (int j = From; j < N - 1; j++) t[j + 1] = cc::madc_hi_cc(m, P::mod(j), t[j + 1]);
    t[N] = cc::madc_hi(m, P::mod(N - 1), t[N]);
#pragma unroll
    for (int j = 0; j < N; j++) t[j] = t[j + 1];
    t[N] = 0;
  }

  // reduce_row_low_one: reduce_row for a modulus whose limbs 0 and 1 are 1 and 2^32 − 1
  // (Fr: r ≡ 2^64 − 2^32 + 1 mod 2^64, so M0 = −1 and m = −t[0]). The four limb products
  // of those two limbs are known without multiplying: lo(m·1) = m, so t[0] + m is zero
  // with a carry exactly when t[0] ≠ 0; lo(m·(2^32 − 1)) = −m = t[0]; hi(m·1) = 0; and
  // hi(m·(2^32 − 1)) = m − 1 = ~t[0] when t[0] ≠ 0, else 0. The sums are those of
  // reduce_row, in the same chains, with two multiplications fewer per chain.
  static __device__ __forceinline__ void reduce_row_low_one(uint32_t (&t)[N + 1], uint32_t m) {
    const uint32_t t0 = t[0];
    const uint32_t h1 = t0 ? ~t0 : 0u;
    (void)cc::add_cc(t0, m);  // only its carry: t[0] + m = 0 or 2^32
    t[1] = cc::addc_cc(t[1], t0);
#pragma unroll
    for (int j = 2; j < N; j++) t[j] = cc::madc_lo_cc(m, P::mod(j), t[j]);
    t[N] = cc::addc(t[N], 0);
    t[2] = cc::add_cc(t[2], h1);
    reduce_row_tail<2>(t, m);
  }

  // sqr is the product: a dedicated square (N(N−1)/2 + N limb products) measured 6 %
  // slower on the G1 MSM and no faster on G2 (docs/BENCHMARKS.md), and was removed.
  __device__ __forceinline__ Fe sqr() const { return *this * *this; }

  // from_mont returns the canonical value a·R^-1 (Montgomery product with raw 1).
  __device__ __forceinline__ Fe from_mont() const {
    Fe one_raw = zero();
    one_raw.v[0] = 1;
    return *this * one_raw;
  }

  // half returns x/2 mod p for x < p: (x + p)/2 when x is odd (x + p < 2^(32N): both
  // moduli leave their top bit clear).
  __device__ __forceinline__ Fe half() const {
    Fe r = *this;
    if (v[0] & 1) {
      uint64_t carry = 0;
#pragma unroll
      for (int i = 0; i < N; i++) {
        const uint64_t t = uint64_t(r.v[i]) + P::mod(i) + carry;
        r.v[i] = uint32_t(t);
        carry = t >> 32;
      }
    }
    limbs::shr1<N>(r.v);
    return r;
  }

  // inv_binary is inv() by the binary extended Euclidean algorithm: about a tenth of the
  // instructions and of the latency of Fermat's 2^(32N) squarings and products, in
  // variable time (for public data: the MSM's affine additions). It inverts the plain
  // value A = aR, then multiplies by R^3 (Montgomery: A^-1·R^3·R^-1 = a^-1·R).
  __device__ Fe inv_binary() const {
    if (is_zero()) return zero();
    uint32_t u[N], w[N];
#pragma unroll
    for (int i = 0; i < N; i++) {
      u[i] = v[i];
      w[i] = P::mod(i);
    }
    Fe x1 = zero(), x2 = zero();  // invariants: x1·A = u, x2·A = w (mod p)
    x1.v[0] = 1;
    while (!limbs::is_one<N>(u) && !limbs::is_one<N>(w)) {
      while (!(u[0] & 1)) {
        limbs::shr1<N>(u);
        x1 = x1.half();
      }
      while (!(w[0] & 1)) {
        limbs::shr1<N>(w);
        x2 = x2.half();
      }
      if (limbs::geq<N>(u, w)) {
        limbs::sub<N>(u, w);
        x1 = x1 - x2;
      } else {
        limbs::sub<N>(w, u);
        x2 = x2 - x1;
      }
    }
    Fe r3;
#pragma unroll
    for (int i = 0; i < N; i++) r3.v[i] = P::r3(i);
    return (limbs::is_one<N>(u) ? x1 : x2) * r3;
  }

  // inv returns a^(p-2) (Fermat); inv(0) = 0. The exponent's limbs are p − 2 with the
  // borrow carried (Fr's lowest limb is 1, so it borrows from the next one).
  __device__ Fe inv() const {
    uint32_t ex[N];
    uint32_t borrow = 2;
    for (int i = 0; i < N; i++) {
      const uint32_t m = P::mod(i);
      ex[i] = m - borrow;
      borrow = m < borrow ? 1u : 0u;
    }
    Fe acc = one();
    for (int i = N - 1; i >= 0; i--) {
      const uint32_t e = ex[i];
      for (int bit = 31; bit >= 0; bit--) {
        acc = acc.sqr();
        if ((e >> bit) & 1) acc = acc * *this;
      }
    }
    return acc;
  }
};


// Fp2 = Fp[u]/(u^2 + 1): c0 + c1·u, the layout of gnark-crypto's fptower.E2 {A0, A1}.
// CALL makes each Fp2 product and square one out-of-line call with its Fp products
// inlined (instead of three or two calls), for the G2 accumulation's measurements.
template <class F, bool CALL = false>
struct alignas(16) Ext2 {
  F c0, c1;

  static __host__ __device__ __forceinline__ Ext2 zero() { return Ext2{F::zero(), F::zero()}; }
  static __device__ __forceinline__ Ext2 one() { return Ext2{F::one(), F::zero()}; }
  __device__ __forceinline__ bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  __device__ __forceinline__ bool operator==(const Ext2& b) const { return c0 == b.c0 && c1 == b.c1; }
  __device__ __forceinline__ bool operator!=(const Ext2& b) const { return !(*this == b); }
  __device__ __forceinline__ Ext2 operator+(const Ext2& b) const { return Ext2{c0 + b.c0, c1 + b.c1}; }
  __device__ __forceinline__ Ext2 operator-(const Ext2& b) const { return Ext2{c0 - b.c0, c1 - b.c1}; }
  __device__ __forceinline__ Ext2 operator-() const { return Ext2{-c0, -c1}; }
  __device__ __forceinline__ Ext2 dbl() const { return Ext2{c0.dbl(), c1.dbl()}; }

  // Karatsuba: (a0 + a1 u)(b0 + b1 u) = a0b0 - a1b1 + ((a0+a1)(b0+b1) - a0b0 - a1b1) u.
  // The two sums stay unreduced (< 2p): the Fp product accepts them (field.cuh, mul_inline).
  // (A lazy-reduction variant, three 2N-limb products and two reductions instead of
  // three, measured 21 % slower on the G2 MSM and was removed: docs/BENCHMARKS.md.)
  __device__ __forceinline__ Ext2 operator*(const Ext2& b) const {
    if constexpr (CALL) {
      return mul_call(*this, b);
    } else {
      return mul_with<false>(*this, b);
    }
  }

  // (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u.
  __device__ __forceinline__ Ext2 sqr() const {
    if constexpr (CALL) {
      return sqr_call(*this);
    } else {
      return sqr_with<false>(*this);
    }
  }

  // fmul: an Fp product, inlined when INL (inside the out-of-line Fp2 calls).
  template <bool INL>
  static __device__ __forceinline__ F fmul(const F& x, const F& y) {
    if constexpr (INL) {
      return F::mul_inline(x, y);
    } else {
      return x * y;
    }
  }
  template <bool INL>
  static __device__ __forceinline__ Ext2 mul_with(const Ext2& a, const Ext2& b) {
    F v0 = fmul<INL>(a.c0, b.c0);
    F v1 = fmul<INL>(a.c1, b.c1);
    F s = fmul<INL>(a.c0.add_unreduced(a.c1), b.c0.add_unreduced(b.c1));
    return Ext2{v0 - v1, s - v0 - v1};
  }
  template <bool INL>
  static __device__ __forceinline__ Ext2 sqr_with(const Ext2& a) {
    F m = fmul<INL>(a.c0, a.c1);
    return Ext2{fmul<INL>(a.c0.add_unreduced(a.c1), a.c0 - a.c1), m.dbl()};
  }
  static __device__ __noinline__ Ext2 mul_call(const Ext2 a, const Ext2 b) { return mul_with<true>(a, b); }
  static __device__ __noinline__ Ext2 sqr_call(const Ext2 a) { return sqr_with<true>(a); }

  // 1/(a0 + a1 u) = (a0 - a1 u)/(a0^2 + a1^2).
  __device__ Ext2 inv() const {
    F n = (c0.sqr() + c1.sqr()).inv();
    return Ext2{c0 * n, -(c1 * n)};
  }
  __device__ Ext2 inv_binary() const {
    F n = (c0.sqr() + c1.sqr()).inv_binary();
    return Ext2{c0 * n, -(c1 * n)};
  }
};

// Vectorised loads/stores (16-byte) for any type whose size is a multiple of 16.
template <class T>
__device__ __forceinline__ T load16(const T* p) {
  static_assert(sizeof(T) % 16 == 0, "load16 needs a multiple of 16 bytes");
  T r;
  const uint4* s = reinterpret_cast<const uint4*>(p);
  uint4* d = reinterpret_cast<uint4*>(&r);
#pragma unroll
  for (int i = 0; i < int(sizeof(T) / 16); i++) d[i] = __ldg(s + i);
  return r;
}

template <class T>
__device__ __forceinline__ void store16(T* p, const T& x) {
  static_assert(sizeof(T) % 16 == 0, "store16 needs a multiple of 16 bytes");
  uint4* d = reinterpret_cast<uint4*>(p);
  const uint4* s = reinterpret_cast<const uint4*>(&x);
#pragma unroll
  for (int i = 0; i < int(sizeof(T) / 16); i++) d[i] = s[i];
}

}  // namespace snarkpipe
