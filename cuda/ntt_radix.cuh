// NTT pass with the butterflies in registers: the same passes, orders and inter-pass
// twiddles as ntt_pass (ntt.cuh), computed with fewer shared-memory round trips and more
// independent work per thread.
//
// A block holds a tile of 2^tb elements: G = 2^g_log groups of 2^t (the pass's stages).
// The tile index k has three bit fields, laid out so that consecutive k are as close in
// memory as the pass allows: [0, gi) the low bits of the group (adjacent groups at stride
// S sit next to each other), [gi, gi + t) the position e in the group, [gi + t, tb) the
// high bits of the group (used when S < G: then whole groups are contiguous).
//
// Each thread owns 8 elements whose tile indices differ in three consecutive bits
// [L, L + 3): a chunk of up to three radix-2 stages runs on them in registers with no
// barrier. The t stages are cut into ceil(t/3) chunks; between chunks the tile goes
// through shared memory (each thread writes back exactly the elements it read, so one
// barrier per chunk suffices). The first chunk reads global memory, the last writes it.
// For t = 9 (2^27 = 9+9+9) that is two shared-memory exchanges and two barriers per pass,
// against nine barriers and nine round trips with one butterfly per thread per stage.
//
// Stage twiddles come from one global table W[m] = ω_{2^w_log}^m (m < 2^(w_log−1)); the
// stage on tile bit b of e needs ω_{2^(b+1)}^off = W[off << (w_log − 1 − b)], off = e mod 2^b.
//
// Fusions (first and last executed pass only, chosen by the host): a scaling of every
// element by pre(p) at load, by post(p) at store (p the global index, or its bit
// reversal), and bellperson's (x·b − c)·z⁻¹ at store.
#pragma once

#include "bls12_381.cuh"
#include "pow_tables.cuh"
#include "runtime.cuh"

namespace snarkpipe {

// NttScaleSpec: x[p] *= tab(p) (or tab(bitrev(p))) when on; the tables may carry a
// constant factor in their low half (pow_table's scale).
struct NttScaleSpec {
  PowTables tab;
  bool on;
  bool bitrev_index;
};

// NttFuse lists the element-wise operations fused into a pass.
struct NttFuse {
  NttScaleSpec pre, post;
  const Fr* qb;  // when set: x = x·qb[p] at store, after post, and when qc is set too
  const Fr* qc;  // x = (x·qb[p] − qc[p])·z_inv instead
  Fr z_inv;
};

// NttPassGeom is one pass's shape (see the file comment).
struct NttPassGeom {
  int lg_n, t, lg_s, gi, go;
  const Fr* W;  // W[m] = ω_{2^w_log}^m
  int w_log;
  PowTables tw;  // powers of ω_N for the inter-pass twiddles
  // tw_direct, when set: tw_direct[y] = ω_N^(y << (lg_n − lg_s − t)) for y < 2^(lg_s + t),
  // one load instead of two loads and a product (the host builds it for small lg_s + t).
  const Fr* tw_direct;
};

// ntt_global_index maps tile index k of block blk to the element's global index.
__device__ __forceinline__ uint32_t ntt_global_index(const NttPassGeom& g, uint32_t blk, uint32_t k, uint32_t* grp,
                                                     uint32_t* pos) {
  const uint32_t g_lo = k & ((1u << g.gi) - 1);
  const uint32_t e = (k >> g.gi) & ((1u << g.t) - 1);
  const uint32_t g_hi = k >> (g.gi + g.t);
  const uint32_t gamma = (blk << (g.gi + g.go)) + (g_hi << g.gi) + g_lo;  // group id
  const uint32_t h = gamma >> g.lg_s, gs = gamma & ((1u << g.lg_s) - 1);
  *grp = gs;
  *pos = e;
  return (h << (g.lg_s + g.t)) + (e << g.lg_s) + gs;
}

// ntt_interpass_twiddle: ω_N^(g·bitrev_t(e) << (lg_n − lg_s − t)), 1 when the exponent is 0.
__device__ __forceinline__ void ntt_apply_interpass(const NttPassGeom& g, uint32_t grp, uint32_t pos, Fr& x) {
  if (g.lg_s == 0) return;
  const uint32_t y = grp * bitrev(pos, g.t);
  if (!y) return;
  x = x * (g.tw_direct ? load16(g.tw_direct + y) : g.tw.at(uint64_t(y) << (g.lg_n - g.lg_s - g.t)));
}

// ntt_direct_twiddles: out[y] = tw(y << shift).
static __global__ void ntt_direct_twiddles(Fr* __restrict__ out, uint32_t count, PowTables tw, int shift) {
  const uint32_t y = blockIdx.x * blockDim.x + threadIdx.x;
  if (y < count) store16(out + y, tw.at(uint64_t(y) << shift));
}

__device__ __forceinline__ void ntt_apply_scale(const NttScaleSpec& s, int lg_n, uint32_t p, Fr& x) {
  if (s.on) x = x * s.tab.at(s.bitrev_index ? bitrev(p, lg_n) : p);
}

// ntt_fuse_pre / ntt_fuse_post: the fused element-wise operations of the first / last
// pass (out of line: they run in one pass of a transform and would otherwise keep the
// kernel's loops from unrolling).
// Arguments by value: a reference to a kernel parameter would copy it to local memory.
static __device__ __noinline__ Fr ntt_fuse_pre(const NttScaleSpec pre, int lg_n, uint32_t p, Fr x) {
  ntt_apply_scale(pre, lg_n, p, x);
  return x;
}

static __device__ __noinline__ Fr ntt_fuse_post(const NttFuse f, int lg_n, uint32_t p, Fr x) {
  ntt_apply_scale(f.post, lg_n, p, x);
  if (f.qb) x = f.qc ? (x * load16(f.qb + p) - load16(f.qc + p)) * f.z_inv : x * load16(f.qb + p);
  return x;
}

// NttElemOp: the per-element work of a thread's first and last chunk.
enum NttElemOp { kNttLoad, kNttLoadTwiddled, kNttTwiddle, kNttFusePre, kNttFusePost, kNttStore };

// NttElems: the context of that work, element i being tile index kbase | i << L.
struct NttElems {
  Fr* data;
  const NttPassGeom& g;
  const NttFuse& f;
  uint32_t blk, kbase;
  int L;

