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
// Twiddles are computed on the device per call: the stage twiddles of every pass from one
// table of powers of ω_{2^t} (NttStageTable); the inter-pass twiddles from a direct table
// where the pass's exponents span at most 2^18 values (the middle pass of 2^27: one load
// instead of a product, NttDirectTwiddles), else from two tables (low and high halves of
// the exponent): ω^x = lo[x mod 2^l] · hi[x >> l] (pow_tables.cuh, NttTwPow).
#pragma once

#include <type_traits>

#include "bls12_381.cuh"
#include "dpf.cuh"
#include "ntt_radix.cuh"
#include "pow_tables.cuh"
#include "runtime.cuh"

namespace snarkpipe {

// NttTw: a twiddle as ntt_pass multiplies by it. By default its products run on the FP64
// pipe (dpf.cuh: 52-bit limbs, the limb products split exactly by fused multiply-adds),
// which measured 1.39× the integer CIOS product of field.cuh for Fr on the H200
// (cuda/probe, docs/BENCHMARKS.md "FP64 products in the NTT"): the twiddle is then kept in radix 2^52
// and pre-scaled by 2^4, so that dpf::mont(x·R, w·2^260) = x·w·R stays in field.cuh's
// Montgomery form (R = 2^256). -DSP_NTT_CIOS builds the integer product (comparisons).
struct alignas(8) Fr52 {
  double l[5];
};
#ifdef SP_NTT_CIOS
using NttTw = Fr;
inline const Fr* ntt_tw_scale() { return nullptr; }  // twiddle tables unscaled
__device__ __forceinline__ NttTw ntt_tw(const Fr& w) { return w; }
#else
using NttTw = Fr52;
// ntt_tw_scale: 2^4 in Montgomery form (16·R mod r), folded into every twiddle table.
inline const Fr* ntt_tw_scale() {
  static const Fr k = {{0xffffffdd, 0x00000022, 0x00396c23, 0x8d129397, 0xaedf7745, 0xff1776e6, 0x4f77df20,
                        0x26821fa1}};
  return &k;
}
// ntt_tw: a pre-scaled twiddle (w·2^260 mod r in 32-bit limbs) in radix 2^52.
__device__ __forceinline__ NttTw ntt_tw(const Fr& w) {
  Fr52 t;
  dpf::to52<8, 5>(w.v, t.l);
  return t;
}
#endif
__device__ __forceinline__ NttTw load_tw(const NttTw* p) {
#ifdef SP_NTT_CIOS
  return load16(p);
#else
  return *p;
#endif
}

// ntt_mul_tw: w·x below 2r for any x < 2^256 (CIOS: field.cuh; FP64: w·x·2^-260 + r < r/16 + r).
__device__ __forceinline__ Fr ntt_mul_tw(const NttTw& w, const Fr& x) {
#ifdef SP_NTT_CIOS
  return Fr::mul_lazy(w, x);
#else
  double a[5];
  uint64_t r[5];
  dpf::to52<8, 5>(x.v, a);
  dpf::mont<dpf::FrModulus>(a, w.l, r);
  Fr out;
  dpf::from52<5, 8>(r, out.v);
  return out;
#endif
}

// ntt_tw_table: out[i] = ntt_tw(in[i]), or ntt_tw(16·in[i]) (times16: the scale of
// ntt_tw_scale, for a table built without it).
static __global__ void ntt_tw_table(NttTw* __restrict__ out, const Fr* __restrict__ in, uint32_t count,
                                    bool times16 = false) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  Fr v = load16(in + i);
  if (times16)
    for (int k = 0; k < 4; k++) v = v + v;
  out[i] = ntt_tw(v);
}

// ntt_tw_mul: the product of two twiddles in NttTw form: for the FP64 product,
// mont(a·2^260, b·2^260) = ab·2^260, the pre-scaled form again.
__device__ __forceinline__ NttTw ntt_tw_mul(const NttTw& a, const NttTw& b) {
#ifdef SP_NTT_CIOS
  return a * b;
#else
  uint64_t r[5];
  dpf::mont<dpf::FrModulus>(a.l, b.l, r);
  Fr52 w;
#pragma unroll
  for (int i = 0; i < 5; i++) w.l[i] = dpf::to_double(r[i]);
  return w;
#endif
}

