// The G1 and G2 ABI units are this file instantiated for one curve (SP_CURVE = g1|g2,
// SP_FIELD = the base field type).
#pragma once

#include "gen.cuh"
#include "msm.cuh"

#define SP_CAT2(a, b) a##b
#define SP_CAT(a, b) SP_CAT2(a, b)
#define SP_FN(curve, name) SP_CAT(SP_CAT(SP_CAT(snarkpipe_, curve), _), name)

using namespace snarkpipe;

extern "C" {

snarkpipe_status* SP_FN(SP_CURVE, msm)(snarkpipe_ctx* ctx, const void* d_bases, const void* d_scalars, uint64_t n,
                                       uint32_t window_bits, void* h_windows, uint32_t* nwins, uint32_t* c) {
  return guarded(ctx, [&] {
    msm_run<SP_FIELD>(ctx, static_cast<const Affine<SP_FIELD>*>(d_bases), static_cast<const Fr*>(d_scalars), n,
                      window_bits, static_cast<Xyzz<SP_FIELD>*>(h_windows), nwins, c);
  });
}

snarkpipe_status* SP_FN(SP_CURVE, msm_host)(snarkpipe_ctx* ctx, const void* h_bases, const void* d_scalars,
                                            uint64_t n, uint64_t chunk, uint32_t window_bits, void* h_windows,
                                            uint32_t* nwins, uint32_t* c) {
  return guarded(ctx, [&] {
    msm_run_host<SP_FIELD>(ctx, static_cast<const Affine<SP_FIELD>*>(h_bases), static_cast<const Fr*>(d_scalars), n,
                           chunk, window_bits, static_cast<Xyzz<SP_FIELD>*>(h_windows), nwins, c);
  });
}

snarkpipe_status* SP_FN(SP_CURVE, batch_add)(snarkpipe_ctx* ctx, const void* d_bases, const void* h_bitmap,
                                             uint64_t n, void* h_out) {
  return guarded(ctx, [&] {
    if (!d_bases || !h_out || (n && !h_bitmap)) invalid("nil argument");
    const uint64_t nwords = (n + 31) / 32;
    Buf<uint32_t> bitmap(nwords, ctx->stream);
    Buf<Xyzz<SP_FIELD>> out(1, ctx->stream);
    if (nwords)
      SP_CUDA(cudaMemcpyAsync(bitmap.p, h_bitmap, nwords * 4, cudaMemcpyHostToDevice, ctx->stream));
    batch_add<SP_FIELD>(static_cast<const Affine<SP_FIELD>*>(d_bases), bitmap.p, n, out.p, ctx->stream);
    SP_CUDA(cudaMemcpyAsync(h_out, out.p, sizeof(Xyzz<SP_FIELD>), cudaMemcpyDeviceToHost, ctx->stream));
  });
}

snarkpipe_status* SP_FN(SP_CURVE, gen_bases)(snarkpipe_ctx* ctx, void* d_out, uint64_t n, const void* h_a,
                                             uint32_t lg_a, const void* h_b, uint64_t nb) {
  return guarded(ctx, [&] {
    gen_bases_run<SP_FIELD>(static_cast<Affine<SP_FIELD>*>(d_out), n, static_cast<const Affine<SP_FIELD>*>(h_a),
                            lg_a, static_cast<const Affine<SP_FIELD>*>(h_b), nb, ctx->stream);
  });
}

}  // extern "C"
