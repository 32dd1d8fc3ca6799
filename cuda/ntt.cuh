// Number-theoretic transforms over Fr, in place, 2^lg_n points (lg_n <= 28).
//
// A transform is split into P passes of t <= 10 radix-2 stages each (2^27 = 9+9+9). A
// pass loads groups of 2^t elements at stride S into shared memory (several adjacent
// groups per block so global accesses are coalesced), runs the t stages there with roots
// of order 2^t, and applies the inter-pass twiddle ω_N^(g·bitrev_t(e)) (N = S·2^t, g the
// group, e the position in the group): after the butterflies for decimation in frequency
// (natural in, bit-reversed out), before them for decimation in time (the transpose:
// bit-reversed in, natural out, passes in reverse order).
// Powers of a root come from two tables (low and high halves of the exponent), computed
// on the device per call: ω^x = lo[x mod 2^l] · hi[x >> l].
#pragma once

#include "bls12_381.cuh"
#include "runtime.cuh"

namespace snarkpipe {

// pow_table: out[i] = base^(i·2^shift).
static __global__ void pow_table(Fr* __restrict__ out, uint32_t count, Fr base, int shift) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  Fr b = base;
  for (int k = 0; k < shift; k++) b = b.sqr();
  Fr acc = Fr::one();
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

// PowTablesBuf owns the two tables of base^x for x < 2^lg_n.
struct PowTablesBuf {
  Buf<Fr> lo, hi;
  int l_lo;
  PowTablesBuf(const Fr& base, int lg_n, cudaStream_t s)
      : lo(size_t(1) << ((lg_n + 1) / 2), s), hi(size_t(1) << (lg_n - (lg_n + 1) / 2), s), l_lo((lg_n + 1) / 2) {
    const uint32_t nlo = 1u << l_lo, nhi = 1u << (lg_n - l_lo);
    pow_table<<<blocks_for(nlo, 128), 128, 0, s>>>(lo.p, nlo, base, 0);
    SP_LAUNCHED("pow_table");
    pow_table<<<blocks_for(nhi, 128), 128, 0, s>>>(hi.p, nhi, base, l_lo);
    SP_LAUNCHED("pow_table");
  }
  PowTables view() const { return PowTables{lo.p, hi.p, l_lo}; }
};

__device__ __forceinline__ uint32_t bitrev(uint32_t x, int bits) { return bits ? __brev(x) >> (32 - bits) : 0; }

template <bool DIT>
static __global__ void ntt_pass(Fr* __restrict__ data, int lg_n, int t, int lg_s, int g_log, PowTables tw) {
  extern __shared__ uint4 smem_raw[];
  Fr* sm = reinterpret_cast<Fr*>(smem_raw);
  const uint32_t G = 1u << g_log, tile = G << t, half_t = 1u << (t - 1);
  Fr* W = sm + tile;  // W[k] = ω_{2^t}^k
  const uint64_t S = uint64_t(1) << lg_s;
  const uint64_t chunks = S >> g_log;
  const uint64_t h = blockIdx.x / chunks;
  const uint64_t gb = (blockIdx.x % chunks) << g_log;
  const uint64_t base = h * (S << t) + gb;

  for (uint32_t k = threadIdx.x; k < half_t; k += blockDim.x) W[k] = tw.at(uint64_t(k) << (lg_n - t));
  for (uint32_t k = threadIdx.x; k < tile; k += blockDim.x) {
    const uint32_t gl = k & (G - 1), e = k >> g_log;
    sm[k] = *reinterpret_cast<const Fr*>(data + base + uint64_t(e) * S + gl);
  }
  __syncthreads();

  const int tw_shift = lg_n - lg_s - t;
  if (DIT && lg_s > 0) {
    for (uint32_t k = threadIdx.x; k < tile; k += blockDim.x) {
      const uint64_t x = ((gb + (k & (G - 1))) * bitrev(k >> g_log, t)) << tw_shift;
      if (x) sm[k] = sm[k] * tw.at(x);
    }
    __syncthreads();
  }

  for (int u = 0; u < t; u++) {
    for (uint32_t q = threadIdx.x; q < (G << (t - 1)); q += blockDim.x) {
      const uint32_t gl = q & (G - 1), j = q >> g_log;
      if (DIT) {
        const uint32_t half = 1u << u, off = j & (half - 1);
        const uint32_t e0 = ((j >> u) << (u + 1)) | off, e1 = e0 + half;
        const Fr a = sm[e0 * G + gl];
        Fr b = sm[e1 * G + gl];
        if (u != 0) b = b * W[off << (t - 1 - u)];  // stage 0 twiddles are all 1
        sm[e0 * G + gl] = a + b;
        sm[e1 * G + gl] = a - b;
      } else {
        const int lh = t - 1 - u;
        const uint32_t half = 1u << lh, off = j & (half - 1);
        const uint32_t e0 = ((j >> lh) << (lh + 1)) | off, e1 = e0 + half;
        const Fr a = sm[e0 * G + gl];
        const Fr b = sm[e1 * G + gl];
        sm[e0 * G + gl] = a + b;
        sm[e1 * G + gl] = (lh != 0) ? (a - b) * W[off << u] : a - b;  // last stage: twiddles are 1
      }
    }
    __syncthreads();
  }

  for (uint32_t k = threadIdx.x; k < tile; k += blockDim.x) {
    const uint32_t gl = k & (G - 1), e = k >> g_log;
    Fr v = sm[k];
    if (!DIT && lg_s > 0) {
      const uint64_t x = ((gb + gl) * bitrev(e, t)) << tw_shift;
      if (x) v = v * tw.at(x);
    }
    *reinterpret_cast<Fr*>(data + base + uint64_t(e) * S + gl) = v;
  }
}

constexpr int kNttMaxStages = 10;  // per pass
constexpr int kNttTileLog = 11;    // default log2 of the elements per block, at most

// ntt_run: tile_log (10..11, 0 = default) bounds the elements one block holds in shared
// memory: smaller tiles give more resident blocks, larger ones wider coalesced rows.
inline void ntt_run(Fr* data, int lg_n, const Fr& root, bool dit, cudaStream_t s, int tile_log = 0) {
  if (lg_n < 0 || lg_n > 28) invalid("ntt: lg_n must be in [0, 28]");
  if (tile_log == 0) tile_log = kNttTileLog;
  if (tile_log < kNttMaxStages || tile_log > kNttTileLog) invalid("ntt: tile log must be 10 or 11");
  if (lg_n == 0) return;
  PowTablesBuf tables(root, lg_n, s);
  const int P = (lg_n + kNttMaxStages - 1) / kNttMaxStages;
  int ts[4], lgs[4];
  int done = 0;
  for (int p = 0; p < P; p++) {
    ts[p] = lg_n / P + (p < lg_n % P ? 1 : 0);
    done += ts[p];
    lgs[p] = lg_n - done;  // stride of the DIF pass p
  }
  const int max_smem = ((1 << kNttTileLog) + (1 << (kNttMaxStages - 1))) * int(sizeof(Fr));
  SP_CUDA(cudaFuncSetAttribute(ntt_pass<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, max_smem));
  SP_CUDA(cudaFuncSetAttribute(ntt_pass<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, max_smem));
  for (int i = 0; i < P; i++) {
    const int p = dit ? P - 1 - i : i;
    const int t = ts[p], lg_s = lgs[p];
    int g_log = tile_log - t;
    if (g_log > lg_s) g_log = lg_s;
    const uint32_t tile = 1u << (t + g_log);
    const uint32_t threads = tile / 2 < 256 ? tile / 2 : 256;
    const uint64_t blocks = (uint64_t(1) << lg_n) / tile;
    const size_t smem = (size_t(tile) + (size_t(1) << (t - 1))) * sizeof(Fr);
    if (dit)
      ntt_pass<true><<<unsigned(blocks), threads, smem, s>>>(data, lg_n, t, lg_s, g_log, tables.view());
    else
      ntt_pass<false><<<unsigned(blocks), threads, smem, s>>>(data, lg_n, t, lg_s, g_log, tables.view());
    SP_LAUNCHED("ntt_pass");
  }
}

// scale: x[p] *= c·g^i, i = p or bitrev(p); tables null means g = 1.
static __global__ void ntt_scale(Fr* __restrict__ data, int lg_n, Fr c, PowTables g, bool use_g, bool bitrev_index) {
  const uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= (1u << lg_n)) return;
  Fr f = c;
  if (use_g) f = f * g.at(bitrev_index ? bitrev(p, lg_n) : p);
  data[p] = data[p] * f;
}

