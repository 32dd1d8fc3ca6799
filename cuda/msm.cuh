// Pippenger MSM with signed c-bit digits, templated on the base field of the curve.
//
// First, classify: scalars equal to 1 go to a bitmap (summed by batch addition into
// window 0), zeros are dropped, the others are compacted into an index list, whose size
// chooses the window width c. Then per batch of windows:
//   digits    one thread per listed scalar: leave Montgomery form, cut into signed digits
//             (|d| <= 2^(c-1)), emit key = (window << c) | |d| and value = index | sign<<31.
//   sort      CUB radix sort of (key, value) over the key bits: points grouped by bucket.
//   bounds    first/last position of every key.
//   segments  fixed-size segments of the sorted array, one thread each: runs that lie
//             inside a segment go straight to their bucket; runs crossing a segment edge
//             leave a partial sum (lo: the run holding the segment's first entry, hi: the
//             run holding its last entry), so the work per thread is bounded whatever
//             the bucket sizes.
//   chains    the partial sums of each run crossing segments, summed as a tree.
//   fixup     one thread per bucket crossing segments: hi[t0] + the chain's sum.
// Then every window's buckets are reduced with running sums over groups of L buckets
// (Σ (j+1)·b_j), the groups combined with tree sums, and the window sums W_w returned; the
// caller computes Σ 2^(w·c)·W_w (a few hundred doublings) on the host.
#pragma once

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include <mutex>
#include <type_traits>

#include "msm_affine.cuh"
#include "reduce.cuh"

namespace snarkpipe {

// Fr scalars are at most 255 bits; a signed-digit carry can need one more.
constexpr int kScalarBits = 256;

__device__ __forceinline__ uint32_t bits_at(const Fr& s, int off, int c) {
  if (off >= 256) return 0;
  const int li = off >> 5, sh = off & 31;
  uint32_t raw = s.v[li] >> sh;
  if (sh && li + 1 < 8) raw |= s.v[li + 1] << (32 - sh);
  return raw & ((1u << c) - 1);
}

// msm_classify: scalars equal to one go to the ones bitmap, zeros are dropped, and the
// rest are flagged for the bucket method (compacted by cub::DeviceSelect).
static __global__ void msm_classify(const Fr* __restrict__ scalars, uint32_t n, uint8_t* __restrict__ flags,
                                    uint32_t* __restrict__ iota, uint32_t* __restrict__ ones) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Fr s = load16(scalars + i).from_mont();
  uint32_t hi = 0;
#pragma unroll
  for (int k = 1; k < 8; k++) hi |= s.v[k];
  const bool is_one = (s.v[0] == 1) && hi == 0;
  const bool is_zero = (s.v[0] == 0) && hi == 0;
  if (is_one) atomicOr(&ones[i >> 5], 1u << (i & 31));
  flags[i] = (is_one || is_zero) ? 0 : 1;
  iota[i] = i;
}

// msm_canonical: canon[j] = the canonical value of scalars[idx[j]], for the batches'
// msm_digits to read instead of converting every scalar once per batch (msm_canon_once).
static __global__ void msm_canonical(const Fr* __restrict__ scalars, const uint32_t* __restrict__ idx, uint32_t count,
                                     Fr* __restrict__ canon) {
  const uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= count) return;
  store16(canon + j, load16(scalars + idx[j]).from_mont());
}

// msm_carry_in: the carry of the signed recoding into window w: window v < w carries
// out when its bits exceed half, or equal half with a carry in. Looking back from w − 1
// stops at the first window whose bits differ from half (almost always the first).
__device__ __forceinline__ uint32_t msm_carry_in(const Fr& s, int c, int w) {
  const uint32_t half = 1u << (c - 1);
  for (int v = w - 1; v >= 0; v--) {
    const uint32_t b = bits_at(s, v * c, c);
    if (b != half) return b > half ? 1u : 0u;
  }
  return 0;
}

// msm_digits: for the count scalars listed in idx, the signed digits of windows
// [w0, w0+nw): entry (w - w0)·count + j gets key (w - w0) << c | |d| and value idx[j] | sign<<31.
// canon, when set, holds the scalars' canonical values in idx order (msm_canonical).
static __global__ void msm_digits(const Fr* __restrict__ scalars, const uint32_t* __restrict__ idx, uint32_t count,
                                  const Fr* __restrict__ canon, int c, int w0, int nw, uint32_t* __restrict__ keys,
                                  uint32_t* __restrict__ vals) {
  const uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= count) return;
  const uint32_t i = idx[j];
  const Fr s = canon ? load16(canon + j) : load16(scalars + i).from_mont();
  const uint32_t half = 1u << (c - 1), full = 1u << c;
  uint32_t carry = msm_carry_in(s, c, w0);
  for (int w = w0; w < w0 + nw; w++) {
    uint32_t d = bits_at(s, w * c, c) + carry;
    uint32_t neg = 0;
    if (d > half) {
      d = full - d;
      neg = 1;
      carry = 1;
    } else {
      carry = 0;
    }
    const size_t o = size_t(w - w0) * count + j;
    keys[o] = (uint32_t(w - w0) << c) | d;
    vals[o] = i | (neg << 31);
  }
}

static __global__ void msm_bounds(const uint32_t* __restrict__ keys, uint32_t m, uint32_t* __restrict__ start,
                           uint32_t* __restrict__ end) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  const uint32_t k = keys[i];
  if (i == 0 || keys[i - 1] != k) start[k] = i;
  if (i == m - 1 || keys[i + 1] != k) end[k] = i + 1;
}

template <class F>
__device__ __forceinline__ void msm_flush(uint32_t k, const Xyzz<F>& acc, uint32_t s, uint32_t e, uint32_t t, int c,
                                          const uint32_t* start, const uint32_t* end, Xyzz<F>* buckets,
                                          Xyzz<F>* lo, Xyzz<F>* hi) {
  const uint32_t maskc = (1u << c) - 1;
  if ((k & maskc) == 0) return;
  const uint32_t rs = start[k], re = end[k];
  if (rs >= s && re <= e) {
    store16(buckets + size_t(k >> c) * (1u << (c - 1)) + (k & maskc) - 1, acc);
  } else if (rs < s) {
    store16(lo + t, acc);
  } else {
    store16(hi + t, acc);
  }
}

