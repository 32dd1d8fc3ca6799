// The twiddles of ntt_pass (ntt.cuh): the form its products take them in (NttTw, on the
// FP64 pipe by default), their tables (stage, direct, two-table powers), the fused
// scalings in that form, and the coset scaling folded into the first pass
// (NttCosetFirst). All tables are built on the device per transform.
#pragma once

#include <type_traits>

#include "bls12_381.cuh"
#include "dpf.cuh"
#include "ntt_radix.cuh"
#include "pow_tables.cuh"
#include "runtime.cuh"

// These headers (ntt_twiddles.cuh, ntt.cuh, quotient.cuh) are compiled once per Fr
// product of the transforms: ntt_fp64.cu with the FP64 product, ntt_int.cu with
// SP_NTT_CIOS (the integer product). Each build lives in its own inline namespace, so
// that the two never share a symbol in the library (ntt_ops.cuh).
#ifdef SP_NTT_CIOS
#define SP_NTT_NS ntt_int
#else
#define SP_NTT_NS ntt_fp64
#endif

namespace snarkpipe {
inline namespace SP_NTT_NS {  // ntt_twiddles.cuh says why

// NttTw: a twiddle as ntt_pass multiplies by it. By default its products run on the FP64
// pipe (dpf.cuh: 52-bit limbs, the limb products split exactly by fused multiply-adds),
// which measured 1.47× the integer CIOS product of field.cuh for Fr on the H200
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
#elif !defined(SP_NTT_NO_LDG) && defined(__CUDA_ARCH__)
  // The tables are read-only for the whole transform: the non-coherent load path
  // (-DSP_NTT_NO_LDG builds the plain load, for comparisons).
  Fr52 w;
#pragma unroll
  for (int i = 0; i < 5; i++) w.l[i] = __ldg(&p->l[i]);
  return w;
#else
  return *p;
#endif
}

#ifndef SP_NTT_CIOS
// ntt_mul_tw_words: w·x for x in NW 32-bit words (x < 2^260), on the FP64 pipe.
template <int NW>
__device__ __forceinline__ Fr ntt_mul_tw_words(const NttTw& w, const uint32_t (&x)[NW]) {
  double a[5];
  uint64_t r[5];
  dpf::to52<NW, 5>(x, a);
  dpf::mont<dpf::FrModulus>(a, w.l, r);
  Fr out;
  dpf::from52<5, 8>(r, out.v);
  return out;
}
#endif

// ntt_mul_tw: w·x below 2r for any x < 2^256 (CIOS: field.cuh; FP64: w·x·2^-260 + r < r/16 + r).
__device__ __forceinline__ Fr ntt_mul_tw(const NttTw& w, const Fr& x) {
#ifdef SP_NTT_CIOS
  return Fr::mul_lazy(w, x);
#else
  return ntt_mul_tw_words(w, x.v);
#endif
}

// ntt_mul_tw_diff: w·(a − b) below 2r for a, b < 2r. The FP64 product takes the
// difference unreduced, a − b + 2r < 4r < 2^257 (Fe::diff_2p), in its 5 limbs of 52 bits:
// w·x·2^-260 + r < 2^257·r·2^-260 + r < 2r still.
__device__ __forceinline__ Fr ntt_mul_tw_diff(const NttTw& w, const Fr& a, const Fr& b) {
#ifdef SP_NTT_CIOS
  return ntt_mul_tw(w, a.sub_lazy(b));
#else
  uint32_t d[9];
  const Fr x = a.diff_2p(b, d[8]);
#pragma unroll
  for (int i = 0; i < 8; i++) d[i] = x.v[i];
  return ntt_mul_tw_words(w, d);
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

// Passes whose twiddle exponents span at most 2^kNttDirectTwiddleLog values (lg_s + t)
// read them from one table of that size (8 MiB at 18: stays in L2).
constexpr int kNttDirectTwiddleLog = 18;

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

}  // namespace SP_NTT_NS
}  // namespace snarkpipe
