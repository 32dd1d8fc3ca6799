// ABI unit: benchmark-parameter setup helpers (setup.cuh).
#include <cstring>

#include "setup.cuh"

using namespace snarkpipe;

namespace {
Fr fr_from_host(const void* p) {
  Fr r;
  std::memcpy(&r, p, sizeof r);
  return r;
}
}  // namespace

extern "C" {

snarkpipe_status* snarkpipe_fr_lagrange(snarkpipe_ctx* ctx, void* d_out, uint32_t lg_n, const void* h_omega,
                                        const void* h_tau, const void* h_scale) {
  return guarded(ctx, [&] {
    if (!d_out || !h_omega || !h_tau || !h_scale) invalid("nil argument");
    lagrange_run(static_cast<Fr*>(d_out), int(lg_n), fr_from_host(h_omega), fr_from_host(h_tau),
                 fr_from_host(h_scale), ctx->stream);
  });
}

snarkpipe_status* snarkpipe_fr_powers(snarkpipe_ctx* ctx, void* d_out, uint64_t n, const void* h_base,
                                      const void* h_scale) {
  return guarded(ctx, [&] {
    if ((n && !d_out) || !h_base || !h_scale) invalid("nil argument");
    powers_run(static_cast<Fr*>(d_out), n, fr_from_host(h_base), fr_from_host(h_scale), ctx->stream);
  });
}

snarkpipe_status* snarkpipe_fr_lincomb(snarkpipe_ctx* ctx, void* d_out, const void* d_u, const void* d_v,
                                       const void* d_w, uint64_t n, const void* h_k) {
  return guarded(ctx, [&] {
    if (n && (!d_out || !d_u || !d_v || !d_w || !h_k)) invalid("nil argument");
    Fr k[3];
    if (h_k) std::memcpy(k, h_k, sizeof k);
    lincomb_run(static_cast<Fr*>(d_out), static_cast<const Fr*>(d_u), static_cast<const Fr*>(d_v),
                static_cast<const Fr*>(d_w), n, k, ctx->stream);
  });
}

snarkpipe_status* snarkpipe_g1_fixed_mul(snarkpipe_ctx* ctx, void* d_out, const void* d_scalars, uint64_t n,
                                         const void* h_table) {
  return guarded(ctx, [&] {
    fixed_mul_run<Fp>(static_cast<Affine<Fp>*>(d_out), static_cast<const Fr*>(d_scalars), n,
                      static_cast<const Affine<Fp>*>(h_table), ctx->stream);
  });
}

snarkpipe_status* snarkpipe_g2_fixed_mul(snarkpipe_ctx* ctx, void* d_out, const void* d_scalars, uint64_t n,
                                         const void* h_table) {
  return guarded(ctx, [&] {
    fixed_mul_run<Fp2>(static_cast<Affine<Fp2>*>(d_out), static_cast<const Fr*>(d_scalars), n,
                       static_cast<const Affine<Fp2>*>(h_table), ctx->stream);
  });
}

}  // extern "C"