// msm_segments: PREFETCH loads the next entry's point before the current addition, so the
// gather's latency overlaps the arithmetic (at the cost of one more affine point in
// registers). Src gives entry i's point: a signed base (GatherSrc) or a pair round's
// output (DenseSrc, msm_affine.cuh).
template <class F, bool PREFETCH, class Src>
__device__ __forceinline__ void msm_segments_body(const Src& src, const uint32_t* __restrict__ keys, uint32_t m,
                                                  uint32_t K, int c, const uint32_t* __restrict__ start,
                                                  const uint32_t* __restrict__ end, Xyzz<F>* buckets, Xyzz<F>* lo,
                                                  Xyzz<F>* hi) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  const uint64_t s64 = uint64_t(t) * K;
  if (s64 >= m) return;
  const uint32_t s = uint32_t(s64);
  const uint32_t e = (s64 + K < m) ? uint32_t(s64 + K) : m;
  const uint32_t maskc = (1u << c) - 1;
  uint32_t cur = keys[s];
  Xyzz<F> acc = Xyzz<F>::inf();
  Affine<F> next;
  if (PREFETCH) next = src.point(s);
  for (uint32_t i = s; i < e; i++) {
    const uint32_t k = keys[i];
    Affine<F> p;
    if (PREFETCH) {
      p = next;
      if (i + 1 < e) next = src.point(i + 1);
    }
    if (k != cur) {
      msm_flush<F>(cur, acc, s, e, t, c, start, end, buckets, lo, hi);
      cur = k;
      acc = Xyzz<F>::inf();
    }
    if (k & maskc) {
      if (!PREFETCH) p = src.point(i);
      acc = acc.add_affine(p);
    }
  }
  msm_flush<F>(cur, acc, s, e, t, c, start, end, buckets, lo, hi);
}

template <class F, bool PREFETCH>
static __global__ void msm_segments(const Affine<F>* __restrict__ bases, const uint32_t* __restrict__ keys,
                                    const uint32_t* __restrict__ vals, uint32_t m, uint32_t K, int c,
                                    const uint32_t* __restrict__ start, const uint32_t* __restrict__ end,
                                    Xyzz<F>* buckets, Xyzz<F>* lo, Xyzz<F>* hi) {
  msm_segments_body<F, PREFETCH>(GatherSrc<F>{bases, vals}, keys, m, K, c, start, end, buckets, lo, hi);
}

// msm_segments_dense: the accumulation over the points the pair rounds left.
template <class F, class Src>
static __global__ void msm_segments_dense(Src src, const uint32_t* __restrict__ keys, uint32_t m, uint32_t K, int c,
                                          const uint32_t* __restrict__ start, const uint32_t* __restrict__ end,
                                          Xyzz<F>* buckets, Xyzz<F>* lo, Xyzz<F>* hi) {
  msm_segments_body<F, false>(src, keys, m, K, c, start, end, buckets, lo, hi);
}

// msm_segments_occ: the same with blocks of kMsmSegThreads threads and at least MINB of
// them resident per multiprocessor (__launch_bounds__ caps the registers at
// 65536 / (128·MINB)). The accumulation is latency bound: ncu on the H200 shows 3 warps
// per scheduler at 152 registers (G1), each waiting ~4.8 cycles per instruction on the
// carry chains of its products, so more resident warps can hide more of that latency
// even at the cost of a few spills.
constexpr int kMsmSegThreads = 128;
template <class F, int MINB>
static __global__ void __launch_bounds__(kMsmSegThreads, MINB)
    msm_segments_occ(const Affine<F>* __restrict__ bases, const uint32_t* __restrict__ keys,
                     const uint32_t* __restrict__ vals, uint32_t m, uint32_t K, int c,
                     const uint32_t* __restrict__ start, const uint32_t* __restrict__ end, Xyzz<F>* buckets,
                     Xyzz<F>* lo, Xyzz<F>* hi) {
  msm_segments_body<F, false>(GatherSrc<F>{bases, vals}, keys, m, K, c, start, end, buckets, lo, hi);
}

// A bucket whose run crosses segment edges is summed by msm_fixup from the partial sums
// the segments left: hi[t0] (the segment where the run starts) and lo[t0+1..t1] (one per
// later segment). Runs of the same digit are long where a scalar value repeats: a 32 GiB
// Window PoSt witness holds values that Poseidon derives from its constants alone (the
// same in every hash) up to ~500,000 times, so in every window one bucket gets all of them
// and its chain of lo partials runs to thousands: thousands of dependent additions in one
// thread while the rest of the device idles (docs/BENCHMARKS.md, "Long bucket runs").
// The chains are therefore first summed as trees, in place. msm_chain_prep gives segment
// t its position r in its run's chain and the chain's length; pass d (1, 2, 4, …) adds
// lo[t + d] into lo[t] where r ≡ 0 mod 2d, so lo[t0+1] ends with the whole chain after
// log2(length) passes. -DSP_MSM_SERIAL_FIXUP builds the serial sum (comparisons).
struct MsmChain {
  uint32_t r, len;  // len = 0: segment t holds no partial of a run that started before it
};

static __global__ void msm_chain_prep(const uint32_t* __restrict__ keys, uint32_t K, int c,
                                      const uint32_t* __restrict__ start, const uint32_t* __restrict__ end,
                                      uint32_t nseg, MsmChain* __restrict__ chain, uint32_t* __restrict__ max_len) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nseg) return;
  const uint32_t k = keys[size_t(t) * K];
  MsmChain ch{0, 0};
  if (k & ((1u << c) - 1)) {  // zero digits have no bucket
    const uint32_t t0 = start[k] / K, t1 = (end[k] - 1) / K;
    if (t > t0) {
      ch = MsmChain{t - t0 - 1, t1 - t0};
      if (t == t0 + 1) atomicMax(max_len, t1 - t0);
    }
  }
  chain[t] = ch;
}

template <class F>
static __global__ void msm_chain_pass(const MsmChain* __restrict__ chain, uint32_t nseg, uint32_t d,
                                      const uint32_t* __restrict__ max_len, Xyzz<F>* lo) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nseg || d >= *max_len) return;
  const MsmChain ch = chain[t];
  if (ch.len == 0 || (ch.r & (2 * d - 1)) != 0 || ch.r + d >= ch.len) return;
  store16(lo + t, load16(lo + t).add(load16(lo + t + d)));
}