// NttTwPow: inter-pass twiddles without a direct table, ω^x = lo[x mod 2^l]·hi[x >> l]
// (pow_tables.cuh) with both tables and the product in NttTw form.
struct NttTwPow {
  const NttTw* lo;
  const NttTw* hi;
  int l_lo;
  __device__ __forceinline__ NttTw at(uint64_t x) const {
    return ntt_tw_mul(load_tw(lo + (x & ((1u << l_lo) - 1))), load_tw(hi + (x >> l_lo)));
  }
};

// NttTwPowBuf owns NttTwPow's tables, converted from the pow tables t of powers below
// 2^lg_n; lo_scaled: t's low table already holds ntt_tw_scale (the other tables get it here).
struct NttTwPowBuf {
  Buf<NttTw> lo, hi;
  int l_lo;
  NttTwPowBuf(const PowTables& t, int lg_n, bool lo_scaled, cudaStream_t s)
      : lo(size_t(1) << t.l_lo, s), hi(size_t(1) << (lg_n - t.l_lo), s), l_lo(t.l_lo) {
    const uint32_t nlo = 1u << l_lo, nhi = 1u << (lg_n - l_lo);
    const bool scale = ntt_tw_scale() != nullptr;
    ntt_tw_table<<<blocks_for(nlo, 128), 128, 0, s>>>(lo.p, t.lo, nlo, scale && !lo_scaled);
    SP_LAUNCHED("ntt_tw_table");
    ntt_tw_table<<<blocks_for(nhi, 128), 128, 0, s>>>(hi.p, t.hi, nhi, scale);
    SP_LAUNCHED("ntt_tw_table");
  }
  NttTwPow view() const { return NttTwPow{lo.p, hi.p, l_lo}; }
};

// NttScaleTw: a fused scaling (NttScaleSpec) with its tables in NttTw form, for ntt_pass:
// with the FP64 product, the pass scales with it and leaves NttFuse's scalings off.
struct NttScaleTw {
  NttTwPow tab;
  bool on;
  bool bitrev_index;
};

// ntt_scale_tw: x·c·g^i, i = p or bitrev(p), below 2r (out of line, as ntt_fuse_pre).
static __device__ __noinline__ Fr ntt_scale_tw(const NttScaleTw sc, int lg_n, uint32_t p, Fr x) {
  return ntt_mul_tw(sc.tab.at(sc.bitrev_index ? bitrev(p, lg_n) : p), x);
}

// NttScaleTwBuf converts one fused scaling for ntt_pass (nothing when it is off or the
// product is the integer one: then NttFuse keeps it).
struct NttScaleTwBuf {
  NttTwPowBuf* buf = nullptr;
  NttScaleTw sc = {};
  NttScaleTwBuf(const NttScaleSpec& spec, int lg_n, cudaStream_t s) {
    if (!spec.on || ntt_tw_scale() == nullptr) return;
    buf = new NttTwPowBuf(spec.tab, lg_n, false, s);
    sc = NttScaleTw{buf->view(), true, spec.bitrev_index};
  }
  ~NttScaleTwBuf() { delete buf; }
  NttScaleTwBuf(const NttScaleTwBuf&) = delete;
  NttScaleTwBuf& operator=(const NttScaleTwBuf&) = delete;
};

// NttCosetFirst: the coset scaling c·g^p of a transform with natural input, folded into
// its first DIF pass. There p = e·S + col (e the position in a group of 2^t, col < S the
// group), and g^p = g^(e·S)·g^col. The group's DFT over e is linear, so the factor g^col,
// common to the group, moves past the butterflies to the inter-pass twiddle:
// ω_n^(col·bitrev_t(e))·g^col = (g·ω_n^bitrev_t(e))^col, read from two tables by col's low
// and high bits, the same two loads and one product as the plain twiddle. The load keeps
// one product by c·g^(e·S) from a table of 2^t entries: one product per element less than
// scaling by the two-table power c·g^p (which is a product, then the product by it).
struct NttCosetFirst {
  const NttTw* in;  // in[e] = c·g^(e·S)
  const NttTw* lo;  // lo[e·2^lb + j] = (g·ω_n^bitrev_t(e))^j, j < 2^lb
  const NttTw* hi;  // hi[e·2^(lg_s−lb) + j] = (g·ω_n^bitrev_t(e))^(j·2^lb)
  int lb;
  bool on;
};