inline void scale_run(Fr* data, int lg_n, const Fr& c, const Fr* g, bool bitrev_index, cudaStream_t s) {
  if (lg_n < 0 || lg_n > 28) invalid("scale: lg_n must be in [0, 28]");
  const uint32_t n = 1u << lg_n;
  if (g) {
    PowTablesBuf tables(*g, lg_n, s);
    ntt_scale<<<blocks_for(n, 256), 256, 0, s>>>(data, lg_n, c, tables.view(), true, bitrev_index);
    SP_LAUNCHED("ntt_scale");
  } else {
    ntt_scale<<<blocks_for(n, 256), 256, 0, s>>>(data, lg_n, c, PowTables{nullptr, nullptr, 0}, false, false);
    SP_LAUNCHED("ntt_scale");
  }
}

static __global__ void bitrev_permute(Fr* __restrict__ data, int lg_n) {
  const uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= (1u << lg_n)) return;
  const uint32_t q = bitrev(p, lg_n);
  if (p < q) {
    const Fr a = data[p];
    data[p] = data[q];
    data[q] = a;
  }
}

inline void bitrev_run(Fr* data, int lg_n, cudaStream_t s) {
  if (lg_n < 0 || lg_n > 28) invalid("bitrev: lg_n must be in [0, 28]");
  const uint32_t n = 1u << lg_n;
  bitrev_permute<<<blocks_for(n, 256), 256, 0, s>>>(data, lg_n);
  SP_LAUNCHED("bitrev_permute");
}

