// mulprobe: do the FP64 product (dpf.cuh: limb products on the double-precision pipe) or
// the radix-2^29 product (mul29.cuh: 64-bit multiply-adds, no carry flag) beat
// field.cuh's CIOS product (PTX carry chains) on this GPU? Prints, for Fr and Fp:
// products per second with four independent chains per thread, raw (staying in their
// radix) and as a drop-in (converting one operand from 32-bit limbs and back), and the
// raw throughput of 32-bit IMAD and 64-bit IMAD.WIDE.U32. Checks both against the CIOS
// product on random and edge inputs first and exits 1 on any mismatch.
// Build and run on a GPU host: sh cuda/probe/run.sh
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../bls12_381.cuh"
#include "../dpf.cuh"
#include "mul29.cuh"

using namespace snarkpipe;

__constant__ uint32_t kP29Fr[9];
__constant__ uint32_t kP29Fp[14];

template <class F>
struct M29;
template <>
struct M29<Fr> {
  static constexpr int NW = 8, NL = 9, kShift = 29 * 9 - 32 * 8;  // 5
  static __device__ __forceinline__ const uint32_t* p() { return kP29Fr; }
  static constexpr uint32_t pinv = 0x1fffffffu;
};
template <>
struct M29<Fp> {
  static constexpr int NW = 12, NL = 14, kShift = 29 * 14 - 32 * 12;  // 22
  static __device__ __forceinline__ const uint32_t* p() { return kP29Fp; }
  static constexpr uint32_t pinv = 0x1ffcfffdu;
};

template <class F>
__device__ __forceinline__ void to_limbs(const F& x, uint32_t (&l)[M29<F>::NL]) {
  m29::to29<M29<F>::NW, M29<F>::NL>(x.v, l);
}
template <class F>
__device__ __forceinline__ F from_limbs(const uint32_t (&l)[M29<F>::NL]) {
  F r;
  m29::from29<M29<F>::NL, M29<F>::NW>(l, r.v);
  return F::reduce_once(r, 0);
}
template <class F>
__device__ __noinline__ void mul29_call(const uint32_t (&a)[M29<F>::NL], const uint32_t (&b)[M29<F>::NL],
                                        uint32_t (&r)[M29<F>::NL]) {
  m29::mul29<M29<F>::NL>(a, b, M29<F>::p(), M29<F>::pinv, r);
}
// drop-in: x (32-bit limbs, < p) times b29 (pre-scaled, radix 2^29), back in 32-bit limbs, < p.
template <class F>
__device__ __forceinline__ F mul_dropin(const F& x, const uint32_t (&b29)[M29<F>::NL]) {
  uint32_t a[M29<F>::NL], r[M29<F>::NL];
  to_limbs(x, a);
  m29::mul29<M29<F>::NL>(a, b29, M29<F>::p(), M29<F>::pinv, r);
  return from_limbs<F>(r);
}

// check: out[i] = 1 where from29(mul29(x, y·2^kShift)) == x·y (CIOS), both fully reduced.
template <class F>
__global__ void k_check(const F* x, const F* y, uint32_t n, uint32_t* bad) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const F want = x[i] * y[i];
  F ys = y[i];
  for (int k = 0; k < M29<F>::kShift; k++) ys = ys + ys;
  uint32_t b[M29<F>::NL];
  to_limbs(ys, b);
  const F got = mul_dropin(x[i], b);
  if (got != want) atomicAdd(bad, 1u);
}

// k_cios: field.cuh's product; CALL the out-of-line one (Fp's default in the MSM kernels).
template <class F, bool CALL>
__global__ void k_cios(const F* x, const F* y, F* out, int iters) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  F a[4] = {x[4 * i], x[4 * i + 1], x[4 * i + 2], x[4 * i + 3]};
  const F b = y[i];
  for (int k = 0; k < iters; k++)
