// Benchmark-parameter setup on the device (known, insecure toxic waste; the host labels
// the result): Lagrange basis at τ over the NTT domain, powers, the l-vector combination
// (β·u + α·v + w)·k, and fixed-base scalar multiplication s_i·G for G1 and G2. The
// per-variable u_i(τ), v_i(τ), w_i(τ) are sparse products over the transposed recorded
// matrices, for which the host reuses csr_eval (spmv.cuh).
#pragma once

#include "bls12_381.cuh"
#include "curve.cuh"
#include "ntt.cuh"
#include "runtime.cuh"

namespace snarkpipe {

// lagrange_at: out[j] = scale·ω^j / (τ − ω^j) for j < 2^lg_n (scale = t(τ)/m; the host
// checks τ^m ≠ 1, so no denominator is zero). One Fermat inversion per element.
static __global__ void lagrange_at(Fr* __restrict__ out, uint64_t n, PowTables omega, Fr tau, Fr scale) {
  const uint64_t j = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n) return;
  const Fr w = omega.at(j);
  store16(out + j, scale * w * (tau - w).inv());
}

// powers: out[j] = scale·base^j.
static __global__ void powers(Fr* __restrict__ out, uint64_t n, PowTables base, Fr scale) {
  const uint64_t j = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n) return;
  store16(out + j, scale * base.at(j));
}

// lincomb: out[i] = (k0·u[i] + k1·v[i] + w[i])·k2 (out may alias u, v or w).
static __global__ void lincomb(Fr* out, const Fr* u, const Fr* v, const Fr* w, uint64_t n, Fr k0, Fr k1, Fr k2) {
  const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Fr r = (k0 * load16(u + i) + k1 * load16(v + i) + load16(w + i)) * k2;
  store16(out + i, r);
}

inline int lg_ceil(uint64_t n) {
  int l = 0;
  while ((uint64_t(1) << l) < n) l++;
  return l;
}

inline void lagrange_run(Fr* out, int lg_n, const Fr& omega, const Fr& tau, const Fr& scale, cudaStream_t s) {
  if (lg_n < 0 || lg_n > 28) invalid("lagrange: lg_n must be in [0, 28]");
  const uint64_t n = uint64_t(1) << lg_n;
  PowTablesBuf tw(omega, lg_n, s);
  lagrange_at<<<blocks_for(n, 256), 256, 0, s>>>(out, n, tw.view(), tau, scale);
  SP_LAUNCHED("lagrange_at");
}

inline void powers_run(Fr* out, uint64_t n, const Fr& base, const Fr& scale, cudaStream_t s) {
  if (n == 0) return;
  const int lg = lg_ceil(n);
  if (lg > 32) invalid("powers: n above 2^32");
  PowTablesBuf tw(base, lg, s);
  powers<<<blocks_for(n, 256), 256, 0, s>>>(out, n, tw.view(), scale);
  SP_LAUNCHED("powers");
}

inline void lincomb_run(Fr* out, const Fr* u, const Fr* v, const Fr* w, uint64_t n, const Fr* k, cudaStream_t s) {
  if (n == 0) return;
  lincomb<<<blocks_for(n, 256), 256, 0, s>>>(out, u, v, w, n, k[0], k[1], k[2]);
  SP_LAUNCHED("lincomb");
}

// Fixed-base multiplication with 4-bit windows: table[16·w + d] = d·2^(4w)·G (d = 0 is
// the point at infinity, never read), 64 windows cover 256 bits, so a point costs at most
// 64 mixed additions. Each thread converts kFixedChunk results to affine with one
// inversion (Montgomery's trick), as gen_bases does.
constexpr int kFixedWindows = 64;
constexpr int kFixedChunk = 8;

template <class F>
static __global__ void fixed_mul(Affine<F>* __restrict__ out, const Fr* __restrict__ scalars, uint64_t n,
                                 const Affine<F>* __restrict__ table) {
  const uint64_t t = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const uint64_t i0 = t * kFixedChunk;
  if (i0 >= n) return;
  const int cnt = (n - i0 < kFixedChunk) ? int(n - i0) : kFixedChunk;
  Xyzz<F> pts[kFixedChunk];
  F prefix[kFixedChunk];
  F acc = F::one();
  for (int k = 0; k < cnt; k++) {
    const Fr s = load16(scalars + i0 + k).from_mont();
    Xyzz<F> p = Xyzz<F>::inf();
    for (int w = 0; w < kFixedWindows; w++) {
      const uint32_t d = (s.v[w / 8] >> (4 * (w % 8))) & 15u;
      if (d) p = p.add_affine(load16(table + 16 * w + d));
    }
    pts[k] = p;
    if (!p.is_inf()) acc = acc * (p.ZZ * p.ZZZ);
    prefix[k] = acc;
  }
  F inv = acc.inv();
  for (int k = cnt - 1; k >= 0; k--) {
    Affine<F> r;
    if (pts[k].is_inf()) {
      r.x = F::zero();
      r.y = F::zero();
    } else {
      const F before = k ? prefix[k - 1] : F::one();
      const F d_inv = inv * before;
      inv = inv * (pts[k].ZZ * pts[k].ZZZ);
      r.x = pts[k].X * (d_inv * pts[k].ZZZ);
      r.y = pts[k].Y * (d_inv * pts[k].ZZ);
    }
    store16(out + i0 + k, r);
  }
}

template <class F>
void fixed_mul_run(Affine<F>* d_out, const Fr* d_scalars, uint64_t n, const Affine<F>* h_table, cudaStream_t s) {
  if (n == 0) return;
  if (!d_out || !d_scalars || !h_table) invalid("nil argument");
  const size_t entries = size_t(16) * kFixedWindows;
  Buf<Affine<F>> table(entries, s);
  SP_CUDA(cudaMemcpyAsync(table.p, h_table, entries * sizeof(Affine<F>), cudaMemcpyHostToDevice, s));
  const uint64_t threads = (n + kFixedChunk - 1) / kFixedChunk;
  fixed_mul<F><<<blocks_for(threads, 128), 128, 0, s>>>(d_out, d_scalars, n, table.p);
  SP_LAUNCHED("fixed_mul");
  SP_CUDA(cudaStreamSynchronize(s));  // the host table must outlive the copy
}

}  // namespace snarkpipe