// msm_chain_tree sums every chain of lo partials of the m sorted entries' segments of K
// (chain and max_len: scratch of ceil(m/K) entries and one word). Passes past the
// longest chain return at once.
template <class F>
void msm_chain_tree(const uint32_t* keys, uint32_t m, uint32_t K, int c, const uint32_t* start, const uint32_t* end,
                    MsmChain* chain, uint32_t* max_len, Xyzz<F>* lo, cudaStream_t s) {
  const uint32_t nseg = (m + K - 1) / K;
  SP_CUDA(cudaMemsetAsync(max_len, 0, sizeof(uint32_t), s));
  msm_chain_prep<<<blocks_for(nseg, 256), 256, 0, s>>>(keys, K, c, start, end, nseg, chain, max_len);
  SP_LAUNCHED("msm_chain_prep");
  for (uint32_t d = 1; d < nseg; d <<= 1) {
    msm_chain_pass<F><<<blocks_for(nseg, 128), 128, 0, s>>>(chain, nseg, d, max_len, lo);
    SP_LAUNCHED("msm_chain_pass");
  }
}

// msm_fixup: one thread per key. tree: the chains were summed by msm_chain_tree.
template <class F>
static __global__ void msm_fixup(uint32_t nkeys, uint32_t K, int c, const uint32_t* __restrict__ start,
                          const uint32_t* __restrict__ end, Xyzz<F>* buckets, const Xyzz<F>* __restrict__ lo,
                          const Xyzz<F>* __restrict__ hi, bool tree) {
  const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= nkeys) return;
  const uint32_t maskc = (1u << c) - 1, B = 1u << (c - 1);
  const uint32_t mag = k & maskc;
  if (mag == 0 || mag > B) return;
  Xyzz<F>* slot = buckets + size_t(k >> c) * B + mag - 1;
  const uint32_t rs = start[k], re = end[k];
  if (rs == re) {
    store16(slot, Xyzz<F>::inf());
    return;
  }
  const uint32_t t0 = rs / K, t1 = (re - 1) / K;
  if (t0 == t1) return;  // the run lies inside one segment, which wrote it
  Xyzz<F> acc = load16(hi + t0);
  if (tree) {
    acc = acc.add(load16(lo + t0 + 1));
  } else {
    for (uint32_t t = t0 + 1; t <= t1; t++) acc = acc.add(load16(lo + t));
  }
  store16(slot, acc);
}

// msm_bucket_reduce: thread (w, g) returns Σ_{j<L} (g·L + j + 1)·bucket[w][g·L + j].
template <class F>
__device__ __forceinline__ void msm_bucket_reduce_body(const Xyzz<F>* __restrict__ buckets, uint32_t nwins, uint32_t B,
                                                       uint32_t L, Xyzz<F>* __restrict__ out) {
  const uint32_t G = B / L;
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nwins * G) return;
  const uint32_t w = t / G, g = t % G;
  const Xyzz<F>* b = buckets + size_t(w) * B + size_t(g) * L;
  Xyzz<F> run = Xyzz<F>::inf(), tot = Xyzz<F>::inf();
  for (int j = int(L) - 1; j >= 0; j--) {
    run = run.add(load16(b + j));
    tot = tot.add(run);
  }
  if (g) tot = tot.add(run.mul_small(g * L));
  store16(out + t, tot);
}

constexpr int kMsmReduceThreads = 64;
template <class F>
static __global__ void msm_bucket_reduce(const Xyzz<F>* __restrict__ buckets, uint32_t nwins, uint32_t B, uint32_t L,
                                         Xyzz<F>* __restrict__ out) {
  msm_bucket_reduce_body<F>(buckets, nwins, B, L, out);
}

// msm_bucket_reduce_occ: at least MINB blocks of kMsmReduceThreads per multiprocessor
// (see msm_segments_occ).
template <class F, int MINB>
static __global__ void __launch_bounds__(kMsmReduceThreads, MINB)
    msm_bucket_reduce_occ(const Xyzz<F>* __restrict__ buckets, uint32_t nwins, uint32_t B, uint32_t L,
                          Xyzz<F>* __restrict__ out) {
  msm_bucket_reduce_body<F>(buckets, nwins, B, L, out);
}

inline int ceil_log2(uint64_t x) {
  int r = 0;
  while ((uint64_t(1) << r) < x) r++;
  return r;
}

// kMsmPairRoundsDefault: batch-affine pair rounds (msm_affine.cuh) when the tuning bits
// leave them unset (4: −1.4 % against 3 on the G1 2^27 MSM, docs/BENCHMARKS.md; the
// rounds reuse two buffers, so more cost no scratch). kMsmPairBatch: with pair rounds,
// the sorted entries per batch of windows are capped at this (the rounds' scratch is
// about 100 bytes per entry for G1), or at kMsmPairBatchLarge (msm_pair_batch).
constexpr uint32_t kMsmPairRoundsDefault = 4;
constexpr uint64_t kMsmPairBatch = uint64_t(1) << 27;
constexpr uint64_t kMsmPairBatchLarge = uint64_t(1) << 28;

// device_spare_bytes: the device's free memory plus what its pool caches unused, within
// what the device's ledger limit still allows (runtime.cuh).
inline uint64_t device_spare_bytes() {
  size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  const uint64_t room = device_room();
  uint64_t spare = free_b;
  int device = 0;
  cudaMemPool_t pool;
  uint64_t reserved = 0, used = 0;
  if (cudaGetDevice(&device) == cudaSuccess && cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess &&
      cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved) == cudaSuccess &&
      cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used) == cudaSuccess && reserved > used)
    spare += reserved - used;
  (void)cudaGetLastError();
  return spare < room ? spare : room;
}

// msm_spare_margin: the spare memory an MSM leaves to the other streams of its device
// when it sizes its scratch: an eighth of the device (or of its ledger limit), at most
// 8 GiB (the figure measured on the H200, where the side stream's MSMs run beside).
inline uint64_t msm_spare_margin() {
  constexpr uint64_t kMax = uint64_t(8) << 30;
  uint64_t size = device_limit();
  if (!size) {
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
      (void)cudaGetLastError();
      return kMax;
    }
    size = total_b;
  }
  return size / 8 < kMax ? size / 8 : kMax;
}

// msm_thread_shift: log2 of the accumulation threads an MSM aims for (the entries per
// thread are m >> shift, within [8, 256]): two waves of the threads the device holds at
// once, rounded down to a power of two (2^19 on the H200: 132 SMs × 2048 threads × 2).
inline int msm_thread_shift(const snarkpipe_ctx* ctx) {
  const uint64_t want = 2ull * uint64_t(ctx->sm_count > 0 ? ctx->sm_count : 1) *
                        uint64_t(ctx->threads_per_sm > 0 ? ctx->threads_per_sm : 1024);
  int shift = 0;
  while ((uint64_t(2) << shift) <= want) shift++;
  return shift < 12 ? 12 : shift > 22 ? 22 : shift;
}