// ntt_coset_out_table: out[i] = (g·ω_n^bitrev_t(e))^(j << sh), e = i >> lb, j = i mod 2^lb,
// from w (powers of ω_n, carrying NttTw's scale) and gp (powers of g).
static __global__ void ntt_coset_out_table(NttTw* __restrict__ out, int t, int lb, int sh, PowTables w, PowTables gp) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (1u << (t + lb))) return;
  const uint64_t x = uint64_t(i & ((1u << lb) - 1)) << sh;
  out[i] = ntt_tw(w.at(x * bitrev(i >> lb, t)) * gp.at(x));
}

// ntt_coset_in_table: out[e] = cg(e·2^lg_s) (cg: powers of g carrying c), times 16 when
// the NttTw form is pre-scaled.
static __global__ void ntt_coset_in_table(NttTw* __restrict__ out, int t, int lg_s, PowTables cg, bool times16) {
  const uint32_t e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= (1u << t)) return;
  Fr v = cg.at(uint64_t(e) << lg_s);
  if (times16)
    for (int k = 0; k < 4; k++) v = v + v;
  out[e] = ntt_tw(v);
}

// NttCosetFirstTables builds NttCosetFirst's tables for a first pass of t stages at
// stride 2^lg_s: w the powers of ω_n in NttTw's scale, cg the powers c·g^x, g the generator.
struct NttCosetFirstTables {
  Buf<NttTw> in, lo, hi;
  int lb;
  NttCosetFirstTables(const PowTables& w, const PowTables& cg, const Fr& g, int t, int lg_s, cudaStream_t s)
      : in(size_t(1) << t, s),
        lo(size_t(1) << (t + (lg_s + 1) / 2), s),
        hi(size_t(1) << (t + lg_s - (lg_s + 1) / 2), s),
        lb((lg_s + 1) / 2) {
    const int hb = lg_s - lb;
    const PowTablesBuf gp(g, lg_s, s);
    ntt_coset_in_table<<<blocks_for(1u << t, 128), 128, 0, s>>>(in.p, t, lg_s, cg, ntt_tw_scale() != nullptr);
    SP_LAUNCHED("ntt_coset_in_table");
    ntt_coset_out_table<<<blocks_for(1u << (t + lb), 128), 128, 0, s>>>(lo.p, t, lb, 0, w, gp.view());
    SP_LAUNCHED("ntt_coset_out_table");
    ntt_coset_out_table<<<blocks_for(1u << (t + hb), 128), 128, 0, s>>>(hi.p, t, hb, lb, w, gp.view());
    SP_LAUNCHED("ntt_coset_out_table");
  }
};

// NttCosetFirstBuf owns them when the fold is on (cf.on), and nothing otherwise.
struct NttCosetFirstBuf {
  NttCosetFirstTables* tab = nullptr;
  NttCosetFirst cf = {};
  NttCosetFirstBuf(bool on, const PowTables& w, const PowTables& cg, const Fr* g, int t, int lg_s, cudaStream_t s) {
    if (!on) return;
    tab = new NttCosetFirstTables(w, cg, *g, t, lg_s, s);
    cf = NttCosetFirst{tab->in.p, tab->lo.p, tab->hi.p, tab->lb, true};
  }
  ~NttCosetFirstBuf() { delete tab; }
  NttCosetFirstBuf(const NttCosetFirstBuf&) = delete;
  NttCosetFirstBuf& operator=(const NttCosetFirstBuf&) = delete;
};

// NttLegacyTwiddles: where ntt_pass reads its twiddles (NttTw, pre-scaled by
// ntt_tw_scale: the tables below hold c·ω^x). Wg[m] = ω_{2^w_log}^m for
// m < 2^(w_log−1) (the stage twiddles of every pass: ω_{2^t}^k = Wg[k << (w_log − t)]);
// direct, when set, the pass's inter-pass twiddles ω_N^(y << (lg_n − lg_s − t)) for
// y < 2^(lg_s + t), one load instead of the two-table product of tw.
struct NttLegacyTwiddles {
  NttTwPow tw;
  const NttTw* Wg;
  int w_log;
  const NttTw* direct;
};

