// Batch-affine pair rounds of the MSM bucket accumulation (msm.cuh).
//
// After the sort, the entries of every bucket lie in one run of the sorted array. A round
// adds the entries of each run two by two in affine coordinates, so every run shrinks to
// ceil(len/2) entries, and writes them, still sorted, into a dense array of points. An
// affine addition costs one inversion and three products (λ = Δy/Δx, λ², λ·(x₁ − x₃));
// the inversions of a whole round share one field inversion per kInvGroup·kPairSlots
// pairs through Montgomery's trick (three more products per pair), so a pair costs about
// 6.75 products against the 10 of a mixed XYZZ addition. The XYZZ accumulation then runs
// on what the rounds leave (msm_segments over DenseSrc).
//
// One round is five launches over the round's output slots (one slot per pair and per
// odd entry left over at the end of a run):
//   pair_counts   per key: the run's slot count ceil(len/2) (zero-magnitude digits: 0).
//   scan          cub exclusive sum of the counts: each run's first output slot.
//   pair_plan     per input entry at an even position of its run: its slot's source.
//   pair_prefix   per thread kPairSlots slots (interleaved, stride S = thread count): the
//                 denominators' running products, each kept in the slot's x until the
//                 finish reads it back; the thread's total goes to tot[t].
//   invert_group  per thread kInvGroup totals: the same trick once more and one binary
//                 Euclidean inversion; tot[t] becomes 1/tot[t].
//   pair_finish   per thread, its slots in reverse: 1/Δ from the running products,
//                 then the affine sum, written over the slot.
// The special cases are exact: a point at infinity (affine (0, 0)) passes the other point
// through, P + P is an affine doubling (denominator 2y), P + (−P) gives infinity, and all
// three put a factor 1 into the running product.
#pragma once

#include <cub/device/device_scan.cuh>

#include "reduce.cuh"

