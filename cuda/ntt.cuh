// Number-theoretic transforms over Fr, in place, 2^lg_n points (lg_n <= 28).
//
// A transform is split into P passes of t <= 10 radix-2 stages each (2^27 = 9+9+9). A
// pass transforms groups of 2^t elements at stride S (several adjacent groups per block
// so global accesses are coalesced; in the pass of stride 1, several adjacent runs) with
// roots of order 2^t, and applies the inter-pass twiddle ω_N^(g·bitrev_t(e)) (N = S·2^t,
// g the group, e the position in the group): after the butterflies for decimation in
// frequency (natural in, bit-reversed out), before them for decimation in time (the
// transpose: bit-reversed in, natural out, passes in reverse order). The pass kernel is
// ntt_pass below, one butterfly per thread per stage in shared memory, its products on
// the FP64 pipe (NttTw, dpf.cuh); ntt_pass_radix8 (ntt_radix.cuh: stages in registers,
// the integer product) measured slower and is opt-in.
// Twiddles (ntt_twiddles.cuh) are computed on the device per call: the stage twiddles of
// every pass from one table of powers of ω_{2^t} (NttStageTable); the inter-pass twiddles
// from a direct table where the pass's exponents span at most 2^18 values (the middle
// pass of 2^27: one load instead of a product, NttDirectTwiddles), else from two tables
// (low and high halves of the exponent): ω^x = lo[x mod 2^l] · hi[x >> l] (pow_tables.cuh,
// NttTwPow). The quotient's six transforms are in quotient.cuh.
#pragma once

#include "bls12_381.cuh"
#include "ntt_radix.cuh"
#include "ntt_twiddles.cuh"
#include "pow_tables.cuh"
#include "runtime.cuh"