// msm_sizing_mutex: held by an MSM from sizing its batches by the device's spare memory
// until it has allocated them, so that MSMs on other streams of the same device (the
// G1 and G2 units share it) do not count the same spare bytes twice.
inline std::mutex& msm_sizing_mutex(int device) {
  static std::mutex per_device[64];
  return per_device[device & 63];
}

// msm_pair_batch: the most sorted entries per batch of windows with pair rounds. G1 takes
// 2^28 (two windows of a 2^27 MSM per batch: 3 % faster than 2^27 on the H200, for
// about 13 GB more scratch, docs/BENCHMARKS.md) when the device has the whole batch's
// scratch to spare beyond a margin; G2 gained under 1 % and keeps 2^27.
template <class F>
inline uint64_t msm_pair_batch(uint64_t count) {
  if (sizeof(F) != sizeof(Fp) || count <= kMsmPairBatch / 2) return kMsmPairBatch;  // already >= 2 windows
  // Per entry: sort keys and values in and out, the rounds' points (half, then a quarter
  // of the entries), their keys and plan.
  const uint64_t per_entry = 4 * sizeof(uint32_t) + 3 * sizeof(Affine<F>) / 4 + 3 * sizeof(uint32_t);
  const uint64_t need = kMsmPairBatchLarge * per_entry + msm_spare_margin();
  return device_spare_bytes() >= need ? kMsmPairBatchLarge : kMsmPairBatch;
}

// msm_window_bits minimises (number of windows)·(n + 4·buckets), a count of point
// additions, over the widths whose buckets (windows × 2^(c−1) XYZZ points of
// bucket_bytes) take at most max_bytes: on a device with little memory left the H MSM
// of a 2^23 domain takes c = 17 (189 MB of buckets, 4 % more additions) instead of c = 19
// (704 MB). The narrowest width, 4, is always allowed.
inline uint32_t msm_window_bits(uint64_t n, uint64_t bucket_bytes = 0, uint64_t max_bytes = UINT64_MAX) {
  uint32_t best = 4;
  double best_cost = 1e300;
  for (uint32_t c = 4; c <= 22; c++) {
    const double nwins = double((kScalarBits + c - 1) / c);
    if (c > 4 && double(max_bytes) < nwins * double(uint64_t(1) << (c - 1)) * double(bucket_bytes)) continue;
    const double cost = nwins * (double(n) + 4.0 * double(1u << (c - 1)));
    if (cost < best_cost) {
      best_cost = cost;
      best = c;
    }
  }
  return best;
}

// MsmTuning is the window_bits argument of snarkpipe_g1_msm / g2_msm: bits 0..7 the
// window width (0 = auto), the higher bits tuning choices for measurements (0 = default):
// bit 8 accumulation with inlined products (G1: Fp products inline; G2: one call per Fp2
// product, its Fp products inline), bit 9 the prefetching accumulation,
// bits 10..11 the occupancy of the accumulation and bucket reduction (MsmOccupancy),
// bits 12..15 log2 of the buckets per bucket-reduction thread, bits 16..19 log2 of the
// largest segment per accumulation thread, bits 20..23 one more than the number of
// batch-affine pair rounds before the XYZZ accumulation (msm_affine.cuh; 1 = none),
// bits 24..28 log2 of the most sorted entries per batch of windows (tests: many batches),
// bit 29 makes the pair rounds' scratch fail as if the device were full (tests), bit 30
// converts the scalars from Montgomery form once per batch of windows (the behaviour
// before msm_canon_once, for comparisons and the tests).
struct MsmTuning {
  uint32_t c = 0;
  bool inline_mul = false;
  bool prefetch = false;
  uint32_t occ = 0;
  uint32_t reduce_log = 0;
  uint32_t seg_log = 0;
  uint32_t rounds = kMsmPairRoundsDefault;
  uint32_t batch_log = 0;
  bool fail_pairs = false;
  bool canon_per_batch = false;
  explicit MsmTuning(uint32_t w)
      : c(w & 0xff), inline_mul((w >> 8) & 1), prefetch((w >> 9) & 1), occ((w >> 10) & 3),
        reduce_log((w >> 12) & 0xf), seg_log((w >> 16) & 0xf), batch_log((w >> 24) & 0x1f),
        fail_pairs((w >> 29) & 1), canon_per_batch((w >> 30) & 1) {
    if (w >> 31) invalid("msm: unknown tuning bits in window_bits");
    if (batch_log > 28) invalid("msm: batch log must be <= 28");
    if (seg_log && seg_log < 3) invalid("msm: segment log must be >= 3");
    const bool variant = inline_mul || prefetch || occ > 1;
    if ((w >> 20) & 0xf) {
      rounds = ((w >> 20) & 0xf) - 1;
      if (rounds && variant) invalid("msm: the pair rounds go with the default accumulation kernel only");
    } else if (variant) {
      rounds = 0;  // the variants are of the accumulation over the sorted bases
    }
  }
};

// msm_canon_once: whether an MSM of several batches of windows converts its count scalars
// from Montgomery form once, into count × 32 bytes, rather than once per batch in
// msm_digits (−1.1 % on the G1 2^27 random MSM, six batches, docs/BENCHMARKS.md). Asked
// after the batches' buffers are allocated, so that the copy only takes memory they leave
// spare: the wider batches of msm_pair_batch gain more.
inline bool msm_canon_once(const MsmTuning& tu, uint32_t count, uint32_t batches) {
  return batches > 1 && !tu.canon_per_batch &&
         device_spare_bytes() >= uint64_t(count) * sizeof(Fr) + msm_spare_margin();
}

// MsmOccupancy: tuning bits 10..11. 0 the default (kMsmOccDefault), 1 the kernels without
// launch bounds (as many registers as ptxas likes: 152 for G1, 254 for G2), 2 and 3 the
// _occ kernels with at least the SegA/RedA or SegB/RedB blocks per multiprocessor.
constexpr uint32_t kMsmOccDefault = 1;
template <class F>
struct MsmOccupancy {
  static constexpr int SegA = 4, SegB = 5, RedA = 6, RedB = 8;  // G1: 128/102 and 170/128 registers
};
template <>
struct MsmOccupancy<Fp2> {
  static constexpr int SegA = 3, SegB = 4, RedA = 6, RedB = 8;  // G2: 170/128 and 170/128 registers
};
inline uint32_t msm_occupancy(const MsmTuning& tu) { return tu.occ ? tu.occ : kMsmOccDefault; }