namespace snarkpipe {

constexpr int kPairSlots = 16;  // pair slots per pair_prefix / pair_finish thread
constexpr int kInvGroup = 64;   // thread totals per invert_group thread
constexpr uint32_t kSingle = 0x80000000u;

// GatherSrc reads round 0's points: the sorted values are base indices with the digit's
// sign in bit 31. DenseSrc reads a round's output.
template <class F>
struct GatherSrc {
  const Affine<F>* bases;
  const uint32_t* vals;
  __device__ __forceinline__ Affine<F> point(uint32_t i) const {
    const uint32_t v = vals[i];
    const Affine<F> p = load16(bases + (v & 0x7fffffffu));
    return (v >> 31) ? p.neg() : p;
  }
  __device__ __forceinline__ F x(uint32_t i) const { return load16(&bases[vals[i] & 0x7fffffffu].x); }
};

template <class F>
struct DenseSrc {
  const Affine<F>* pts;
  __device__ __forceinline__ Affine<F> point(uint32_t i) const { return load16(pts + i); }
  __device__ __forceinline__ F x(uint32_t i) const { return load16(&pts[i].x); }
};

// SoaSrc reads a round's output kept as separate x and y arrays (SoaOut).
template <class F>
struct SoaSrc {
  const F* xs;
  const F* ys;
  __device__ __forceinline__ Affine<F> point(uint32_t i) const { return Affine<F>{load16(xs + i), load16(ys + i)}; }
  __device__ __forceinline__ F x(uint32_t i) const { return load16(xs + i); }
};

// The layout of a round's output points, which also holds the running products of the
// denominators between pair_prefix and pair_finish (in the x of each slot). SoaOut, the
// default: x and y in separate arrays, so the running products and the x that the next
// round's prefix reads are contiguous across a warp. AosOut (-DSP_MSM_AOS, comparisons):
// an Affine array, x every other 48 bytes (G1), measured slower (docs/BENCHMARKS.md).
template <class F>
struct AosOut {
  using Src = DenseSrc<F>;
  Affine<F>* pts;
  __device__ __forceinline__ void store_x(uint32_t o, const F& v) const { store16(&pts[o].x, v); }
  __device__ __forceinline__ F load_x(uint32_t o) const { return load16(&pts[o].x); }
  __device__ __forceinline__ void store(uint32_t o, const Affine<F>& a) const { store16(pts + o, a); }
  Src src() const { return Src{pts}; }
  static AosOut view(Affine<F>* buf, uint64_t) { return AosOut{buf}; }
};

template <class F>
struct SoaOut {
  using Src = SoaSrc<F>;
  F* xs;
  F* ys;
  __device__ __forceinline__ void store_x(uint32_t o, const F& v) const { store16(xs + o, v); }
  __device__ __forceinline__ F load_x(uint32_t o) const { return load16(xs + o); }
  __device__ __forceinline__ void store(uint32_t o, const Affine<F>& a) const {
    store16(xs + o, a.x);
    store16(ys + o, a.y);
  }
  Src src() const { return Src{xs, ys}; }
  // view: a buffer of cap Affine points seen as cap x then cap y.
  static SoaOut view(Affine<F>* buf, uint64_t cap) {
    F* xs = reinterpret_cast<F*>(buf);
    return SoaOut{xs, xs + cap};
  }
};

#ifdef SP_MSM_AOS
template <class F>
using PairOut = AosOut<F>;
#else
template <class F>
using PairOut = SoaOut<F>;
#endif

// PairKind: how a + b is formed. kChord and kTangent take λ = num/den.
enum PairKind : uint32_t { kChord, kTangent, kTakeA, kTakeB, kInfinity };

template <class F>
__device__ __forceinline__ PairKind pair_kind(const Affine<F>& a, const Affine<F>& b) {
  if (b.is_inf()) return kTakeA;
  if (a.is_inf()) return kTakeB;
  if (a.x != b.x) return kChord;
  return (a.y == b.y) ? kTangent : kInfinity;
}

// pair_den: the denominator of λ for the pair at src, src + 1 (1 when there is none),
// given their x coordinates. The points are read only when the x are zero or equal.
template <class F, class Src>
__device__ __forceinline__ F pair_den(const Src& src, uint32_t i, const F& xa, const F& xb) {
  if (!xa.is_zero() && !xb.is_zero() && xa != xb) return xb - xa;
  const Affine<F> a = src.point(i), b = src.point(i + 1);
  switch (pair_kind(a, b)) {
    case kChord:
      return b.x - a.x;
    case kTangent:
      return a.y.dbl();
    default:
      return F::one();
  }
}

static __global__ void msm_pair_counts(uint32_t nkeys, int c, const uint32_t* __restrict__ start,
                                       const uint32_t* __restrict__ end, uint32_t* __restrict__ cnt) {
  const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= nkeys) return;
  const uint32_t len = end[k] - start[k];
  cnt[k] = (k & ((1u << c) - 1)) ? (len + 1) / 2 : 0;
}

// msm_pair_plan: entry i at an even position q of its run owns slot ostart[k] + q/2, whose
// source is i (and i + 1 unless i ends the run: kSingle).
static __global__ void msm_pair_plan(const uint32_t* __restrict__ keys, uint32_t m, int c,
                                     const uint32_t* __restrict__ start, const uint32_t* __restrict__ end,
                                     const uint32_t* __restrict__ ostart, uint32_t* __restrict__ plan,
                                     uint32_t* __restrict__ okeys) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  const uint32_t k = keys[i];
  if ((k & ((1u << c) - 1)) == 0) return;
  const uint32_t q = i - start[k];
  if (q & 1) return;
  const uint32_t o = ostart[k] + q / 2;
  plan[o] = i | ((i + 1 >= end[k]) ? kSingle : 0u);
  okeys[o] = k;
}