#pragma unroll
    for (int j = 0; j < 4; j++) a[j] = CALL ? F::mul_call(a[j], b) : a[j] * b;
  out[i] = a[0] + a[1] + a[2] + a[3];
}

template <class F, bool CALL>
__global__ void k_m29(const F* x, const F* y, F* out, int iters) {
  constexpr int NL = M29<F>::NL;
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t a0[NL], a1[NL], a2[NL], a3[NL], b[NL];
  to_limbs(x[4 * i], a0);
  to_limbs(x[4 * i + 1], a1);
  to_limbs(x[4 * i + 2], a2);
  to_limbs(x[4 * i + 3], a3);
  to_limbs(y[i], b);
  for (int k = 0; k < iters; k++) {
    if (CALL) {
      mul29_call<F>(a0, b, a0);
      mul29_call<F>(a1, b, a1);
      mul29_call<F>(a2, b, a2);
      mul29_call<F>(a3, b, a3);
    } else {
      m29::mul29<NL>(a0, b, M29<F>::p(), M29<F>::pinv, a0);
      m29::mul29<NL>(a1, b, M29<F>::p(), M29<F>::pinv, a1);
      m29::mul29<NL>(a2, b, M29<F>::p(), M29<F>::pinv, a2);
      m29::mul29<NL>(a3, b, M29<F>::p(), M29<F>::pinv, a3);
    }
  }
  out[i] = from_limbs<F>(a0) + from_limbs<F>(a1) + from_limbs<F>(a2) + from_limbs<F>(a3);
}

template <class F>
__global__ void k_dropin(const F* x, const F* y, F* out, int iters) {
  constexpr int NL = M29<F>::NL;
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  F a0 = x[4 * i], a1 = x[4 * i + 1], a2 = x[4 * i + 2], a3 = x[4 * i + 3];
  uint32_t b[NL];
  to_limbs(y[i], b);
  for (int k = 0; k < iters; k++) {
    a0 = mul_dropin(a0, b);
    a1 = mul_dropin(a1, b);
    a2 = mul_dropin(a2, b);
    a3 = mul_dropin(a3, b);
  }
  out[i] = a0 + a1 + a2 + a3;
}

// The FP64 product (dpf.cuh): DPF<F> names its modulus and the pre-scaling 2^(52NL − 32N).
template <class F>
struct DPF;
template <>
struct DPF<Fr> {
  using P = dpf::FrModulus;
  static constexpr int kShift = 52 * 5 - 32 * 8;  // 4
};
template <>
struct DPF<Fp> {
  using P = dpf::FpModulus;
  static constexpr int kShift = 52 * 8 - 32 * 12;  // 32
};

template <class F>
__device__ __noinline__ void dpf_call(const double (&a)[DPF<F>::P::NL], const double (&b)[DPF<F>::P::NL],
                                      uint64_t (&r)[DPF<F>::P::NL]) {
  dpf::mont<typename DPF<F>::P>(a, b, r);
}

// dpf_dropin: x (32-bit limbs, < 2p) times b52 (pre-scaled, 52-bit limbs), in 32-bit limbs, < 2p.
template <class F>
__device__ __forceinline__ F dpf_dropin(const F& x, const double (&b52)[DPF<F>::P::NL]) {
  constexpr int NL = DPF<F>::P::NL;
  double a[NL];
  uint64_t r[NL];
  dpf::to52<F::N, NL>(x.v, a);
  dpf::mont<typename DPF<F>::P>(a, b52, r);
  F out;
  dpf::from52<NL, F::N>(r, out.v);
  return out;
}

// check_dpf: x·y by dpf_dropin (y·2^kShift, reduced below p) equals x·y (CIOS).
template <class F>
__global__ void k_check_dpf(const F* x, const F* y, uint32_t n, uint32_t* bad) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const F want = x[i] * y[i];
  F ys = y[i];
  for (int k = 0; k < DPF<F>::kShift; k++) ys = ys + ys;
  double b[DPF<F>::P::NL];
  dpf::to52<F::N, DPF<F>::P::NL>(ys.v, b);
  const F got = F::reduce_once(dpf_dropin(x[i], b), 0);
  if (got != want) atomicAdd(bad, 1u);
}