// msm_launch_segments picks the accumulation kernel: inline_mul instantiates it on
// FpInline for G1 (Fp with inlined products) and on Fp2Call for G2 (one call per Fp2
// product); the layouts are the same, so the buffers are reinterpreted.
template <class F>
void msm_launch_segments(const MsmTuning& tu, unsigned blocks, cudaStream_t s, const Affine<F>* bases,
                         const uint32_t* keys, const uint32_t* vals, uint32_t m, uint32_t K, int c,
                         const uint32_t* start, const uint32_t* end, Xyzz<F>* buckets, Xyzz<F>* lo, Xyzz<F>* hi) {
  const uint32_t occ = msm_occupancy(tu);
#ifdef SP_NO_MSM_VARIANTS
  // Comparison builds: the default kernel only (faster to compile).
  if (tu.inline_mul || tu.prefetch || occ != 1)
    invalid("msm: built without the accumulation variants (SP_NO_MSM_VARIANTS)");
  msm_segments<F, false><<<blocks, 128, 0, s>>>(bases, keys, vals, m, K, c, start, end, buckets, lo, hi);
  SP_LAUNCHED("msm_segments");
#else
  if (occ != 1 && (tu.inline_mul || tu.prefetch)) invalid("msm: occupancy variants exclude inline_mul and prefetch");
  if (occ == 2 || occ == 3) {
    // (each launch on one line, for the host emulation's rewriting: cuda/emu/build.sh)
    constexpr int kA = MsmOccupancy<F>::SegA, kB = MsmOccupancy<F>::SegB;
    constexpr int T = kMsmSegThreads;
    if (occ == 2)
      msm_segments_occ<F, kA><<<blocks, T, 0, s>>>(bases, keys, vals, m, K, c, start, end, buckets, lo, hi);
    else
      msm_segments_occ<F, kB><<<blocks, T, 0, s>>>(bases, keys, vals, m, K, c, start, end, buckets, lo, hi);
    SP_LAUNCHED("msm_segments_occ");
    return;
  }
  if constexpr (std::is_same_v<F, Fp>) {
#ifdef SP_NO_MSM_INLINE
    if (tu.inline_mul) invalid("msm: built without the inlined-product accumulation (SP_NO_MSM_INLINE)");
#else
    if (tu.inline_mul) {
      using FI = FpInline;
      auto* b = reinterpret_cast<const Affine<FI>*>(bases);
      auto* bk = reinterpret_cast<Xyzz<FI>*>(buckets);
      auto* l = reinterpret_cast<Xyzz<FI>*>(lo);
      auto* h = reinterpret_cast<Xyzz<FI>*>(hi);
      if (tu.prefetch)
        msm_segments<FI, true><<<blocks, 128, 0, s>>>(b, keys, vals, m, K, c, start, end, bk, l, h);
      else
        msm_segments<FI, false><<<blocks, 128, 0, s>>>(b, keys, vals, m, K, c, start, end, bk, l, h);
      SP_LAUNCHED("msm_segments");
      return;
    }
#endif
  }
  if constexpr (std::is_same_v<F, Fp2>) {
    if (tu.inline_mul) {
      using FC = Fp2Call;
      auto* b = reinterpret_cast<const Affine<FC>*>(bases);
      auto* bk = reinterpret_cast<Xyzz<FC>*>(buckets);
      auto* l = reinterpret_cast<Xyzz<FC>*>(lo);
      auto* h = reinterpret_cast<Xyzz<FC>*>(hi);
      if (tu.prefetch)
        msm_segments<FC, true><<<blocks, 128, 0, s>>>(b, keys, vals, m, K, c, start, end, bk, l, h);
      else
        msm_segments<FC, false><<<blocks, 128, 0, s>>>(b, keys, vals, m, K, c, start, end, bk, l, h);
      SP_LAUNCHED("msm_segments");
      return;
    }
  }
  if (tu.prefetch)
    msm_segments<F, true><<<blocks, 128, 0, s>>>(bases, keys, vals, m, K, c, start, end, buckets, lo, hi);
  else
    msm_segments<F, false><<<blocks, 128, 0, s>>>(bases, keys, vals, m, K, c, start, end, buckets, lo, hi);
  SP_LAUNCHED("msm_segments");
#endif
}

// msm_batch_segment_len: the entries per accumulation thread for batches of mmax entries.
inline uint32_t msm_batch_segment_len(uint64_t mmax, int shift, uint32_t k_max) {
  uint64_t K = mmax >> shift;
  if (K < 8) K = 8;
  if (K > k_max) K = k_max;
  return uint32_t(K);
}

// msm_segment_len: the entries per accumulation thread for m entries, as for the sorted
// array (msm_batch_segment_len), but never more than nseg_max segments.
inline uint32_t msm_segment_len(uint32_t m, uint64_t nseg_max, uint32_t k_max, int shift) {
  const uint32_t K = msm_batch_segment_len(m, shift, k_max);
  const uint64_t need = (uint64_t(m) + nseg_max - 1) / nseg_max;
  return need > K ? uint32_t(need) : K;
}

// PairsLeft: what the pair rounds leave, count entries in pb's buffer `which`.
struct PairsLeft {
  uint32_t count;
  int which;
};

// msm_pair_rounds runs `rounds` (>= 1) pair rounds from the sorted batch; start/end
// describe the runs of what they leave.
template <class F>
PairsLeft msm_pair_rounds(MsmPairBuffers<F>& pb, uint32_t rounds, const GatherSrc<F>& src0, const uint32_t* keys,
                          uint32_t m, uint32_t nkeys, int c, uint32_t* start, uint32_t* end, cudaStream_t s) {
  PairsLeft left{msm_pair_round<F>(pb, 0, src0, keys, m, nkeys, c, start, end, s), 0};
  for (uint32_t r = 1; r < rounds; r++) {
    const int in = left.which;
    left.which = 1 - in;
    left.count = msm_pair_round<F>(pb, left.which, pb.out(in).src(), pb.keys(in), left.count, nkeys, c, start, end, s);
  }
  return left;
}