// a = (a·b − c)·z_inv.
static __global__ void quotient_combine(Fr* __restrict__ a, const Fr* __restrict__ b, const Fr* __restrict__ c, uint32_t n,
                                 Fr z_inv) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  a[i] = (a[i] * b[i] - c[i]) * z_inv;
}

// quotient_run: bellperson's h computation (see capi.h). consts: ω, ω^-1, g, g^-1, 1/n, 1/(g^n − 1).
inline void quotient_run(Fr* a, Fr* b, Fr* c, int lg_n, const Fr* k, cudaStream_t s) {
  if (lg_n < 1 || lg_n > 28) invalid("quotient: lg_n must be in [1, 28]");
  const Fr &omega = k[0], &omega_inv = k[1], &g = k[2], &g_inv = k[3], &n_inv = k[4], &z_inv = k[5];
  Fr* v[3] = {a, b, c};
  for (Fr* x : v) {
    ntt_run(x, lg_n, omega_inv, false, s);         // coefficients, bit-reversed
    scale_run(x, lg_n, n_inv, &g, true, s);        // 1/n and coset shift g^i
    ntt_run(x, lg_n, omega, true, s);              // coset evaluations, natural
  }
  const uint32_t n = 1u << lg_n;
  quotient_combine<<<blocks_for(n, 256), 256, 0, s>>>(a, b, c, n, z_inv);
  SP_LAUNCHED("quotient_combine");
  ntt_run(a, lg_n, omega_inv, false, s);
  scale_run(a, lg_n, n_inv, &g_inv, true, s);
  bitrev_run(a, lg_n, s);
}

}  // namespace snarkpipe