namespace snarkpipe {
inline namespace SP_NTT_NS {  // ntt_twiddles.cuh says why

// NttArith: the butterfly arithmetic of ntt_pass. Lazy by default: between the passes the
// values stay in [0, 2r) (Fr's lazy forms, field.cuh), each product skips its final
// subtraction and the last pass reduces what it writes; a DIF difference goes into its
// product unreduced (mul_diff). -DSP_NTT_EAGER builds the fully reduced arithmetic
// (comparisons). Products take the twiddle (< r) first (ntt_mul_tw).
struct NttArith {
  static __device__ __forceinline__ Fr mul_lazy(const NttTw& w, const Fr& x) { return ntt_mul_tw(w, x); }
#ifdef SP_NTT_EAGER
  static __device__ __forceinline__ Fr add(const Fr& a, const Fr& b) { return a + b; }
  static __device__ __forceinline__ Fr sub(const Fr& a, const Fr& b) { return a - b; }
  static __device__ __forceinline__ Fr mul(const NttTw& w, const Fr& x) { return Fr::reduce_once(mul_lazy(w, x), 0); }
  static __device__ __forceinline__ Fr mul_diff(const NttTw& w, const Fr& a, const Fr& b) { return mul(w, a - b); }
  static __device__ __forceinline__ Fr out(const Fr& v) { return v; }
#else
  static __device__ __forceinline__ Fr add(const Fr& a, const Fr& b) { return a.add_lazy(b); }
  static __device__ __forceinline__ Fr sub(const Fr& a, const Fr& b) { return a.sub_lazy(b); }
  static __device__ __forceinline__ Fr mul(const NttTw& w, const Fr& x) { return mul_lazy(w, x); }
#ifdef SP_NTT_DIFF_REDUCED  // comparisons: the difference reduced before the product
  static __device__ __forceinline__ Fr mul_diff(const NttTw& w, const Fr& a, const Fr& b) { return mul(w, sub(a, b)); }
#else
  // mul_diff: w·(a − b), the difference left unreduced (ntt_mul_tw_diff).
  static __device__ __forceinline__ Fr mul_diff(const NttTw& w, const Fr& a, const Fr& b) {
    return ntt_mul_tw_diff(w, a, b);
  }
#endif
  static __device__ __forceinline__ Fr out(const Fr& v) { return v.reduce_lazy(); }
#endif
};

// The tile holds whole elements. ncu counts a two-way shared-memory bank conflict on its
// accesses; two layouts that removed it (a swizzle, and halves traded in groups of odd
// parity) measured no faster once every pass has four groups per block
// (docs/BENCHMARKS.md, "FP64 products in the NTT").
// Three blocks of 256 threads fit an SM's shared memory (74 KiB each at 2^11 elements);
// the bound keeps the registers within what three blocks may use (80 per thread).
#ifdef SP_NTT_NO_BOUNDS
#define SP_NTT_PASS_BOUNDS
#else
#define SP_NTT_PASS_BOUNDS __launch_bounds__(256, 3)
#endif
// NttPassMode: what a pass may do besides its butterflies and inter-pass twiddle, fixed at
// compile time so that a plain pass carries no code (and no registers) for the others.
enum NttPassMode {
  kNttPlain = 0,  // nothing else (every pass of a plain transform, the middle passes of any)
  kNttCoset = 1,  // the folded coset scaling (NttCosetFirst): a coset transform's first pass
  kNttFused = 2,  // any fused scaling or quotient step (NttFuse, NttScaleTw) and the coset fold
};

template <bool DIT, int M>
static __global__ void SP_NTT_PASS_BOUNDS ntt_pass(Fr* __restrict__ data, int lg_n, int t, int lg_s, int g_log,
                                                   NttLegacyTwiddles tws, NttFuse f, NttScaleTw pre, NttScaleTw post,
                                                   NttCosetFirst cf, bool first, bool last) {
  using A = NttArith;
  extern __shared__ uint4 smem_raw[];
  Fr* sm = reinterpret_cast<Fr*>(smem_raw);
  const uint32_t G = 1u << g_log, tile = G << t, half_t = 1u << (t - 1);
  NttTw* W = reinterpret_cast<NttTw*>(sm + tile);  // W[k] = ω_{2^t}^k
  const uint64_t S = uint64_t(1) << lg_s;
  // A pass of stride 1 (lg_s = 0) has its groups in adjacent runs of 2^t elements; a block
  // takes G of them, so that its lanes see the same tile shape as elsewhere.
  const bool runs = lg_s == 0;
  const uint64_t chunks = runs ? 1 : S >> g_log;
  const uint64_t gb = runs ? 0 : (blockIdx.x % chunks) << g_log;
  const uint64_t base = runs ? uint64_t(blockIdx.x) * tile : (blockIdx.x / chunks) * (S << t) + gb;
  // place: the global index of position e of the block's group gl. The tile holds it at
  // k = e·G + gl. tile_map: the m-th element of the block in memory order (consecutive m
  // are consecutive addresses) as (gl, e).
  const auto place = [&](uint32_t gl, uint32_t e) {
    return runs ? base + (uint64_t(gl) << t) + e : base + uint64_t(e) * S + gl;
  };
  const auto tile_map = [&](uint32_t m, uint32_t& gl, uint32_t& e) {
    if (runs) {
      e = m & ((1u << t) - 1), gl = m >> t;
    } else {
      gl = m & (G - 1), e = m >> g_log;
    }
  };
  const NttTwPow tw = tws.tw;  // a copy: a reference into a kernel parameter can force local memory
  const int tw_shift = lg_n - lg_s - t;
  const bool coset = M != kNttPlain && cf.on;

  // load: element (gl, e) as the butterflies take it: the first pass's fused scalings, and
  // for DIT the inter-pass twiddle before the butterflies.
  const auto load = [&](uint32_t gl, uint32_t e) {
    const uint64_t p = place(gl, e);
    Fr x = *reinterpret_cast<const Fr*>(data + p);
    if (M == kNttFused && first && f.pre.on) x = ntt_fuse_pre(f.pre, lg_n, uint32_t(p), x);
    if (M == kNttFused && first && pre.on) x = ntt_scale_tw(pre, lg_n, uint32_t(p), x);
    if (coset) x = A::mul(load_tw(cf.in + e), x);  // the first pass only
    if (DIT && lg_s > 0) {
      const uint64_t y = (gb + gl) * bitrev(e, t);
      if (y) x = A::mul(tws.direct ? load_tw(tws.direct + y) : tw.at(y << tw_shift), x);
    }
    return x;
  };
  // inter: the DIF inter-pass twiddle of element (gl, e) in w; false where it is 1.
  const auto inter = [&](uint32_t gl, uint32_t e, NttTw& w) {
    if (DIT || lg_s == 0) return false;
    const uint64_t col = gb + gl, y = col * bitrev(e, t);
    if (coset ? col == 0 : y == 0) return false;
    if (coset)  // (g·ω_n^bitrev(e))^col, NttCosetFirst
      w = ntt_tw_mul(load_tw(cf.lo + ((uint64_t(e) << cf.lb) | (col & ((1u << cf.lb) - 1)))),
                     load_tw(cf.hi + ((uint64_t(e) << (lg_s - cf.lb)) | (col >> cf.lb))));
    else
      w = tws.direct ? load_tw(tws.direct + y) : tw.at(y << tw_shift);
    return true;
  };
  // finish: the last pass's reduction and fused operations, and the write.
  const auto finish = [&](uint32_t gl, uint32_t e, Fr v) {
    const uint64_t p = place(gl, e);
    if (last) {
      v = A::out(v);
      if (M == kNttFused && post.on) v = Fr::reduce_once(ntt_scale_tw(post, lg_n, uint32_t(p), v), 0);
      if (M == kNttFused && (f.post.on || f.qb)) v = ntt_fuse_post(f, lg_n, uint32_t(p), v);
    }
    *reinterpret_cast<Fr*>(data + p) = v;
  };
  // store: element (gl, e) as the butterflies left it, with the DIF inter-pass twiddle;
  // store_diff: the same for the difference a − b.
  const auto store = [&](uint32_t gl, uint32_t e, Fr v) {
    NttTw w;
    if (inter(gl, e, w)) v = A::mul(w, v);
    finish(gl, e, v);
  };
  const auto store_diff = [&](uint32_t gl, uint32_t e, const Fr& a, const Fr& b) {
    NttTw w;
    finish(gl, e, inter(gl, e, w) ? A::mul_diff(w, a, b) : A::sub(a, b));
  };
  const uint32_t pairs = G << (t - 1);  // butterflies per stage

  for (uint32_t k = threadIdx.x; k < half_t; k += blockDim.x) W[k] = load_tw(tws.Wg + (k << (tws.w_log - t)));
#ifndef SP_NTT_NO_EDGE_FUSE
  // The stage with L = 0 (twiddle 1 everywhere) is done on the way in (DIT: its first
  // stage) or out (DIF: its last), on the pairs (2j, 2j + 1) of a group: one trip
  // through shared memory and one barrier less per pass. -DSP_NTT_NO_EDGE_FUSE builds
  // it as a stage of its own (comparisons).
  constexpr bool fuse_in = DIT, fuse_out = !DIT;
#else
  constexpr bool fuse_in = false, fuse_out = false;
#endif
  if (fuse_in) {
    for (uint32_t q = threadIdx.x; q < pairs; q += blockDim.x) {
      const uint32_t gl = q & (G - 1), e0 = (q >> g_log) << 1;
      const Fr a = load(gl, e0), b = load(gl, e0 + 1);
      sm[e0 * G + gl] = A::add(a, b);
      sm[(e0 + 1) * G + gl] = A::sub(a, b);
    }
  } else {
    // Two elements per trip (tile >= 2·blockDim): both loads are in flight together.
    for (uint32_t m = threadIdx.x; m < tile; m += 2 * blockDim.x) {
      uint32_t gl0, e0, gl1, e1;
      tile_map(m, gl0, e0);
      tile_map(m + blockDim.x, gl1, e1);
      const Fr x0 = load(gl0, e0), x1 = load(gl1, e1);
      sm[e0 * G + gl0] = x0;
      sm[e1 * G + gl1] = x1;
    }
  }
  __syncthreads();

  const int u_begin = fuse_in ? 1 : 0, u_end = fuse_out ? t - 1 : t;
  for (int u = u_begin; u < u_end; u++) {
    // A butterfly's twiddle is W[off·2^(t−1−L)], off = j mod 2^L (L: log2 of the half
    // size). Where the bits below off span a warp (hb >= 5), the butterflies are numbered
    // with off in the high bits, so a warp shares one twiddle (a broadcast read) and the
    // warps whose twiddle is 1 (off = 0: half of them at L = 1, a quarter at L = 2, ...)
    // skip the product together: about 0.5 of a pass's 4 products per element.
    const int L = DIT ? u : t - 1 - u;
#ifdef SP_NTT_NO_SKIP  // comparisons: lanes numbered in order, only the stage with L = 0 skips
    const int hb = 0;
    const uint32_t skip_below = L == 0 ? 1u : 0u;
#else
    // (Only with G >= 4: with fewer groups a quarter-warp's lanes would reach more than
    // two tile rows of the same banks.)
    const int hb = g_log >= 2 ? g_log + t - 1 - L : 0;
    const uint32_t skip_below = 1;  // off < skip_below: twiddle 1
#endif
    for (uint32_t q = threadIdx.x; q < pairs; q += blockDim.x) {
      const uint32_t gl = q & (G - 1);
      const uint32_t j = hb >= 5 ? (((q >> g_log) & ((1u << (t - 1 - L)) - 1)) << L) | (q >> hb) : q >> g_log;
      const uint32_t half = 1u << L, off = j & (half - 1);
      const uint32_t e0 = ((j >> L) << (L + 1)) | off, e1 = e0 + half;
      const uint32_t k0 = e0 * G + gl, k1 = e1 * G + gl;
      const Fr a = sm[k0];
      Fr b = sm[k1];
      if (DIT) {
        if (off >= skip_below) b = A::mul(W[off << (t - 1 - u)], b);
        sm[k0] = A::add(a, b);
        sm[k1] = A::sub(a, b);
      } else {
        sm[k0] = A::add(a, b);
        sm[k1] = off >= skip_below ? A::mul_diff(W[off << u], a, b) : A::sub(a, b);
      }
    }
    __syncthreads();
  }

  if (fuse_out) {
    for (uint32_t q = threadIdx.x; q < pairs; q += blockDim.x) {
      const uint32_t gl = q & (G - 1), e0 = (q >> g_log) << 1;
      const Fr a = sm[e0 * G + gl], b = sm[(e0 + 1) * G + gl];
      store(gl, e0, A::add(a, b));
      store_diff(gl, e0 + 1, a, b);
    }
  } else {
    for (uint32_t m = threadIdx.x; m < tile; m += blockDim.x) {
      uint32_t gl, e;
      tile_map(m, gl, e);
      store(gl, e, sm[e * G + gl]);
    }
  }
}

constexpr int kNttMaxStages = 10;  // per pass
constexpr int kNttTileLog = 11;    // default and largest log2 of the elements per block

// ntt_pass_smem: the most dynamic shared memory an ntt_pass block takes with tiles of
// 2^tile_log elements: the tile and the stage twiddles of a pass of kNttMaxStages.
constexpr int ntt_pass_smem(int tile_log) {
  return (1 << tile_log) * int(sizeof(Fr)) + (1 << (kNttMaxStages - 1)) * int(sizeof(NttTw));
}

// NttOptions: tile_log (10..11, 0 = default) bounds the elements one block holds in
// shared memory; legacy selects ntt_pass (one butterfly per thread per stage, kept for
// comparison) instead of ntt_pass_radix8; fuse lists element-wise operations done in the
// first and last pass (both kernels; a one-point transform applies them alone). Every transform is
// legacy unless the library is built with -DSP_NTT_RADIX8 (ntt_run says why).
struct NttOptions {
  int tile_log = 0;
  bool legacy = false;
  bool no_direct_twiddles = false;  // two-table inter-pass twiddles everywhere, both kernels (comparisons)
  bool bounded = false;             // the kernel capped at 128 registers (comparisons)
  NttFuse fuse = {};
  // coset_g: when fuse.pre is the coset scaling c·g^p (natural index), its generator g;
  // then ntt_pass folds it into the first DIF pass (NttCosetFirst).
  const Fr* coset_g = nullptr;
};

// ntt_plan splits lg_n stages into P passes of ts[p] stages; lgs[p] is the stride
// exponent of pass p in DIF order.
inline int ntt_plan(int lg_n, int ts[4], int lgs[4]) {
  const int P = (lg_n + kNttMaxStages - 1) / kNttMaxStages;
  int done = 0;
  for (int p = 0; p < P; p++) {
    ts[p] = lg_n / P + (p < lg_n % P ? 1 : 0);
    done += ts[p];
    lgs[p] = lg_n - done;
  }
  return P;
}

// ntt_pass_kernel: the instance of ntt_pass for a direction and an NttPassMode (the coset
// fold is a DIF first pass only).
using NttPassKernel = void (*)(Fr*, int, int, int, int, NttLegacyTwiddles, NttFuse, NttScaleTw, NttScaleTw,
                               NttCosetFirst, bool, bool);
inline NttPassKernel ntt_pass_kernel(bool dit, int mode) {
  if (dit) return mode == kNttPlain ? ntt_pass<true, kNttPlain> : ntt_pass<true, kNttFused>;
  return mode == kNttPlain ? ntt_pass<false, kNttPlain> : mode == kNttCoset ? ntt_pass<false, kNttCoset>
                                                                            : ntt_pass<false, kNttFused>;
}

inline void ntt_run_legacy(Fr* data, int lg_n, const Fr& root, bool dit, cudaStream_t s, int tile_log,
                           bool direct_twiddles, const NttFuse& fuse, const Fr* coset_g) {
  const Fr* scale = ntt_tw_scale();  // every twiddle table pre-scaled for NttArith's product
  PowTablesBuf tables(root, lg_n, s, scale);
  int ts[4], lgs[4];
  const int P = ntt_plan(lg_n, ts, lgs);
  NttStageTable stage(root, lg_n, ts, P, s, scale);
  const uint32_t nw = 1u << (stage.w_log - 1);
  Buf<NttTw> stage_tw(nw, s);
  ntt_tw_table<<<blocks_for(nw, 128), 128, 0, s>>>(stage_tw.p, stage.W.p, nw);
  SP_LAUNCHED("ntt_tw_table");
  NttDirectTwiddles<NttTw> direct;
  if (direct_twiddles) direct.build(P, ts, lgs, lg_n, tables.view(), s);
  const NttTwPowBuf pow(tables.view(), lg_n, true, s);
  NttFuse f = fuse;  // the scalings ntt_pass does with NttTw tables are off here
#ifndef SP_NTT_NO_COSET_FOLD  // comparisons: the coset scaling as a two-table power
  const bool fold = coset_g && !dit && P >= 2 && fuse.pre.on && !fuse.pre.bitrev_index;
#else
  const bool fold = false;
#endif
  const NttCosetFirstBuf coset(fold, tables.view(), fuse.pre.tab, coset_g, ts[0], lgs[0], s);
  if (fold) f.pre.on = false;
  const NttScaleTwBuf pre(f.pre, lg_n, s), post(fuse.post, lg_n, s);
  if (pre.sc.on) f.pre.on = false;
  if (post.sc.on) f.post.on = false;
  const int max_smem = ntt_pass_smem(tile_log);
  for (int i = 0; i < P; i++) {
    const int p = dit ? P - 1 - i : i;
    const int t = ts[p], lg_s = lgs[p];
    int g_log = tile_log - t;  // log2 of the groups per block: strided (lg_s > 0) or runs (ntt_pass)
    if (lg_s > 0 && g_log > lg_s) g_log = lg_s;
    if (t + g_log > lg_n) g_log = lg_n - t;
    const uint32_t tile = 1u << (t + g_log);
    const uint32_t threads = tile / 2 < 256 ? tile / 2 : 256;
    const uint64_t blocks = (uint64_t(1) << lg_n) / tile;
    const size_t smem = size_t(tile) * sizeof(Fr) + (size_t(1) << (t - 1)) * sizeof(NttTw);
    const NttLegacyTwiddles tw{pow.view(), stage_tw.p, stage.w_log, direct.b[p] ? direct.b[p]->p : nullptr};
    const bool first = i == 0, last = i == P - 1;
    const NttCosetFirst cf = first ? coset.cf : NttCosetFirst{};
    const bool fused = (first && (f.pre.on || pre.sc.on)) || (last && (post.sc.on || f.post.on || f.qb));
#ifdef SP_NTT_NO_SPECIALIZE  // comparisons: one kernel per direction that can do everything
    const int mode = kNttFused;
#else
    const int mode = fused ? kNttFused : cf.on ? kNttCoset : kNttPlain;
#endif
    // (The name starts with ntt_pass: the host emulation runs such launches one thread per block.)
    const NttPassKernel ntt_pass_k = ntt_pass_kernel(dit, mode);
    SP_CUDA(cudaFuncSetAttribute(ntt_pass_k, cudaFuncAttributeMaxDynamicSharedMemorySize, max_smem));
    ntt_pass_k<<<unsigned(blocks), threads, smem, s>>>(data, lg_n, t, lg_s, g_log, tw, f, pre.sc, post.sc, cf, first,
                                                        last);
    SP_LAUNCHED("ntt_pass");
  }
}

inline void ntt_run_radix8(Fr* data, int lg_n, const Fr& root, bool dit, cudaStream_t s, int tile_log,
                           const NttFuse& fuse, bool direct_twiddles, bool bounded) {
  PowTablesBuf tables(root, lg_n, s);
  int ts[4], lgs[4];
  const int P = ntt_plan(lg_n, ts, lgs);
  NttStageTable stage(root, lg_n, ts, P, s);
  const int w_log = stage.w_log;
  NttDirectTwiddles<Fr> direct;
  if (direct_twiddles) direct.build(P, ts, lgs, lg_n, tables.view(), s);
  const int max_smem = (1 << kNttTileLog) * int(sizeof(Fr));
  SP_CUDA(cudaFuncSetAttribute(ntt_pass_radix8<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, max_smem));
  SP_CUDA(cudaFuncSetAttribute(ntt_pass_radix8<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, max_smem));
  SP_CUDA(cudaFuncSetAttribute(ntt_pass_radix8_lb<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, max_smem));
  SP_CUDA(cudaFuncSetAttribute(ntt_pass_radix8_lb<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, max_smem));
  for (int i = 0; i < P; i++) {
    const int p = dit ? P - 1 - i : i;
    NttPassGeom g;
    g.lg_n = lg_n;
    g.t = ts[p];
    g.lg_s = lgs[p];
    int g_log = tile_log - g.t;
    if (g_log > lg_n - g.t) g_log = lg_n - g.t;
    if (g_log < 0) g_log = 0;
    g.gi = g_log < g.lg_s ? g_log : g.lg_s;
    g.go = g_log - g.gi;
    g.W = stage.W.p;
    g.w_log = w_log;
    g.tw = tables.view();
    g.tw_direct = direct.b[p] ? direct.b[p]->p : nullptr;
    const int tb = g.t + g_log;
    const uint32_t threads = 1u << (tb - 3);
    const uint64_t blocks = uint64_t(1) << (lg_n - tb);
    const size_t smem = g.t > 3 ? (size_t(1) << tb) * sizeof(Fr) : 0;  // one chunk: no exchange
    const bool first = i == 0, last = i == P - 1;
    if (bounded && dit)
      ntt_pass_radix8_lb<true><<<unsigned(blocks), threads, smem, s>>>(data, g, fuse, first, last);
    else if (bounded)
      ntt_pass_radix8_lb<false><<<unsigned(blocks), threads, smem, s>>>(data, g, fuse, first, last);
    else if (dit)
      ntt_pass_radix8<true><<<unsigned(blocks), threads, smem, s>>>(data, g, fuse, first, last);
    else
      ntt_pass_radix8<false><<<unsigned(blocks), threads, smem, s>>>(data, g, fuse, first, last);
    SP_LAUNCHED("ntt_pass_radix8");
  }
}

// ntt_run transforms 2^lg_n elements in place: DIF (natural in, bit-reversed out) or DIT
// (bit-reversed in, natural out). Transforms of fewer than 8 points use the legacy kernel.
inline void ntt_run(Fr* data, int lg_n, const Fr& root, bool dit, cudaStream_t s, const NttOptions& o = {});

// scale: x[p] *= tab(p) or tab(bitrev(p)).
static __global__ void ntt_scale(Fr* __restrict__ data, int lg_n, NttScaleSpec sc) {
  const uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= (1u << lg_n)) return;
  Fr v = load16(data + p);
  ntt_apply_scale(sc, lg_n, p, v);
  store16(data + p, v);
}

static __global__ void ntt_combine(Fr* __restrict__ a, int lg_n, NttFuse f) {
  const uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= (1u << lg_n)) return;
  a[p] = f.qc ? (a[p] * load16(f.qb + p) - load16(f.qc + p)) * f.z_inv : a[p] * load16(f.qb + p);
}