// msm_scratch_bytes: the device scratch of a batch of nw windows of count entries (sorted
// arrays, the radix sort's temporary storage, run bounds, segment partials and chains;
// with_rounds adds the pair rounds' buffers), as msm_run allocates it.
template <class F>
uint64_t msm_scratch_bytes(uint32_t nw, uint32_t count, uint32_t c, bool with_rounds, int shift, uint32_t k_max,
                           cudaStream_t s) {
  const uint64_t m = uint64_t(nw) * count, nkeys = uint64_t(nw) << c;
  const uint64_t K = msm_batch_segment_len(m, shift, k_max), nseg = (m + K - 1) / K;
  size_t sort_bytes = 0;
  SP_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, static_cast<uint32_t*>(nullptr),
                                          static_cast<uint32_t*>(nullptr), static_cast<uint32_t*>(nullptr),
                                          static_cast<uint32_t*>(nullptr), int(m), 0, int(c) + ceil_log2(nw), s));
  uint64_t b = m * 4 * sizeof(uint32_t) + sort_bytes + nkeys * 2 * sizeof(uint32_t) +
               nseg * (2 * sizeof(Xyzz<F>) + sizeof(MsmChain));
  if (with_rounds) b += MsmPairBuffers<F>::bytes(m, uint32_t(nkeys));
  return b;
}

// MsmFit: the windows per batch of an MSM, and whether its pair rounds may have scratch.
struct MsmFit {
  uint32_t windows;
  bool rounds;
};

// msm_fit_batch: the windows per batch, at most nw, whose scratch fits the device's spare
// memory less the margin left to other streams: with the pair rounds if a batch of one
// window can have them, else sized without them, and the rounds not run. At least one
// window: an MSM whose one window does not fit still tries, and fails with
// SNARKPIPE_ENOMEM if the device refuses it.
template <class F>
MsmFit msm_fit_batch(uint32_t nw, uint32_t count, uint32_t c, bool rounds, int shift, uint32_t k_max,
                     cudaStream_t s) {
  const uint64_t spare = device_spare_bytes(), margin = msm_spare_margin();
  const uint64_t room = spare > margin ? spare - margin : 0;
  const auto fit = [&](bool with_rounds) {
    uint32_t w = nw;
    while (w > 1 && msm_scratch_bytes<F>(w, count, c, with_rounds, shift, k_max, s) > room) w--;
    return w;
  };
  const uint32_t w = fit(rounds);
  if (!rounds || msm_scratch_bytes<F>(w, count, c, true, shift, k_max, s) <= room) return {w, rounds};
  return {fit(false), false};
}

// msm_acc_windows: acc[w] += wins[w] for the nwins windows (a streamed MSM's chunks).
template <class F>
__global__ void msm_acc_windows(Xyzz<F>* acc, const Xyzz<F>* wins, uint32_t nwins) {
  const uint32_t w = blockIdx.x * blockDim.x + threadIdx.x;
  if (w < nwins) store16(acc + w, acc[w].add(wins[w]));
}