// k_dpf: four independent product chains kept in radix 2^52 (the result's integer limbs
// turned back into doubles each time); CALL: out of line.
template <class F, bool CALL>
__global__ void k_dpf(const F* x, const F* y, F* out, int iters) {
  constexpr int NL = DPF<F>::P::NL;
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  double a[4][NL], b[NL];
#pragma unroll
  for (int j = 0; j < 4; j++) dpf::to52<F::N, NL>(x[4 * i + j].v, a[j]);
  dpf::to52<F::N, NL>(y[i].v, b);
  for (int k = 0; k < iters; k++) {
#pragma unroll
    for (int j = 0; j < 4; j++) {
      uint64_t r[NL];
      if (CALL)
        dpf_call<F>(a[j], b, r);
      else
        dpf::mont<typename DPF<F>::P>(a[j], b, r);
#pragma unroll
      for (int l = 0; l < NL; l++) a[j][l] = dpf::to_double(r[l]);
    }
  }
  F s = F::zero();
#pragma unroll
  for (int j = 0; j < 4; j++) {
    uint64_t r[NL];
#pragma unroll
    for (int l = 0; l < NL; l++) r[l] = uint64_t(a[j][l]);
    F v;
    dpf::from52<NL, F::N>(r, v.v);
    s = s + F::reduce_once(v, 0);
  }
  out[i] = s;
}

template <class F>
__global__ void k_dpf_dropin(const F* x, const F* y, F* out, int iters) {
  constexpr int NL = DPF<F>::P::NL;
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  F a0 = x[4 * i], a1 = x[4 * i + 1], a2 = x[4 * i + 2], a3 = x[4 * i + 3];
  double b[NL];
  dpf::to52<F::N, NL>(y[i].v, b);
  for (int k = 0; k < iters; k++) {
    a0 = dpf_dropin(a0, b);
    a1 = dpf_dropin(a1, b);
    a2 = dpf_dropin(a2, b);
    a3 = dpf_dropin(a3, b);
  }
  out[i] = F::reduce_once(a0, 0) + F::reduce_once(a1, 0) + F::reduce_once(a2, 0) + F::reduce_once(a3, 0);
}