inline void ntt_apply_unfused(Fr* data, int lg_n, const NttScaleSpec& sc, cudaStream_t s) {
  if (!sc.on) return;
  ntt_scale<<<blocks_for(1u << lg_n, 256), 256, 0, s>>>(data, lg_n, sc);
  SP_LAUNCHED("ntt_scale");
}

inline void ntt_run(Fr* data, int lg_n, const Fr& root, bool dit, cudaStream_t s, const NttOptions& o) {
  if (lg_n < 0 || lg_n > 28) invalid("ntt: lg_n must be in [0, 28]");
  const int tile_log = o.tile_log ? o.tile_log : kNttTileLog;
  if (tile_log < kNttMaxStages || tile_log > kNttTileLog) invalid("ntt: tile log must be 10 or 11");
#ifdef SP_NTT_RADIX8
  const bool legacy = o.legacy;
#else
  // The radix-8 kernel measured slower than ntt_pass on the H200 (2^27 forward 118 ms
  // against 72 ms, docs/BENCHMARKS.md "GPU kernels"): opt-in by -DSP_NTT_RADIX8 only.
  const bool legacy = true;
#endif
  if (!legacy && lg_n >= 3) {
    ntt_run_radix8(data, lg_n, root, dit, s, tile_log, o.fuse, !o.no_direct_twiddles, o.bounded);
    return;
  }
  if (lg_n > 0) {  // the fused operations run in the first and last pass
    ntt_run_legacy(data, lg_n, root, dit, s, tile_log, !o.no_direct_twiddles, o.fuse, o.coset_g);
    return;
  }
  ntt_apply_unfused(data, lg_n, o.fuse.pre, s);
  ntt_apply_unfused(data, lg_n, o.fuse.post, s);
  if (o.fuse.qb) {
    ntt_combine<<<blocks_for(1u << lg_n, 256), 256, 0, s>>>(data, lg_n, o.fuse);
    SP_LAUNCHED("ntt_combine");
  }
}

static __global__ void ntt_scale_const(Fr* __restrict__ data, int lg_n, Fr c) {
  const uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= (1u << lg_n)) return;
  store16(data + p, load16(data + p) * c);
}

// scale_run: x[p] *= c·g^i with i = p or bitrev(p); g null means x[p] *= c.
inline void scale_run(Fr* data, int lg_n, const Fr& c, const Fr* g, bool bitrev_index, cudaStream_t s) {
  if (lg_n < 0 || lg_n > 28) invalid("scale: lg_n must be in [0, 28]");
  if (!g) {
    ntt_scale_const<<<blocks_for(1u << lg_n, 256), 256, 0, s>>>(data, lg_n, c);
    SP_LAUNCHED("ntt_scale_const");
    return;
  }
  PowTablesBuf tables(*g, lg_n, s, &c);  // c folded into the low table
  ntt_apply_unfused(data, lg_n, NttScaleSpec{tables.view(), true, bitrev_index}, s);
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

}  // namespace SP_NTT_NS
}  // namespace snarkpipe