// NttArith: the butterfly arithmetic of ntt_pass. Lazy by default: between the passes the
// values stay in [0, 2r) (Fr's lazy forms, field.cuh), each product skips its final
// subtraction and the last pass reduces what it writes. -DSP_NTT_EAGER builds the fully
// reduced arithmetic (comparisons). Products take the twiddle (< r) first (ntt_mul_tw).
struct NttArith {
  static __device__ __forceinline__ Fr mul_lazy(const NttTw& w, const Fr& x) { return ntt_mul_tw(w, x); }
#ifdef SP_NTT_EAGER
  static __device__ __forceinline__ Fr add(const Fr& a, const Fr& b) { return a + b; }
  static __device__ __forceinline__ Fr sub(const Fr& a, const Fr& b) { return a - b; }
  static __device__ __forceinline__ Fr mul(const NttTw& w, const Fr& x) { return Fr::reduce_once(mul_lazy(w, x), 0); }
  static __device__ __forceinline__ Fr out(const Fr& v) { return v; }
#else
  static __device__ __forceinline__ Fr add(const Fr& a, const Fr& b) { return a.add_lazy(b); }
  static __device__ __forceinline__ Fr sub(const Fr& a, const Fr& b) { return a.sub_lazy(b); }
  static __device__ __forceinline__ Fr mul(const NttTw& w, const Fr& x) { return mul_lazy(w, x); }
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
template <bool DIT>
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
  // takes G of them (tile_map), so that its lanes see the same tile shape as elsewhere.
  const bool runs = lg_s == 0;
  const uint64_t chunks = runs ? 1 : S >> g_log;
  const uint64_t gb = runs ? 0 : (blockIdx.x % chunks) << g_log;
  const uint64_t base = runs ? uint64_t(blockIdx.x) * tile : (blockIdx.x / chunks) * (S << t) + gb;
  // tile_map: the m-th element of the block in memory order, as tile index k = e·G + gl
  // (group gl, position e) and global index p. Consecutive m are consecutive addresses.
  const auto tile_map = [&](uint32_t m, uint32_t& k, uint32_t& gl, uint32_t& e, uint64_t& p) {
    if (runs) {
      e = m & ((1u << t) - 1), gl = m >> t, p = base + m;
    } else {
      gl = m & (G - 1), e = m >> g_log, p = base + uint64_t(e) * S + gl;
    }
    k = (e << g_log) | gl;
  };
  const NttTwPow tw = tws.tw;  // a copy: a reference into a kernel parameter can force local memory
  const int tw_shift = lg_n - lg_s - t;

  for (uint32_t k = threadIdx.x; k < half_t; k += blockDim.x) W[k] = load_tw(tws.Wg + (k << (tws.w_log - t)));
  for (uint32_t m = threadIdx.x; m < tile; m += blockDim.x) {
    uint32_t k, gl, e;
    uint64_t p;
    tile_map(m, k, gl, e, p);
    Fr x = *reinterpret_cast<const Fr*>(data + p);
    if (first && f.pre.on) x = ntt_fuse_pre(f.pre, lg_n, uint32_t(p), x);
    if (first && pre.on) x = ntt_scale_tw(pre, lg_n, uint32_t(p), x);
    if (cf.on) x = A::mul(load_tw(cf.in + e), x);  // the first pass only
    if (DIT && lg_s > 0) {  // the inter-pass twiddle before the butterflies
      const uint64_t y = (gb + gl) * bitrev(e, t);
      if (y) x = A::mul(tws.direct ? load_tw(tws.direct + y) : tw.at(y << tw_shift), x);
    }
    sm[k] = x;
  }
  __syncthreads();