// msm_run: the window sums of Σ s_i·P_i over device bases and scalars, written to
// h_windows, or (d_acc, a streamed MSM's chunk) added on the device into d_acc's windows,
// which must then have the width asked for in window_bits.
template <class F>
void msm_run(snarkpipe_ctx* ctx, const Affine<F>* bases, const Fr* scalars, uint64_t n, uint32_t window_bits,
             Xyzz<F>* h_windows, uint32_t* nwins_out, uint32_t* c_out, Xyzz<F>* d_acc = nullptr) {
  const MsmTuning tu(window_bits);
  const uint32_t c_req = tu.c;
  cudaStream_t s = ctx->stream;
  if (!bases || !scalars || !(h_windows || d_acc) || !nwins_out || !c_out) invalid("nil argument");
  if (d_acc && !c_req) invalid("msm: a chunk of a streamed MSM needs its window width");
  if (n >= (uint64_t(1) << 31)) invalid("msm: n must be < 2^31");
  if (n == 0 && d_acc) {
    *nwins_out = (kScalarBits + c_req - 1) / c_req;
    *c_out = c_req;
    return;
  }
  if (n == 0) {
    h_windows[0] = Xyzz<F>::inf();
    *nwins_out = 1;
    *c_out = 1;
    return;
  }
  if (c_req && (c_req < 2 || c_req > 24 || (kScalarBits + c_req - 1) / c_req > SNARKPIPE_MAX_WINDOWS))
    invalid("msm: window bits must be in [4, 24]");

  // Classify: ones to a bitmap (batch addition), zeros dropped, the rest compacted.
  Buf<uint32_t> ones((n + 31) / 32, s);
  SP_CUDA(cudaMemsetAsync(ones.p, 0, ((n + 31) / 32) * 4, s));
  Buf<uint32_t> idx(n, s), iota(n, s), nsel(1, s);
  uint32_t count = 0;
  {
    Buf<uint8_t> flags(n, s);
    msm_classify<<<blocks_for(n, 256), 256, 0, s>>>(scalars, uint32_t(n), flags.p, iota.p, ones.p);
    SP_LAUNCHED("msm_classify");
    size_t sel_bytes = 0;
    SP_CUDA(cub::DeviceSelect::Flagged(nullptr, sel_bytes, iota.p, flags.p, idx.p, nsel.p, int(n), s));
    Buf<uint8_t> sel_temp(sel_bytes, s);
    SP_CUDA(cub::DeviceSelect::Flagged(sel_temp.p, sel_bytes, iota.p, flags.p, idx.p, nsel.p, int(n), s));
    SP_CUDA(cudaMemcpyAsync(&count, nsel.p, 4, cudaMemcpyDeviceToHost, s));
    SP_CUDA(cudaStreamSynchronize(s));
  }

  // The window width follows the number of scalars left for the bucket method.
  // The buckets may take at most a quarter of the memory the device has to spare.
  const uint32_t c = c_req ? c_req : msm_window_bits(count ? count : 1, sizeof(Xyzz<F>), device_spare_bytes() / 4);
  const uint32_t nwins = (kScalarBits + c - 1) / c;
  const uint32_t B = 1u << (c - 1);
  Buf<Xyzz<F>> buckets(size_t(nwins) * B, s);
  if (count == 0) {
    SP_CUDA(cudaMemsetAsync(buckets.p, 0, size_t(nwins) * B * sizeof(Xyzz<F>), s));  // all at infinity (ZZ = 0)
  } else {
    // Windows per batch: keep the sorted arrays at <= 2^28 entries (with pair rounds,
    // whose scratch grows with them, msm_pair_batch decides).
    std::unique_lock<std::mutex> sizing(msm_sizing_mutex(ctx->device));
    const uint64_t batch_cap = tu.batch_log ? uint64_t(1) << tu.batch_log
                               : tu.rounds  ? msm_pair_batch<F>(count)
                                            : uint64_t(1) << 28;
    uint32_t nw_batch = uint32_t(batch_cap / count);
    if (nw_batch < 1) nw_batch = 1;
    if (nw_batch > nwins) nw_batch = nwins;
    const int shift = msm_thread_shift(ctx);
    const uint32_t k_max = tu.seg_log ? 1u << tu.seg_log : 256;
    MsmFit fit{nw_batch, tu.rounds > 0};
    if (!tu.batch_log) fit = msm_fit_batch<F>(nw_batch, count, c, tu.rounds > 0, shift, k_max, s);
    nw_batch = fit.windows;
    const uint64_t mmax = uint64_t(nw_batch) * count;
    const uint32_t K = msm_batch_segment_len(mmax, shift, k_max);
    const uint64_t nseg_max = (mmax + K - 1) / K;
    const uint32_t nkeys = nw_batch << c;

    Buf<uint32_t> keys_in(mmax, s), vals_in(mmax, s), keys_out(mmax, s), vals_out(mmax, s);
    Buf<uint32_t> start(nkeys, s), end(nkeys, s);
    Buf<Xyzz<F>> lo(nseg_max, s), hi(nseg_max, s);
#ifdef SP_MSM_SERIAL_FIXUP
    constexpr bool tree = false;
#else
    constexpr bool tree = true;
#endif
    Buf<MsmChain> chain(tree ? nseg_max : 0, s);
    Buf<uint32_t> max_len(1, s);
    // The sort's storage before the pair rounds' optional scratch, which takes only what
    // is left (and none when the batch was fitted without it).
    size_t temp_bytes = 0;
    SP_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys_in.p, keys_out.p, vals_in.p, vals_out.p,
                                            int(mmax), 0, int(c) + ceil_log2(nw_batch), s));
    Buf<uint8_t> temp(temp_bytes, s);
    MsmPairScratch<F> pairs;
    const uint32_t rounds = fit.rounds ? pairs.make(tu, mmax, nkeys, s) : 0;
    ctx->msm_calls++;
    if (tu.rounds && !rounds) ctx->msm_rounds_dropped++;
    if (tu.rounds && !tu.batch_log && mmax > kMsmPairBatch) ctx->msm_wide_batches++;  // msm_pair_batch's choice, if it fit
    const bool canon_once = msm_canon_once(tu, count, (nwins + nw_batch - 1) / nw_batch);
    Buf<Fr> canon(canon_once ? count : 0, s);
    sizing.unlock();
    if (canon_once) {
      msm_canonical<<<blocks_for(count, 256), 256, 0, s>>>(scalars, idx.p, count, canon.p);
      SP_LAUNCHED("msm_canonical");
    }

    for (uint32_t w0 = 0; w0 < nwins; w0 += nw_batch) {
      const uint32_t nw = (nwins - w0 < nw_batch) ? nwins - w0 : nw_batch;
      const uint32_t m = uint32_t(uint64_t(nw) * count);
      msm_digits<<<blocks_for(count, 256), 256, 0, s>>>(scalars, idx.p, count, canon_once ? canon.p : nullptr, int(c),
                                                         int(w0), int(nw), keys_in.p, vals_in.p);
      SP_LAUNCHED("msm_digits");
      size_t tb = temp_bytes;
      SP_CUDA(cub::DeviceRadixSort::SortPairs(temp.p, tb, keys_in.p, keys_out.p, vals_in.p, vals_out.p, int(m), 0,
                                              int(c) + ceil_log2(nw), s));
      SP_CUDA(cudaMemsetAsync(start.p, 0, size_t(nw << c) * 4, s));
      SP_CUDA(cudaMemsetAsync(end.p, 0, size_t(nw << c) * 4, s));
      msm_bounds<<<blocks_for(m, 256), 256, 0, s>>>(keys_out.p, m, start.p, end.p);
      SP_LAUNCHED("msm_bounds");
      Xyzz<F>* bk = buckets.p + size_t(w0) * B;
      uint32_t Kb = K;
      if (rounds) {
        const PairsLeft left = msm_pair_rounds<F>(*pairs.p, rounds, GatherSrc<F>{bases, vals_out.p}, keys_out.p, m,
                                                  nw << c, int(c), start.p, end.p, s);
        using DS = typename PairOut<F>::Src;
        const DS pts = pairs.p->out(left.which).src();
        const uint32_t* pkeys = pairs.p->keys(left.which);
        const uint32_t M = left.count;
        Kb = msm_segment_len(M, nseg_max, k_max, shift);
        if (M) {
          msm_segments_dense<F, DS><<<blocks_for((M + Kb - 1) / Kb, 128), 128, 0, s>>>(pts, pkeys, M, Kb, int(c), start.p, end.p, bk, lo.p, hi.p);
          SP_LAUNCHED("msm_segments_dense");
          if (tree) msm_chain_tree<F>(pkeys, M, Kb, int(c), start.p, end.p, chain.p, max_len.p, lo.p, s);
        }
      } else {
        const uint32_t nseg = (m + K - 1) / K;
        msm_launch_segments<F>(tu, blocks_for(nseg, 128), s, bases, keys_out.p, vals_out.p, m, K, int(c), start.p,
                               end.p, bk, lo.p, hi.p);
        if (tree) msm_chain_tree<F>(keys_out.p, m, K, int(c), start.p, end.p, chain.p, max_len.p, lo.p, s);
      }
      msm_fixup<F><<<blocks_for(nw << c, 128), 128, 0, s>>>(nw << c, Kb, int(c), start.p, end.p, bk, lo.p, hi.p, tree);
      SP_LAUNCHED("msm_fixup");
    }
  }

  const uint32_t l_req = tu.reduce_log ? 1u << tu.reduce_log : 32;
  const uint32_t L = B < l_req ? B : l_req;
  const uint32_t G = B / L;
  Buf<Xyzz<F>> parts(size_t(nwins) * G, s), tmp(size_t(nwins) * G, s);
  const unsigned rblocks = blocks_for(nwins * G, kMsmReduceThreads);
  constexpr int kRA = MsmOccupancy<F>::RedA, kRB = MsmOccupancy<F>::RedB, RT = kMsmReduceThreads;
  switch (msm_occupancy(tu)) {
#ifndef SP_NO_MSM_VARIANTS
    case 2:
      msm_bucket_reduce_occ<F, kRA><<<rblocks, RT, 0, s>>>(buckets.p, nwins, B, L, parts.p);
      break;
    case 3:
      msm_bucket_reduce_occ<F, kRB><<<rblocks, RT, 0, s>>>(buckets.p, nwins, B, L, parts.p);
      break;
#endif
    default:
      msm_bucket_reduce<F><<<rblocks, RT, 0, s>>>(buckets.p, nwins, B, L, parts.p);
  }
  SP_LAUNCHED("msm_bucket_reduce");
  Xyzz<F>* wins = reduce_segments<F>(parts.p, tmp.p, nwins, G, s);

  // Scalars equal to one: plain batch addition, added to window 0 (weight 2^0).
  Buf<Xyzz<F>> ones_sum(1, s);
  batch_add<F>(bases, ones.p, n, ones_sum.p, s);
  add_into<F><<<1, 1, 0, s>>>(wins, ones_sum.p);
  SP_LAUNCHED("add_into");

  if (d_acc) {
    msm_acc_windows<F><<<1, nwins, 0, s>>>(d_acc, wins, nwins);
    SP_LAUNCHED("msm_acc_windows");
  } else {
    SP_CUDA(cudaMemcpyAsync(h_windows, wins, size_t(nwins) * sizeof(Xyzz<F>), cudaMemcpyDeviceToHost, s));
  }
  SP_CUDA(cudaStreamSynchronize(s));
  *nwins_out = nwins;
  *c_out = c;
}

