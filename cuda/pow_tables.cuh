// Powers of one Fr element from two small tables: base^x = lo[x mod 2^l] · hi[x >> l],
// computed on the device per call (2^⌈lg/2⌉ + 2^⌊lg/2⌋ entries for x < 2^lg). A constant
// factor c may be folded into the low table, so c·base^x costs the same one product.
#pragma once

#include "bls12_381.cuh"
#include "runtime.cuh"

namespace snarkpipe {

// pow_table: out[i] = c·base^(i·2^shift), c = 1 unless scaled.
static __global__ void pow_table(Fr* __restrict__ out, uint32_t count, Fr base, int shift, Fr c, bool scaled) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  Fr b = base;
  for (int k = 0; k < shift; k++) b = b.sqr();
  Fr acc = scaled ? c : Fr::one();
  for (uint32_t e = i; e; e >>= 1) {
    if (e & 1) acc = acc * b;
    b = b.sqr();
  }
  store16(out + i, acc);
}

struct PowTables {
  const Fr* lo;
  const Fr* hi;
  int l_lo;
  __device__ __forceinline__ Fr at(uint64_t x) const {
    return load16(lo + (x & ((1u << l_lo) - 1))) * load16(hi + (x >> l_lo));
  }
};

// PowTablesBuf owns the two tables of c·base^x for x < 2^lg_n (c = 1 when not given).
struct PowTablesBuf {
  Buf<Fr> lo, hi;
  int l_lo;
  PowTablesBuf(const Fr& base, int lg_n, cudaStream_t s, const Fr* c = nullptr)
      : lo(size_t(1) << ((lg_n + 1) / 2), s), hi(size_t(1) << (lg_n - (lg_n + 1) / 2), s), l_lo((lg_n + 1) / 2) {
    const uint32_t nlo = 1u << l_lo, nhi = 1u << (lg_n - l_lo);
    pow_table<<<blocks_for(nlo, 128), 128, 0, s>>>(lo.p, nlo, base, 0, c ? *c : base, c != nullptr);
    SP_LAUNCHED("pow_table");
    pow_table<<<blocks_for(nhi, 128), 128, 0, s>>>(hi.p, nhi, base, l_lo, base, false);
    SP_LAUNCHED("pow_table");
  }
  PowTables view() const { return PowTables{lo.p, hi.p, l_lo}; }
};

__device__ __forceinline__ uint32_t bitrev(uint32_t x, int bits) { return bits ? __brev(x) >> (32 - bits) : 0; }

}  // namespace snarkpipe