  for (int u = 0; u < t; u++) {
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
    for (uint32_t q = threadIdx.x; q < (G << (t - 1)); q += blockDim.x) {
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
        sm[k1] = off >= skip_below ? A::mul(W[off << u], A::sub(a, b)) : A::sub(a, b);
      }
    }
    __syncthreads();
  }

  for (uint32_t m = threadIdx.x; m < tile; m += blockDim.x) {
    uint32_t k, gl, e;
    uint64_t p;
    tile_map(m, k, gl, e, p);
    Fr v = sm[k];
    if (!DIT && lg_s > 0) {
      const uint64_t col = gb + gl, y = col * bitrev(e, t);
      if (cf.on ? col != 0 : y != 0) {
        NttTw w;
        if (cf.on)  // (g·ω_n^bitrev(e))^col, NttCosetFirst
          w = ntt_tw_mul(load_tw(cf.lo + ((uint64_t(e) << cf.lb) | (col & ((1u << cf.lb) - 1)))),
                         load_tw(cf.hi + ((uint64_t(e) << (lg_s - cf.lb)) | (col >> cf.lb))));
        else
          w = tws.direct ? load_tw(tws.direct + y) : tw.at(y << tw_shift);
        v = A::mul(w, v);
      }
    }
    if (last) {
      v = A::out(v);
      if (post.on) v = Fr::reduce_once(ntt_scale_tw(post, lg_n, uint32_t(p), v), 0);
      if (f.post.on || f.qb) v = ntt_fuse_post(f, lg_n, uint32_t(p), v);
    }
    *reinterpret_cast<Fr*>(data + p) = v;
  }
}

constexpr int kNttMaxStages = 10;  // per pass
constexpr int kNttTileLog = 11;    // default and largest log2 of the elements per block
// Passes whose twiddle exponents span at most 2^kNttDirectTwiddleLog values (lg_s + t)
// read them from one table of that size (8 MiB at 18: stays in L2).
constexpr int kNttDirectTwiddleLog = 18;

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

// NttDirectTwiddles owns the per-pass direct twiddle tables of one transform, as T (Fr
// for ntt_pass_radix8, NttTw for ntt_pass).
template <class T>
struct NttDirectTwiddles {
  Buf<T>* b[4] = {};
  NttDirectTwiddles() = default;
  NttDirectTwiddles(const NttDirectTwiddles&) = delete;
  NttDirectTwiddles& operator=(const NttDirectTwiddles&) = delete;
  ~NttDirectTwiddles() {
    for (Buf<T>* p : b) delete p;
  }
  // build makes the table of every pass p with lg_s > 0 whose exponents span at most
  // 2^kNttDirectTwiddleLog values: out[y] = ω_N^(y << (lg_n − span)).
  void build(int P, const int* ts, const int* lgs, int lg_n, const PowTables& tw, cudaStream_t s) {
    for (int p = 0; p < P; p++) {
      const int span = lgs[p] + ts[p];
      if (lgs[p] == 0 || span > kNttDirectTwiddleLog) continue;
      const uint32_t count = 1u << span;
      b[p] = new Buf<T>(count, s);
      if constexpr (std::is_same<T, Fr>::value) {
        ntt_direct_twiddles<<<blocks_for(count, 128), 128, 0, s>>>(b[p]->p, count, tw, lg_n - span);
        SP_LAUNCHED("ntt_direct_twiddles");
      } else {
        Buf<Fr> fr(count, s);
        ntt_direct_twiddles<<<blocks_for(count, 128), 128, 0, s>>>(fr.p, count, tw, lg_n - span);
        SP_LAUNCHED("ntt_direct_twiddles");
        ntt_tw_table<<<blocks_for(count, 128), 128, 0, s>>>(b[p]->p, fr.p, count);
        SP_LAUNCHED("ntt_tw_table");
      }
    }
  }
};

// ntt_stage_table: W[m] = ω_{2^w_log}^m for m < 2^(w_log−1), w_log the largest pass.
// c, when given, multiplies every entry.
struct NttStageTable {
  int w_log = 1;
  Buf<Fr> W;
  NttStageTable(const Fr& root, int lg_n, const int* ts, int P, cudaStream_t s, const Fr* c = nullptr)
      : w_log(max_stages(ts, P)), W(size_t(1) << (w_log - 1), s) {
    pow_table<<<blocks_for(1u << (w_log - 1), 128), 128, 0, s>>>(W.p, 1u << (w_log - 1), root, lg_n - w_log,
                                                                   c ? *c : root, c != nullptr);
    SP_LAUNCHED("pow_table");
  }
  static int max_stages(const int* ts, int P) {
    int w = 1;
    for (int p = 0; p < P; p++) w = ts[p] > w ? ts[p] : w;
    return w;
  }
};

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
  const int max_smem = (1 << kNttTileLog) * int(sizeof(Fr)) + (1 << (kNttMaxStages - 1)) * int(sizeof(NttTw));
  SP_CUDA(cudaFuncSetAttribute(ntt_pass<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, max_smem));
  SP_CUDA(cudaFuncSetAttribute(ntt_pass<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, max_smem));
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
    if (dit)
      ntt_pass<true><<<unsigned(blocks), threads, smem, s>>>(data, lg_n, t, lg_s, g_log, tw, f, pre.sc, post.sc, cf,
                                                              first, last);
    else
      ntt_pass<false><<<unsigned(blocks), threads, smem, s>>>(data, lg_n, t, lg_s, g_log, tw, f, pre.sc, post.sc, cf,
                                                               first, last);
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