// msm_pair_bounds: the output runs become the next round's start/end.
static __global__ void msm_pair_bounds(uint32_t nkeys, const uint32_t* __restrict__ ostart,
                                       const uint32_t* __restrict__ cnt, uint32_t* __restrict__ start,
                                       uint32_t* __restrict__ end) {
  const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= nkeys) return;
  start[k] = ostart[k];
  end[k] = ostart[k] + cnt[k];
}

// msm_pair_prefix: the loads of a thread's next slot are issued before the product of the
// current one (the running product is a serial chain; the loads are not).
template <class F, class Src, class Out>
static __global__ void msm_pair_prefix(Src src, const uint32_t* __restrict__ plan, uint32_t M, uint32_t S, Out out,
                                       F* __restrict__ tot) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= S) return;  // S <= M, so slot t exists
  F acc = F::one();
  uint32_t o = t, p = plan[o];
  F xa = F::zero(), xb = F::zero();
  if (!(p & kSingle)) {
    xa = src.x(p);
    xb = src.x(p + 1);
  }
  for (;;) {
    const uint32_t on = o + S;
    uint32_t pn = kSingle;
    F xan = F::zero(), xbn = F::zero();
    if (on < M) {
      pn = plan[on];
      if (!(pn & kSingle)) {
        xan = src.x(pn);
        xbn = src.x(pn + 1);
      }
    }
    if (!(p & kSingle)) acc = acc * pair_den<F>(src, p, xa, xb);
    out.store_x(o, acc);
    if (on >= M) break;
    o = on;
    p = pn;
    xa = xan;
    xb = xbn;
  }
  store16(tot + t, acc);
}

// msm_invert_group: tot[g·kInvGroup + j] ← 1/tot[...] for the thread's group, with pre as
// the running products' scratch. Every total is nonzero (its factors are).
template <class F>
static __global__ void msm_invert_group(F* __restrict__ tot, uint32_t n, F* __restrict__ pre) {
  const uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;
  const uint64_t b = uint64_t(g) * kInvGroup;
  if (b >= n) return;
  const uint32_t e = uint32_t((b + kInvGroup < n) ? b + kInvGroup : n);
  F acc = load16(tot + b);
  store16(pre + b, acc);
  for (uint32_t j = uint32_t(b) + 1; j < e; j++) {
    acc = acc * load16(tot + j);
    store16(pre + j, acc);
  }
  F inv = acc.inv_binary();
  for (uint32_t j = e - 1; j > uint32_t(b); j--) {
    const F x = load16(tot + j);
    store16(tot + j, inv * load16(pre + j - 1));
    inv = inv * x;
  }
  store16(tot + b, inv);
}

template <class F, class Src, class Out>
static __global__ void msm_pair_finish(Src src, const uint32_t* __restrict__ plan, uint32_t M, uint32_t S, Out out,
                                       const F* __restrict__ tot) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= S) return;
  F inv = load16(tot + t);  // 1 / (product of every denominator of the thread)
  const uint32_t nslots = (M - t + S - 1) / S;
  for (uint32_t j = nslots; j-- > 0;) {
    const uint32_t o = t + j * S;
    const uint32_t p = plan[o];
    const uint32_t i = p & ~kSingle;
    const Affine<F> a = src.point(i);
    if (p & kSingle) {
      out.store(o, a);
      continue;
    }
    const Affine<F> b = src.point(i + 1);
    const PairKind kind = pair_kind(a, b);
    Affine<F> r;
    if (kind == kTakeA) {
      r = a;
    } else if (kind == kTakeB) {
      r = b;
    } else if (kind == kInfinity) {
      r = Affine<F>{F::zero(), F::zero()};
    } else {
      // inv is 1/(d_0·…·d_j); the running product d_0·…·d_(j−1) sits in the previous slot.
      const F den = (kind == kChord) ? b.x - a.x : a.y.dbl();
      const F dinv = j ? inv * out.load_x(o - S) : inv;
      inv = inv * den;
      F num;
      if (kind == kChord) {
        num = b.y - a.y;
      } else {
        const F xx = a.x.sqr();
        num = xx.dbl() + xx;
      }
      const F lambda = num * dinv;
      const F x3 = lambda.sqr() - a.x - b.x;
      r = Affine<F>{x3, lambda * (a.x - x3) - a.y};
    }
    out.store(o, r);
  }
}