// Raw multiply-add throughput: 8 independent accumulators per thread.
__global__ void k_imad(uint32_t* out, uint32_t m, int iters) {
  uint32_t a[8];
  for (int j = 0; j < 8; j++) a[j] = threadIdx.x + j;
  for (int k = 0; k < iters; k++)
#pragma unroll
    for (int j = 0; j < 8; j++) a[j] = a[j] * m + a[(j + 1) & 7];
  uint32_t s = 0;
  for (int j = 0; j < 8; j++) s ^= a[j];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
__global__ void k_imad_wide(uint64_t* out, uint32_t m, int iters) {
  uint64_t a[8];
  for (int j = 0; j < 8; j++) a[j] = threadIdx.x + j;
  for (int k = 0; k < iters; k++)
#pragma unroll
    for (int j = 0; j < 8; j++) a[j] = uint64_t(uint32_t(a[(j + 1) & 7])) * m + a[j];
  uint64_t s = 0;
  for (int j = 0; j < 8; j++) s ^= a[j];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

#define CK(x)                                                                    \
  do {                                                                           \
    cudaError_t e_ = (x);                                                        \
    if (e_ != cudaSuccess) {                                                     \
      fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      exit(2);                                                                   \
    }                                                                            \
  } while (0)

template <class K>
double time_ms(K launch) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  launch();  // warm-up
  CK(cudaDeviceSynchronize());
  std::vector<float> t;
  for (int r = 0; r < 5; r++) {
    CK(cudaEventRecord(a));
    launch();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[2];
}

// Host copies of the moduli (bls12_381.cuh) for the radix-2^29 limbs.
static const uint32_t kFr32[8] = {0x00000001, 0xffffffff, 0xfffe5bfe, 0x53bda402,
                                  0x09a1d805, 0x3339d808, 0x299d7d48, 0x73eda753};
static const uint32_t kFp32[12] = {0xffffaaab, 0xb9feffff, 0xb153ffff, 0x1eabfffe, 0xf6b0f624, 0x6730d2a0,
                                   0xf38512bf, 0x64774b84, 0x434bacd7, 0x4b1ba7b6, 0x397fe69a, 0x1a0111ea};

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t rnd() {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return uint32_t(rng_state >> 16);
}

// random_below: uniform-ish values < m (top word masked below the modulus' top word).
template <class F>
std::vector<F> random_below(const uint32_t* m, size_t n) {
  std::vector<F> v(n);
  for (size_t i = 0; i < n; i++) {
    for (int k = 0; k < F::N; k++) v[i].v[k] = rnd();
    v[i].v[F::N - 1] %= m[F::N - 1];
  }
  // edge values: 0, 1, p − 1, p − 2
  for (int e = 0; e < 4 && e < int(n); e++) {
    for (int k = 0; k < F::N; k++) v[e].v[k] = e < 2 ? 0 : m[k];
    if (e == 1) v[e].v[0] = 1;
    if (e >= 2) v[e].v[0] -= uint32_t(e - 1);
  }
  return v;
}

template <class F>
int probe(const char* name, const uint32_t* mod32, int sms) {
  const size_t nthreads = size_t(sms) * 8 * 256;
  std::vector<F> hx = random_below<F>(mod32, 4 * nthreads), hy = random_below<F>(mod32, nthreads);
  std::vector<F> hy4(4 * nthreads);
  for (size_t i = 0; i < 4 * nthreads; i++) hy4[i] = hy[(i * 7919) % nthreads];
  // edge × edge: the first 16 pairs are every pair of {0, 1, p − 1, p − 2}.
  const std::vector<F> edges(hx.begin(), hx.begin() + 4);
  for (int e = 0; e < 16; e++) {
    hx[e] = edges[e % 4];
    hy4[e] = edges[e / 4];
  }
  F *x, *y, *y4, *out;
  uint32_t* bad;
  CK(cudaMalloc(&x, hx.size() * sizeof(F)));
  CK(cudaMalloc(&y, hy.size() * sizeof(F)));
  CK(cudaMalloc(&y4, hy4.size() * sizeof(F)));
  CK(cudaMalloc(&out, nthreads * sizeof(F)));
  CK(cudaMalloc(&bad, 4));
  CK(cudaMemcpy(x, hx.data(), hx.size() * sizeof(F), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(y, hy.data(), hy.size() * sizeof(F), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(y4, hy4.data(), hy4.size() * sizeof(F), cudaMemcpyHostToDevice));
  CK(cudaMemset(bad, 0, 4));
  // (raw 1 is R^-1 in Montgomery form, as good an input as any.)
  k_check<F><<<unsigned((4 * nthreads + 255) / 256), 256>>>(x, y4, uint32_t(4 * nthreads), bad);
  CK(cudaGetLastError());
  uint32_t nbad = 0;
  CK(cudaMemcpy(&nbad, bad, 4, cudaMemcpyDeviceToHost));
  printf("%s: mul29 vs CIOS on %zu products: %u mismatches\n", name, 4 * nthreads, nbad);
  if (nbad) return 1;
  CK(cudaMemset(bad, 0, 4));
  k_check_dpf<F><<<unsigned((4 * nthreads + 255) / 256), 256>>>(x, y4, uint32_t(4 * nthreads), bad);
  CK(cudaGetLastError());
  CK(cudaMemcpy(&nbad, bad, 4, cudaMemcpyDeviceToHost));
  printf("%s: FP64 product vs CIOS on %zu products: %u mismatches\n", name, 4 * nthreads, nbad);
  if (nbad) return 1;
  const int iters = 512;
  const double muls = double(nthreads) * 4 * iters;
  const unsigned blocks = unsigned(nthreads / 256);
  auto row = [&](const char* what, double ms) {
    printf("%-4s %-34s %8.3f ms  %7.1f Gmul/s\n", name, what, ms, muls / ms / 1e6);
  };
  row("CIOS (field.cuh operator*)", time_ms([&] { k_cios<F, false><<<blocks, 256>>>(x, y, out, iters); }));
  row("CIOS out of line (mul_call)", time_ms([&] { k_cios<F, true><<<blocks, 256>>>(x, y, out, iters); }));
  row("mul29 inline, radix 2^29 kept", time_ms([&] { k_m29<F, false><<<blocks, 256>>>(x, y, out, iters); }));
  row("mul29 out of line, radix 2^29 kept", time_ms([&] { k_m29<F, true><<<blocks, 256>>>(x, y, out, iters); }));
  row("mul29 drop-in (convert + reduce)", time_ms([&] { k_dropin<F><<<blocks, 256>>>(x, y, out, iters); }));
  row("FP64 inline, radix 2^52 kept", time_ms([&] { k_dpf<F, false><<<blocks, 256>>>(x, y, out, iters); }));
  row("FP64 out of line, radix 2^52 kept", time_ms([&] { k_dpf<F, true><<<blocks, 256>>>(x, y, out, iters); }));
  row("FP64 drop-in (32-bit limbs, < 2p)", time_ms([&] { k_dpf_dropin<F><<<blocks, 256>>>(x, y, out, iters); }));
  CK(cudaGetLastError());
  CK(cudaFree(x));
  CK(cudaFree(y));
  CK(cudaFree(y4));
  CK(cudaFree(out));
  CK(cudaFree(bad));
  return 0;
}

template <int NW, int NL>
void set_limbs(const void* sym, const uint32_t (&w)[NW]) {
  uint32_t l[NL];
  m29::to29<NW, NL>(w, l);
  CK(cudaMemcpyToSymbol(sym, l, sizeof l));
}

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("device: %s, %d SMs\n", prop.name, prop.multiProcessorCount);
  set_limbs<8, 9>(kP29Fr, kFr32);
  set_limbs<12, 14>(kP29Fp, kFp32);
  const int sms = prop.multiProcessorCount;
  {
    const unsigned blocks = sms * 8, threads = 256;
    const int iters = 4096;
    uint32_t* o32;
    uint64_t* o64;
    CK(cudaMalloc(&o32, size_t(blocks) * threads * 4));
    CK(cudaMalloc(&o64, size_t(blocks) * threads * 8));
    const double ops = double(blocks) * threads * iters * 8;
    const double ms32 = time_ms([&] { k_imad<<<blocks, threads>>>(o32, 0x9e3779b9u, iters); });
    const double ms64 = time_ms([&] { k_imad_wide<<<blocks, threads>>>(o64, 0x9e3779b9u, iters); });
    // per SM per nanosecond; divided by the SM clock in GHz (nvidia-smi) it is per clock.
    printf("IMAD (32-bit)        %8.3f ms  %6.1f per SM per ns\n", ms32, ops / (ms32 * 1e6) / sms);
    printf("IMAD.WIDE.U32 (64)   %8.3f ms  %6.1f per SM per ns\n", ms64, ops / (ms64 * 1e6) / sms);
    CK(cudaFree(o32));
    CK(cudaFree(o64));
  }
  int rc = probe<Fr>("Fr", kFr32, sms);
  rc |= probe<Fp>("Fp", kFp32, sms);
  return rc;
}
