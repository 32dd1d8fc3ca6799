// Bench and test helpers: many distinct affine bases from two small tables
// (P_i = A[i mod 2^lg_a] + B[i >> lg_a], converted to affine with one inversion per chunk
// of points, Montgomery's trick), pseudo-random scalars with a chosen share of zeros and
// ones, and element-wise field operations for self-tests.
#pragma once

#include "bls12_381.cuh"
#include "runtime.cuh"

namespace snarkpipe {

constexpr int kGenChunk = 16;

template <class F>
static __global__ void gen_bases(Affine<F>* __restrict__ out, uint64_t n, const Affine<F>* __restrict__ a, int lg_a,
                          const Affine<F>* __restrict__ b) {
  const uint64_t t = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const uint64_t i0 = t * kGenChunk;
  if (i0 >= n) return;
  const int cnt = (n - i0 < kGenChunk) ? int(n - i0) : kGenChunk;
  Xyzz<F> pts[kGenChunk];
  F prefix[kGenChunk];
  F acc = F::one();
  for (int k = 0; k < cnt; k++) {
    const uint64_t i = i0 + k;
    const uint64_t mask = (uint64_t(1) << lg_a) - 1;
    pts[k] = Xyzz<F>::from_affine(load16(b + (i >> lg_a))).add_affine(load16(a + (i & mask)));
    if (!pts[k].is_inf()) acc = acc * (pts[k].ZZ * pts[k].ZZZ);
    prefix[k] = acc;
  }
  F inv = acc.inv();  // 1 / Π ZZ·ZZZ
  for (int k = cnt - 1; k >= 0; k--) {
    Affine<F> r;
    if (pts[k].is_inf()) {
      r.x = F::zero();
      r.y = F::zero();
    } else {
      const F before = k ? prefix[k - 1] : F::one();
      const F d_inv = inv * before;  // 1/(ZZ·ZZZ) of point k
      inv = inv * (pts[k].ZZ * pts[k].ZZZ);
      r.x = pts[k].X * (d_inv * pts[k].ZZZ);
      r.y = pts[k].Y * (d_inv * pts[k].ZZ);
    }
    store16(out + i0 + k, r);
  }
}

template <class F>
void gen_bases_run(Affine<F>* d_out, uint64_t n, const Affine<F>* h_a, uint32_t lg_a, const Affine<F>* h_b,
                   uint64_t nb, cudaStream_t s) {
  if (!d_out || !h_a || !h_b) invalid("nil argument");
  if (lg_a > 24 || nb == 0 || n > (nb << lg_a)) invalid("gen_bases: n > nb << lg_a");
  Buf<Affine<F>> a(size_t(1) << lg_a, s), b(nb, s);
  SP_CUDA(cudaMemcpyAsync(a.p, h_a, (size_t(1) << lg_a) * sizeof(Affine<F>), cudaMemcpyHostToDevice, s));
  SP_CUDA(cudaMemcpyAsync(b.p, h_b, nb * sizeof(Affine<F>), cudaMemcpyHostToDevice, s));
  const uint64_t threads = (n + kGenChunk - 1) / kGenChunk;
  gen_bases<F><<<blocks_for(threads, 128), 128, 0, s>>>(d_out, n, a.p, int(lg_a), b.p);
  SP_LAUNCHED("gen_bases");
  SP_CUDA(cudaStreamSynchronize(s));  // the host tables must outlive the copies
}

__device__ __forceinline__ uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

static __global__ void gen_scalars(Fr* __restrict__ out, uint64_t n, uint64_t seed, uint32_t zero_pm, uint32_t one_pm, Fr one) {
  const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint64_t x = splitmix64(seed ^ (i * 0xd1b54a32d192ed03ull));
  const uint32_t u = uint32_t(x % 1000);
  Fr r;
  if (u < zero_pm) {
    r = Fr::zero();
  } else if (u < zero_pm + one_pm) {
    r = one;
  } else {
    for (int k = 0; k < 4; k++) {
      x = splitmix64(x);
      r.v[2 * k] = uint32_t(x);
      r.v[2 * k + 1] = uint32_t(x >> 32);
    }
    r.v[7] &= 0x1fffffffu;  // < 2^253 < r
  }
  store16(out + i, r);
}

template <class F>
static __global__ void field_ops(const F* __restrict__ a, const F* __restrict__ b, uint64_t n, F* mul, F* add, F* sub) {
  const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const F x = a[i], y = b[i];
  mul[i] = x * y;
  add[i] = x + y;
  sub[i] = x - y;
}

template <class F>
void field_ops_run(const void* h_a, const void* h_b, uint64_t n, void* h_mul, void* h_add, void* h_sub,
                   cudaStream_t s) {
  if (!h_a || !h_b || !h_mul || !h_add || !h_sub) invalid("nil argument");
  Buf<F> a(n, s), b(n, s), m(n, s), p(n, s), q(n, s);
  const size_t bytes = n * sizeof(F);
  SP_CUDA(cudaMemcpyAsync(a.p, h_a, bytes, cudaMemcpyHostToDevice, s));
  SP_CUDA(cudaMemcpyAsync(b.p, h_b, bytes, cudaMemcpyHostToDevice, s));
  field_ops<F><<<blocks_for(n, 128), 128, 0, s>>>(a.p, b.p, n, m.p, p.p, q.p);
  SP_LAUNCHED("field_ops");
  SP_CUDA(cudaMemcpyAsync(h_mul, m.p, bytes, cudaMemcpyDeviceToHost, s));
  SP_CUDA(cudaMemcpyAsync(h_add, p.p, bytes, cudaMemcpyDeviceToHost, s));
  SP_CUDA(cudaMemcpyAsync(h_sub, q.p, bytes, cudaMemcpyDeviceToHost, s));
  SP_CUDA(cudaStreamSynchronize(s));
}

}  // namespace snarkpipe