// MsmPairBuffers: the scratch of the rounds for batches of at most mmax sorted entries
// over nkeys keys. Round r writes buffer r % 2; a round's output has at most
// (entries + runs)/2 slots, runs <= min(entries, nkeys).
template <class F>
struct MsmPairBuffers {
  static uint64_t slots_after(uint64_t entries, uint64_t nkeys) {
    return (entries + (entries < nkeys ? entries : nkeys)) / 2 + 1;
  }
  // bytes: the device memory of the buffers for mmax entries over nkeys keys (the scan's
  // small temporary storage aside).
  static uint64_t bytes(uint64_t mmax, uint32_t nkeys) {
    const uint64_t c0 = slots_after(mmax, nkeys), c1 = slots_after(c0, nkeys);
    return (c0 + c1) * (sizeof(Affine<F>) + sizeof(uint32_t)) + c0 * sizeof(uint32_t) +
           2 * uint64_t(nkeys) * sizeof(uint32_t) + 2 * (c0 / kPairSlots + 1) * sizeof(F);
  }
  uint64_t cap[2];
  Buf<Affine<F>> pts0, pts1;
  Buf<uint32_t> keys0, keys1, plan, cnt, ostart;
  Buf<F> tot, pre;
  size_t scan_bytes;
  Buf<uint8_t> scan_temp;
  MsmPairBuffers(uint64_t mmax, uint32_t nkeys, cudaStream_t s)
      : cap{slots_after(mmax, nkeys), slots_after(slots_after(mmax, nkeys), nkeys)},
        pts0(cap[0], s), pts1(cap[1], s), keys0(cap[0], s), keys1(cap[1], s), plan(cap[0], s), cnt(nkeys, s),
        ostart(nkeys, s), tot(cap[0] / kPairSlots + 1, s), pre(cap[0] / kPairSlots + 1, s),
        scan_bytes(scan_size(nkeys, s)), scan_temp(scan_bytes, s) {}
  // out, keys: round output buffer `which` (points in the build's layout, and keys).
  PairOut<F> out(int which) const { return PairOut<F>::view(which ? pts1.p : pts0.p, cap[which]); }
  uint32_t* keys(int which) const { return which ? keys1.p : keys0.p; }
  static size_t scan_size(uint32_t nkeys, cudaStream_t s) {
    size_t bytes = 0;
    SP_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, bytes, static_cast<uint32_t*>(nullptr),
                                          static_cast<uint32_t*>(nullptr), int(nkeys), s));
    return bytes;
  }
};

// MsmPairScratch holds the rounds' buffers when there are rounds and they fit.
template <class F>
struct MsmPairScratch {
  MsmPairBuffers<F>* p = nullptr;
  MsmPairScratch() = default;
  MsmPairScratch(const MsmPairScratch&) = delete;
  MsmPairScratch& operator=(const MsmPairScratch&) = delete;
  ~MsmPairScratch() { delete p; }

  // make allocates the buffers for tu.rounds rounds and returns the rounds to run: 0 when
  // there are none, or when the device has no room for their scratch (~100 bytes per
  // entry for G1, ~200 for G2) even after the memory pool returned what it caches: the
  // MSM then accumulates in XYZZ only, slower but with the same result, instead of
  // failing. tu.fail_pairs simulates a full device for the tests.
  template <class Tuning>
  uint32_t make(const Tuning& tu, uint64_t mmax, uint32_t nkeys, cudaStream_t s) {
    if (!tu.rounds) return 0;
    for (int attempt = 0; attempt < 2; attempt++) {
      try {
        if (tu.fail_pairs) throw Error{SNARKPIPE_ENOMEM, "msm: pair round scratch (simulated)"};
        p = new MsmPairBuffers<F>(mmax, nkeys, s);
        return tu.rounds;
      } catch (const Error& e) {
        if (e.code != SNARKPIPE_ENOMEM) throw;
        (void)cudaGetLastError();  // the failed allocation is not a launch error
      }
      if (attempt == 0) trim_pool(s);
    }
    return 0;
  }

