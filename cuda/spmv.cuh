// Sparse products over Fr for the pre-compiled proving path: a recorded R1CS side (A, B
// or C) in CSR form times the assignment z, and gathers of z by an index list (the
// density-filtered scalar vectors of the a / b parameter points).
//
// Rows are independent, one thread per row. The coefficient table follows the recorder's
// convention: slot 0 holds 1 and slot 1 holds −1 (prover/r1cs), so the common ±1 terms
// cost an addition or subtraction, never a product; other terms cost a product only when
// their z value is neither zero nor one. The host checks the table before
// upload; the kernel trusts it.
#pragma once

#include "bls12_381.cuh"
#include "runtime.cuh"

namespace snarkpipe {

struct CsrView {
  const uint64_t* rowptr;  // rows + 1 entries
  const uint32_t* col;     // column of z per term
  const uint32_t* coeff;   // slot in coeffs per term
  const Fr* coeffs;
};

// csr_eval: out[j] = Σ coeffs[coeff[k]]·z[col[k]] over row j's terms for j < rows, and
// zero for rows <= j < n_out (the zero padding up to the NTT domain).
static __global__ void csr_eval(CsrView m, const Fr* __restrict__ z, Fr* __restrict__ out, uint64_t rows,
                                uint64_t n_out) {
  const uint64_t j = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n_out) return;
  Fr sum = Fr::zero();
  const Fr one = Fr::one();
  if (j < rows) {
    const uint64_t hi = m.rowptr[j + 1];
    for (uint64_t k = m.rowptr[j]; k < hi; k++) {
      const Fr v = load16(z + m.col[k]);
      const uint32_t c = m.coeff[k];
      if (c == 0) {
        sum = sum + v;
      } else if (c == 1) {
        sum = sum - v;
      } else if (!v.is_zero()) {
        // In the Filecoin circuits many of these terms are a power of two times a bit (a
        // word packed from its bits): a bit equal to one costs an addition instead of a
        // product, a zero nothing. Such a row is one thread's work while its warp waits.
        const Fr co = load16(m.coeffs + c);
        sum = sum + (v == one ? co : co * v);
      }
    }
  }
  store16(out + j, sum);
}

inline void csr_eval_run(const CsrView& m, const Fr* z, Fr* out, uint64_t rows, uint64_t n_out, cudaStream_t s) {
  if (n_out < rows) invalid("csr_eval: output shorter than the rows");
  if (n_out == 0) return;
  csr_eval<<<blocks_for(n_out, 256), 256, 0, s>>>(m, z, out, rows, n_out);
  SP_LAUNCHED("csr_eval");
}

// gather: out[i] = src[idx[i]].
static __global__ void gather(const Fr* __restrict__ src, const uint32_t* __restrict__ idx, Fr* __restrict__ out,
                              uint64_t n) {
  const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  store16(out + i, load16(src + idx[i]));
}

inline void gather_run(const Fr* src, const uint32_t* idx, Fr* out, uint64_t n, cudaStream_t s) {
  if (n == 0) return;
  gather<<<blocks_for(n, 256), 256, 0, s>>>(src, idx, out, n);
  SP_LAUNCHED("gather");
}

}  // namespace snarkpipe

namespace snarkpipe {

// unpack: the bit-packed witness upload. z[i] for i < n is vals[rank] when bit i of
// field is set (rank = field bits before i: rank[i/64] + the popcount below i in its
// word), else one when bit i of ones is set, else zero. Bitmaps are u64 words.
static __global__ void unpack(Fr* __restrict__ z, uint64_t n, const uint64_t* __restrict__ field,
                              const uint64_t* __restrict__ ones, const uint32_t* __restrict__ rank,
                              const Fr* __restrict__ vals, Fr one) {
  const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uint64_t w = i / 64, bit = uint64_t(1) << (i % 64);
  const uint64_t fw = field[w];
  Fr r;
  if (fw & bit) {
    const uint64_t below = fw & (bit - 1);
    r = load16(vals + rank[w] + uint32_t(__popcll(below)));
  } else {
    r = (ones[w] & bit) ? one : Fr::zero();
  }
  store16(z + i, r);
}

inline void unpack_run(Fr* z, uint64_t n, const uint64_t* field, const uint64_t* ones, const uint32_t* rank,
                       const Fr* vals, const Fr& one, cudaStream_t s) {
  if (n == 0) return;
  unpack<<<blocks_for(n, 256), 256, 0, s>>>(z, n, field, ones, rank, vals, one);
  SP_LAUNCHED("unpack");
}

}  // namespace snarkpipe
