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

#include <algorithm>
#include <vector>

namespace snarkpipe {

struct CsrView {
  const uint64_t* rowptr;  // rows + 1 entries
  const uint32_t* col;     // column of z per term
  const uint32_t* coeff;   // slot in coeffs per term
  const Fr* coeffs;
  // base: the index of col[0] and coeff[0] among the side's terms (a chunk of rows
  // streamed from host memory holds only its own terms; 0 for a whole side).
  uint64_t base = 0;
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
      const Fr v = load16(z + m.col[k - m.base]);
      const uint32_t c = m.coeff[k - m.base];
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

// CsrChunk: rows [r0, r1) of a side, whose terms are [rowptr[r0], rowptr[r1]).
struct CsrChunk {
  uint64_t r0, r1;
};

// csr_host_chunks cuts rows into chunks of at most max_terms terms (a longer row is a
// chunk of its own) and at most max_terms rows.
inline std::vector<CsrChunk> csr_host_chunks(const uint64_t* rowptr, uint64_t rows, uint64_t max_terms) {
  std::vector<CsrChunk> out;
  uint64_t r0 = 0;
  while (r0 < rows) {
    uint64_t r1 = r0 + 1;
    while (r1 < rows && r1 - r0 < max_terms && rowptr[r1 + 1] - rowptr[r0] <= max_terms) r1++;
    out.push_back({r0, r1});
    r0 = r1;
  }
  return out;
}

// CsrCopyStream: the copy stream of a side streamed from host memory, and per buffer set
// the events that say its chunk has arrived and has been evaluated. Its destructor waits
// for the copies in flight, so it is declared after the buffers (destroyed before them).
struct CsrCopyStream {
  cudaStream_t s = nullptr;
  cudaEvent_t copied[2] = {nullptr, nullptr}, used[2] = {nullptr, nullptr};
  void init() {
    SP_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (auto* e : {&copied[0], &copied[1], &used[0], &used[1]})
      SP_CUDA(cudaEventCreateWithFlags(e, cudaEventDisableTiming));
  }
  ~CsrCopyStream() {
    if (s) {
      cudaStreamSynchronize(s);
      cudaStreamDestroy(s);
    }
    for (auto e : {copied[0], copied[1], used[0], used[1]})
      if (e) cudaEventDestroy(e);
  }
};

// csr_eval_host_run: csr_eval_run over a side whose rowptr, col and coeff arrays are in
// host memory (page-locked for the copies to overlap): chunks of rows (csr_host_chunks,
// chunk_terms terms) are copied on a second stream into one of two device buffer sets
// while the previous chunk is evaluated. The same out as csr_eval_run's.
inline void csr_eval_host_run(const uint64_t* h_rowptr, const uint32_t* h_col, const uint32_t* h_coeff,
                              const Fr* coeffs, uint64_t rows, const Fr* z, Fr* out, uint64_t n_out,
                              uint64_t chunk_terms, cudaStream_t s) {
  if (n_out < rows) invalid("csr_eval: output shorter than the rows");
  if (chunk_terms == 0) invalid("csr_eval_host: chunk_terms must be > 0");
  if (rows < n_out) SP_CUDA(cudaMemsetAsync(out + rows, 0, (n_out - rows) * sizeof(Fr), s));  // Fr zero
  if (rows == 0) return;
  const std::vector<CsrChunk> chunks = csr_host_chunks(h_rowptr, rows, chunk_terms);
  uint64_t max_rows = 0, max_terms = 1;
  for (const CsrChunk& c : chunks) {
    max_rows = std::max(max_rows, c.r1 - c.r0);
    max_terms = std::max(max_terms, h_rowptr[c.r1] - h_rowptr[c.r0]);
  }
  Buf<uint64_t> rp0(max_rows + 1, s), rp1(max_rows + 1, s);
  Buf<uint32_t> col0(max_terms, s), col1(max_terms, s), cf0(max_terms, s), cf1(max_terms, s);
  uint64_t* rp[2] = {rp0.p, rp1.p};
  uint32_t* col[2] = {col0.p, col1.p};
  uint32_t* cf[2] = {cf0.p, cf1.p};
  CsrCopyStream cs;
  cs.init();
  const auto issue = [&](size_t k) {
    const CsrChunk& c = chunks[k];
    const int i = int(k & 1);
    const uint64_t t0 = h_rowptr[c.r0], nt = h_rowptr[c.r1] - t0;
    SP_CUDA(cudaMemcpyAsync(rp[i], h_rowptr + c.r0, (c.r1 - c.r0 + 1) * 8, cudaMemcpyHostToDevice, cs.s));
    if (nt) {
      SP_CUDA(cudaMemcpyAsync(col[i], h_col + t0, nt * 4, cudaMemcpyHostToDevice, cs.s));
      SP_CUDA(cudaMemcpyAsync(cf[i], h_coeff + t0, nt * 4, cudaMemcpyHostToDevice, cs.s));
    }
    SP_CUDA(cudaEventRecord(cs.copied[i], cs.s));
  };
  issue(0);
  if (chunks.size() > 1) issue(1);
  for (size_t k = 0; k < chunks.size(); k++) {
    const CsrChunk& c = chunks[k];
    const int i = int(k & 1);
    SP_CUDA(cudaStreamWaitEvent(s, cs.copied[i], 0));
    CsrView m{rp[i], col[i], cf[i], coeffs, h_rowptr[c.r0]};
    const uint64_t n = c.r1 - c.r0;
    csr_eval<<<blocks_for(n, 256), 256, 0, s>>>(m, z, out + c.r0, n, n);
    SP_LAUNCHED("csr_eval");
    SP_CUDA(cudaEventRecord(cs.used[i], s));
    if (k + 2 < chunks.size()) {
      SP_CUDA(cudaStreamWaitEvent(cs.s, cs.used[i], 0));  // buffer set i is free again
      issue(k + 2);
    }
  }
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
