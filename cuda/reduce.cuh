// Point reductions shared by the MSM and the bitmap batch addition: per-thread sums of
// the bases selected by a bitmap, and a segmented tree sum of XYZZ arrays.
#pragma once

#include "bls12_381.cuh"
#include "runtime.cuh"

namespace snarkpipe {

// batch_add_partials: thread t sums the bases whose bits are set in bitmap words
// [t·wpt, (t+1)·wpt), bits past n ignored, into out[t].
template <class F>
__global__ void batch_add_partials(const Affine<F>* __restrict__ bases, const uint32_t* __restrict__ bitmap,
                                   uint64_t n, uint32_t wpt, Xyzz<F>* __restrict__ out) {
  const uint64_t t = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const uint64_t nwords = (n + 31) / 32;
  const uint64_t w0 = t * wpt;
  if (w0 >= nwords) return;
  const uint64_t w1 = (w0 + wpt < nwords) ? w0 + wpt : nwords;
  Xyzz<F> acc = Xyzz<F>::inf();
  for (uint64_t w = w0; w < w1; w++) {
    uint32_t bits = bitmap[w];
    const uint64_t valid = n - w * 32;
    if (valid < 32) bits &= (1u << valid) - 1;
    while (bits) {
      const int b = __ffs(bits) - 1;
      bits &= bits - 1;
      acc = acc.add_affine(load16(bases + w * 32 + b));
    }
  }
  store16(out + t, acc);
}

// sum_chunks: the input is nseg segments of cnt points; out holds, per segment, the sums
// of consecutive chunks of r points (ceil(cnt/r) per segment, segments kept in order).
template <class F>
__global__ void sum_chunks(const Xyzz<F>* __restrict__ in, uint32_t nseg, uint32_t cnt, uint32_t r,
                           Xyzz<F>* __restrict__ out) {
  const uint32_t outcnt = (cnt + r - 1) / r;
  const uint64_t t = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= uint64_t(nseg) * outcnt) return;
  const uint64_t seg = t / outcnt, j = t % outcnt;
  const Xyzz<F>* src = in + seg * cnt + j * r;
  const uint32_t len = (cnt - j * r < r) ? uint32_t(cnt - j * r) : r;
  Xyzz<F> acc = load16(src);
  for (uint32_t q = 1; q < len; q++) acc = acc.add(load16(src + q));
  store16(out + t, acc);
}

template <class F>
__global__ void add_into(Xyzz<F>* a, const Xyzz<F>* b) {
  if (blockIdx.x == 0 && threadIdx.x == 0) store16(a, a->add(*b));
}

// reduce_segments sums each of nseg segments of cnt points of buf (clobbered) and returns
// the device pointer of the nseg results (inside buf or tmp). tmp holds >= nseg·ceil(cnt/2).
template <class F>
Xyzz<F>* reduce_segments(Xyzz<F>* buf, Xyzz<F>* tmp, uint32_t nseg, uint32_t cnt, cudaStream_t s) {
  const uint32_t r = 16;
  Xyzz<F>* src = buf;
  Xyzz<F>* dst = tmp;
  while (cnt > 1) {
    const uint32_t outcnt = (cnt + r - 1) / r;
    const uint64_t threads = uint64_t(nseg) * outcnt;
    sum_chunks<F><<<blocks_for(threads, 128), 128, 0, s>>>(src, nseg, cnt, r, dst);
    SP_LAUNCHED("sum_chunks");
    cnt = outcnt;
    Xyzz<F>* x = src;
    src = dst;
    dst = x;
  }
  return src;
}

// batch_add sums the bases selected by a device bitmap into *d_out (device).
template <class F>
void batch_add(const Affine<F>* bases, const uint32_t* d_bitmap, uint64_t n, Xyzz<F>* d_out, cudaStream_t s) {
  const uint32_t wpt = 8;
  const uint64_t nwords = (n + 31) / 32;
  uint64_t parts = (nwords + wpt - 1) / wpt;
  if (parts == 0) parts = 1;
  Buf<Xyzz<F>> a(parts, s), b(parts, s);
  if (nwords == 0) {
    Xyzz<F> inf = Xyzz<F>::inf();
    SP_CUDA(cudaMemcpyAsync(d_out, &inf, sizeof inf, cudaMemcpyHostToDevice, s));
    SP_CUDA(cudaStreamSynchronize(s));
    return;
  }
  batch_add_partials<F><<<blocks_for(parts, 128), 128, 0, s>>>(bases, d_bitmap, n, wpt, a.p);
  SP_LAUNCHED("batch_add_partials");
  Xyzz<F>* r = reduce_segments<F>(a.p, b.p, 1, uint32_t(parts), s);
  SP_CUDA(cudaMemcpyAsync(d_out, r, sizeof(Xyzz<F>), cudaMemcpyDeviceToDevice, s));
}

}  // namespace snarkpipe