// quotient_finish: h = (a − c)·k[0] in natural order, from a and c in bit-reversed order
// (one thread per pair p < bitrev(p), which it swaps).
static __global__ void quotient_finish(Fr* __restrict__ a, const Fr* __restrict__ c, int lg_n,
                                       const Fr* __restrict__ k) {
  const uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= (1u << lg_n)) return;
  const uint32_t q = bitrev(p, lg_n);
  if (p > q) return;
  const Fr f = load16(k);
  const Fr hp = (load16(a + p) - load16(c + p)) * f;
  if (p < q) {
    store16(a + p, (load16(a + q) - load16(c + q)) * f);
    store16(a + q, hp);
  } else {
    store16(a + p, hp);
  }
}

static __global__ void fr_product(Fr* __restrict__ out, Fr x, Fr y) { *out = x * y; }

// quotient_run: bellperson's h (see capi.h) with six transforms instead of its seven.
// consts: ω, ω^-1, g, g^-1, 1/n, 1/(g^n − 1). bellperson computes
//   h = icoset((coset(A)·coset(B) − coset(C))·z⁻¹),  X = iNTT(x) the coefficients of x,
// z = g^n − 1 being the value of x^n − 1 on the whole coset. icoset is linear and
// icoset(coset(C)) = C, so h = (icoset(coset(A)·coset(B)) − C)·z⁻¹: the same field
// elements without C's forward transform. Here:
//   c: inverse NTT (DIF, no scaling: n·C in bit-reversed order);
//   b, then a: inverse NTT with g^i/n fused into its last pass, forward DIT NTT to coset
//     evaluations; a's with the product a·b fused;
//   a: inverse NTT with g^-i fused (n·icoset(A·B), bit-reversed), then
//   quotient_finish: h = (a − c)·(1/n)·z⁻¹ and the bit reversal, in one pass.
inline void quotient_run(Fr* a, Fr* b, Fr* c, int lg_n, const Fr* k, cudaStream_t s) {
  if (lg_n < 1 || lg_n > 28) invalid("quotient: lg_n must be in [1, 28]");
  const Fr &omega = k[0], &omega_inv = k[1], &g = k[2], &g_inv = k[3], &n_inv = k[4], &z_inv = k[5];
  PowTablesBuf coset(g, lg_n, s, &n_inv), uncoset(g_inv, lg_n, s);
  Buf<Fr> factor(1, s);
  fr_product<<<1, 1, 0, s>>>(factor.p, n_inv, z_inv);
  SP_LAUNCHED("fr_product");
  ntt_run(c, lg_n, omega_inv, false, s);
  NttOptions to_coeffs;
  to_coeffs.fuse.post = NttScaleSpec{coset.view(), true, true};  // coefficient i sits at bitrev(i)
  for (Fr* x : {b, a}) {
    ntt_run(x, lg_n, omega_inv, false, s, to_coeffs);
    NttOptions to_evals;
    if (x == a) to_evals.fuse.qb = b;
    ntt_run(x, lg_n, omega, true, s, to_evals);
  }
  NttOptions back;
  back.fuse.post = NttScaleSpec{uncoset.view(), true, true};
  ntt_run(a, lg_n, omega_inv, false, s, back);
  quotient_finish<<<blocks_for(1u << lg_n, 256), 256, 0, s>>>(a, c, lg_n, factor.p);
  SP_LAUNCHED("quotient_finish");
}

}  // namespace snarkpipe