  template <NttElemOp OP>
  __device__ __forceinline__ void apply(Fr& x, int i) const {
    uint32_t grp, pos;
    const uint32_t p = ntt_global_index(g, blk, kbase | (uint32_t(i) << L), &grp, &pos);
    if constexpr (OP == kNttLoad) {
      x = load16(data + p);
    } else if constexpr (OP == kNttLoadTwiddled) {
      x = load16(data + p);
      ntt_apply_interpass(g, grp, pos, x);
    } else if constexpr (OP == kNttTwiddle) {
      ntt_apply_interpass(g, grp, pos, x);
    } else if constexpr (OP == kNttFusePre) {
      x = ntt_fuse_pre(f.pre, g.lg_n, p, x);
    } else if constexpr (OP == kNttFusePost) {
      x = ntt_fuse_post(f, g.lg_n, p, x);
    } else {
      store16(data + p, x);
    }
  }
};

// ntt_each8 applies OP to the eight elements without a loop: a loop whose body holds field
// products may not be unrolled, and x would then leave registers for local memory.
template <NttElemOp OP>
__device__ __forceinline__ void ntt_each8(Fr (&x)[8], const NttElems& el) {
  el.apply<OP>(x[0], 0);
  el.apply<OP>(x[1], 1);
  el.apply<OP>(x[2], 2);
  el.apply<OP>(x[3], 3);
  el.apply<OP>(x[4], 4);
  el.apply<OP>(x[5], 5);
  el.apply<OP>(x[6], 6);
  el.apply<OP>(x[7], 7);
}

// ntt_stage_regs runs one radix-2 stage on the pairs of x that differ in local bit LB,
// which is tile bit L + LB and bit b of the position e.
template <bool DIT, int LB>
__device__ __forceinline__ void ntt_stage_regs(Fr (&x)[8], const NttPassGeom& g, uint32_t kbase, int L, int b) {
#pragma unroll
  for (int i = 0; i < 8; i++) {
    if (i & (1 << LB)) continue;
    const int j = i | (1 << LB);
    const uint32_t k = kbase | (uint32_t(i) << L);
    const uint32_t off = (k >> g.gi) & ((1u << b) - 1);
    if (DIT) {
      if (off) x[j] = x[j] * load16(g.W + (off << (g.w_log - 1 - b)));
      const Fr a = x[i], c = x[j];
      x[i] = a + c;
      x[j] = a - c;
    } else {
      const Fr a = x[i], c = x[j];
      x[i] = a + c;
      const Fr d = a - c;
      x[j] = off ? d * load16(g.W + (off << (g.w_log - 1 - b))) : d;
    }
  }
}

template <bool DIT>
__device__ __forceinline__ void ntt_stage_dispatch(Fr (&x)[8], const NttPassGeom& g, uint32_t kbase, int L, int b) {
  const int lb = g.gi + b - L;
  if (lb == 0)
    ntt_stage_regs<DIT, 0>(x, g, kbase, L, b);
  else if (lb == 1)
    ntt_stage_regs<DIT, 1>(x, g, kbase, L, b);
  else
    ntt_stage_regs<DIT, 2>(x, g, kbase, L, b);
}

// ntt_pass_radix8_body: one pass; first/last say whether this is the first/last pass
// executed (the fusions apply there). Blocks of 2^(tb−3) threads.
template <bool DIT>
__device__ __forceinline__ void ntt_pass_radix8_body(Fr* __restrict__ data, const NttPassGeom g, const NttFuse f,
                                                     bool first, bool last) {
  // g and f by value: a reference to a kernel parameter can force a copy to local memory.
  extern __shared__ uint4 smem_raw[];
  Fr* sm = reinterpret_cast<Fr*>(smem_raw);
  const int tb = g.t + g.gi + g.go;
  const uint32_t T = 1u << (tb - 3);
  const int C = (g.t + 2) / 3;
  const uint32_t blk = blockIdx.x;
  for (int c = 0; c < C; c++) {
    // The chunk's bits of e: from the top for DIF, from the bottom for DIT.
    int lo, r;
    if (DIT) {
      lo = 3 * c;
      r = g.t - lo < 3 ? g.t - lo : 3;
    } else {
      const int hi = g.t - 3 * c;  // exclusive
      lo = hi - 3 > 0 ? hi - 3 : 0;
      r = hi - lo;
    }
    const int klo = g.gi + lo;
    const int L = klo < tb - 3 ? klo : tb - 3;
    for (uint32_t q = threadIdx.x; q < T; q += blockDim.x) {
      const uint32_t kbase = (q & ((1u << L) - 1)) | ((q >> L) << (L + 3));
      Fr x[8];
      const NttElems el{data, g, f, blk, kbase, L};
      if (c == 0) {
        if (DIT)
          ntt_each8<kNttLoadTwiddled>(x, el);
        else
          ntt_each8<kNttLoad>(x, el);
        if (first && f.pre.on) ntt_each8<kNttFusePre>(x, el);
      } else {
#pragma unroll
        for (int i = 0; i < 8; i++) x[i] = sm[kbase | (uint32_t(i) << L)];
      }
      if (DIT) {
        for (int b = lo; b < lo + r; b++) ntt_stage_dispatch<DIT>(x, g, kbase, L, b);
      } else {
        for (int b = lo + r - 1; b >= lo; b--) ntt_stage_dispatch<DIT>(x, g, kbase, L, b);
      }
      if (c == C - 1) {
        if (!DIT) ntt_each8<kNttTwiddle>(x, el);
        if (last && (f.post.on || f.qb)) ntt_each8<kNttFusePost>(x, el);
        ntt_each8<kNttStore>(x, el);
      } else {
#pragma unroll
        for (int i = 0; i < 8; i++) sm[kbase | (uint32_t(i) << L)] = x[i];
      }
    }
    if (c + 1 < C) __syncthreads();
  }
}

#if defined(SP_HOST_EMU) && !defined(__launch_bounds__)
#define __launch_bounds__(...)
#endif

template <bool DIT>
static __global__ void ntt_pass_radix8(Fr* __restrict__ data, NttPassGeom g, NttFuse f, bool first, bool last) {
  ntt_pass_radix8_body<DIT>(data, g, f, first, last);
}

// ntt_pass_radix8_lb: the same with at most 128 registers (two blocks of 256 threads per
// multiprocessor), for comparison.
template <bool DIT>
static __global__ void __launch_bounds__(256, 2)
    ntt_pass_radix8_lb(Fr* __restrict__ data, NttPassGeom g, NttFuse f, bool first, bool last) {
  ntt_pass_radix8_body<DIT>(data, g, f, first, last);
}

}  // namespace snarkpipe
