// Experimental Montgomery product in radix 2^29 (issue 7's question: can IMAD.WIDE.U32
// beat the PTX carry chains of field.cuh?). Values are NL limbs of 29 bits in 32-bit
// words; the product is column-wise (product scanning) with one 64-bit accumulator: every
// limb product a_i·b_j < 2^58, and a column holds at most 2·NL products plus the carry of
// the previous one, below 2^64 for NL <= 15, so no carry flag is ever needed: each limb
// product is one multiply-add of a 32×32-bit product into 64 bits (IMAD.WIDE.U32 on sm_90).
//
// mul29(a, b) = a·b·2^(-29·NL) mod p, below 2p for a, b < 2p when 4p < 2^(29·NL)
// (Fr: NL = 9, 261 bits; Fp: NL = 14, 406 bits). It is not the Montgomery form of
// field.cuh (R = 2^(32N)): mul29(x·R, y·2^(29NL)) = x·y·R, so a caller keeps one operand
// (a twiddle, a constant) pre-scaled by 2^(29NL − 32N). Only cuda/probe uses it so far.
#pragma once

#include <cstdint>

namespace snarkpipe {
namespace m29 {

constexpr uint32_t kMask = (1u << 29) - 1;

// to29 splits NW 32-bit words into NL 29-bit limbs (NL·29 >= NW·32).
template <int NW, int NL>
__host__ __device__ __forceinline__ void to29(const uint32_t (&w)[NW], uint32_t (&l)[NL]) {
#pragma unroll
  for (int i = 0; i < NL; i++) {
    const int q = (29 * i) / 32, s = (29 * i) % 32;
    uint32_t v = q < NW ? w[q] >> s : 0;
    if (s > 3 && q + 1 < NW) v |= w[q + 1] << (32 - s);
    l[i] = v & kMask;
  }
}

// from29 packs NL 29-bit limbs (value below 2^(32·NW)) into NW 32-bit words.
template <int NL, int NW>
__host__ __device__ __forceinline__ void from29(const uint32_t (&l)[NL], uint32_t (&w)[NW]) {
#pragma unroll
  for (int j = 0; j < NW; j++) {
    const int i = (32 * j) / 29, s = (32 * j) % 29;
    uint64_t v = uint64_t(l[i]);
    if (i + 1 < NL) v |= uint64_t(l[i + 1]) << 29;
    if (i + 2 < NL) v |= uint64_t(l[i + 2]) << 58;
    w[j] = uint32_t(v >> s);
  }
}

// mul29: see the file comment. p are the modulus' limbs, pinv = −p^(−1) mod 2^29.
template <int NL>
__host__ __device__ __forceinline__ void mul29(const uint32_t (&a)[NL], const uint32_t (&b)[NL], const uint32_t* p,
                                               uint32_t pinv, uint32_t (&r)[NL]) {
  static_assert(NL <= 15, "the 64-bit column sum needs 2·NL·2^58 + 2^35 < 2^64");
  uint32_t m[NL];
  uint64_t acc = 0;
#pragma unroll
  for (int k = 0; k < NL; k++) {
#pragma unroll
    for (int i = 0; i <= k; i++) acc += uint64_t(a[i]) * b[k - i];
#pragma unroll
    for (int i = 0; i < k; i++) acc += uint64_t(m[i]) * p[k - i];
    m[k] = (uint32_t(acc) * pinv) & kMask;
    acc += uint64_t(m[k]) * p[0];  // the column's low 29 bits are now zero
    acc >>= 29;
  }
#pragma unroll
  for (int k = NL; k < 2 * NL - 1; k++) {
#pragma unroll
    for (int i = k - NL + 1; i < NL; i++) acc += uint64_t(a[i]) * b[k - i] + uint64_t(m[i]) * p[k - i];
    r[k - NL] = uint32_t(acc) & kMask;
    acc >>= 29;
  }
  r[NL - 1] = uint32_t(acc);
}

}  // namespace m29
}  // namespace snarkpipe