  // trim_pool returns the device pool's cached, unused memory (the context's mem_trim).
  static void trim_pool(cudaStream_t s) {
    int device = 0;
    cudaMemPool_t pool;
    SP_CUDA(cudaGetDevice(&device));
    SP_CUDA(cudaDeviceGetDefaultMemPool(&pool, device));
    SP_CUDA(cudaStreamSynchronize(s));
    SP_CUDA(cudaMemPoolTrimTo(pool, 0));
  }
};

// msm_pair_round runs one round from (src, keys, m entries) into buffer `which` and returns
// the number of output slots; start/end (over nkeys keys) describe the output's runs after.
template <class F, class Src>
uint32_t msm_pair_round(MsmPairBuffers<F>& pb, int which, const Src& src, const uint32_t* keys, uint32_t m,
                        uint32_t nkeys, int c, uint32_t* start, uint32_t* end, cudaStream_t s) {
  msm_pair_counts<<<blocks_for(nkeys, 256), 256, 0, s>>>(nkeys, c, start, end, pb.cnt.p);
  SP_LAUNCHED("msm_pair_counts");
  size_t bytes = pb.scan_bytes;
  SP_CUDA(cub::DeviceScan::ExclusiveSum(pb.scan_temp.p, bytes, pb.cnt.p, pb.ostart.p, int(nkeys), s));
  uint32_t last[2] = {0, 0};
  SP_CUDA(cudaMemcpyAsync(&last[0], pb.ostart.p + nkeys - 1, 4, cudaMemcpyDeviceToHost, s));
  SP_CUDA(cudaMemcpyAsync(&last[1], pb.cnt.p + nkeys - 1, 4, cudaMemcpyDeviceToHost, s));
  SP_CUDA(cudaStreamSynchronize(s));
  const uint32_t M = last[0] + last[1];
  if (M > pb.cap[which]) invalid("msm: pair round larger than its buffer");  // cannot happen (slots_after)
  using Out = PairOut<F>;  // (a plain name: the host emulation rewrites launches by pattern)
  const Out out = pb.out(which);
  uint32_t* okeys = pb.keys(which);
  if (m) {
    msm_pair_plan<<<blocks_for(m, 256), 256, 0, s>>>(keys, m, c, start, end, pb.ostart.p, pb.plan.p, okeys);
    SP_LAUNCHED("msm_pair_plan");
  }
  msm_pair_bounds<<<blocks_for(nkeys, 256), 256, 0, s>>>(nkeys, pb.ostart.p, pb.cnt.p, start, end);
  SP_LAUNCHED("msm_pair_bounds");
  if (M == 0) return 0;
  const uint32_t S = (M + kPairSlots - 1) / kPairSlots;
  msm_pair_prefix<F, Src, Out><<<blocks_for(S, 128), 128, 0, s>>>(src, pb.plan.p, M, S, out, pb.tot.p);
  SP_LAUNCHED("msm_pair_prefix");
  msm_invert_group<F><<<blocks_for((S + kInvGroup - 1) / kInvGroup, 64), 64, 0, s>>>(pb.tot.p, S, pb.pre.p);
  SP_LAUNCHED("msm_invert_group");
  msm_pair_finish<F, Src, Out><<<blocks_for(S, 128), 128, 0, s>>>(src, pb.plan.p, M, S, out, pb.tot.p);
  SP_LAUNCHED("msm_pair_finish");
  return M;
}

}  // namespace snarkpipe