// MsmCopyStream: a streamed MSM's copy stream and the events that say when each of the
// two chunk buffers has arrived. Its destructor waits for the copies in flight, so it is
// declared after the buffers they write (and destroyed before them).
struct MsmCopyStream {
  cudaStream_t s = nullptr;
  cudaEvent_t copied[2] = {nullptr, nullptr};
  MsmCopyStream() = default;
  void init() {
    SP_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (auto& e : copied) SP_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  }
  ~MsmCopyStream() {
    if (s) {
      cudaStreamSynchronize(s);
      cudaStreamDestroy(s);
    }
    for (auto e : copied)
      if (e) cudaEventDestroy(e);
  }
  MsmCopyStream(const MsmCopyStream&) = delete;
  MsmCopyStream& operator=(const MsmCopyStream&) = delete;
};

// msm_host_chunk: the bases per chunk of a streamed MSM of n bases: chunk_req if set,
// else as many as let the two chunk buffers take a third of the device's spare memory
// beyond the margin (the rest is the chunk MSMs' scratch), at least 2^16.
template <class F>
uint64_t msm_host_chunk(uint64_t n, uint64_t chunk_req) {
  uint64_t chunk = chunk_req;
  if (!chunk) {
    const uint64_t spare = device_spare_bytes(), margin = msm_spare_margin();
    const uint64_t room = spare > margin ? spare - margin : 0;
    chunk = room / 3 / (2 * sizeof(Affine<F>));
    if (chunk < (uint64_t(1) << 16)) chunk = uint64_t(1) << 16;
  }
  return chunk < n ? chunk : n;
}

// msm_run_host: msm_run over bases in host memory (page-locked for the copies to overlap
// the work), in chunks: the copy of chunk k+1 to one device buffer runs on its own stream
// while chunk k's MSM runs on the context's stream from the other. Every chunk uses one
// window width, chosen for the chunk's size, and adds its window sums into one set on the
// device; the result is the same point as msm_run's over the whole vector.
template <class F>
void msm_run_host(snarkpipe_ctx* ctx, const Affine<F>* h_bases, const Fr* scalars, uint64_t n, uint64_t chunk_req,
                  uint32_t window_bits, Xyzz<F>* h_windows, uint32_t* nwins_out, uint32_t* c_out) {
  if (!h_bases || !scalars || !h_windows || !nwins_out || !c_out) invalid("nil argument");
  if (n >= (uint64_t(1) << 31)) invalid("msm: n must be < 2^31");
  const MsmTuning tu(window_bits);
  if (n == 0) {
    h_windows[0] = Xyzz<F>::inf();
    *nwins_out = 1;
    *c_out = 1;
    return;
  }
  if (tu.c && (tu.c < 2 || tu.c > 24 || (kScalarBits + tu.c - 1) / tu.c > SNARKPIPE_MAX_WINDOWS))
    invalid("msm: window bits must be in [4, 24]");
  cudaStream_t s = ctx->stream;
  const uint64_t chunk = msm_host_chunk<F>(n, chunk_req);
  const uint64_t nchunks = (n + chunk - 1) / chunk;
  Buf<Affine<F>> buf0(chunk, s), buf1(nchunks > 1 ? chunk : 0, s);
  const uint32_t c = tu.c ? tu.c : msm_window_bits(chunk, sizeof(Xyzz<F>), device_spare_bytes() / 4);
  const uint32_t nwins = (kScalarBits + c - 1) / c;
  Buf<Xyzz<F>> acc(nwins, s);
  SP_CUDA(cudaMemsetAsync(acc.p, 0, size_t(nwins) * sizeof(Xyzz<F>), s));  // all at infinity (ZZ = 0)
  MsmCopyStream cs;
  cs.init();
  Affine<F>* bufs[2] = {buf0.p, buf1.p};
  const auto issue = [&](uint64_t k) {
    const uint64_t off = k * chunk, len = n - off < chunk ? n - off : chunk;
    SP_CUDA(cudaMemcpyAsync(bufs[k & 1], h_bases + off, len * sizeof(Affine<F>), cudaMemcpyHostToDevice, cs.s));
    SP_CUDA(cudaEventRecord(cs.copied[k & 1], cs.s));
  };
  issue(0);
  if (nchunks > 1) issue(1);
  const uint32_t wb = (window_bits & ~0xffu) | c;
  for (uint64_t k = 0; k < nchunks; k++) {
    const uint64_t off = k * chunk, len = n - off < chunk ? n - off : chunk;
    SP_CUDA(cudaStreamWaitEvent(s, cs.copied[k & 1], 0));
    uint32_t nw = 0, cc = 0;
    msm_run<F>(ctx, bufs[k & 1], scalars + off, len, wb, nullptr, &nw, &cc, acc.p);
    // msm_run waited for its stream: chunk k's buffer is free for chunk k+2.
    if (k + 2 < nchunks) issue(k + 2);
  }
  SP_CUDA(cudaMemcpyAsync(h_windows, acc.p, size_t(nwins) * sizeof(Xyzz<F>), cudaMemcpyDeviceToHost, s));
  SP_CUDA(cudaStreamSynchronize(s));
  *nwins_out = nwins;
  *c_out = c;
}

}  // namespace snarkpipe
