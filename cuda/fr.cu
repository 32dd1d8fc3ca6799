// ABI unit: Fr transforms (NTT, scaling, bit reversal, quotient), bench scalars and
// field self-test hooks.
#include <cstring>

#include "gen.cuh"
#include "ntt.cuh"
#include "quotient.cuh"

using namespace snarkpipe;

namespace {

// snarkpipe_fr_ntt flags: bit 0 DIT; bits 8..12 the tile log; bit 13 the legacy kernel
// (ntt_pass), bit 14 no direct twiddle tables, bit 15 the radix-8 kernel capped at 128
// registers, all for comparisons (cuda.Lib.NTTTile
// passes its tileLog argument into bits 8..15: a tileLog of 0x20 | tile selects the
// legacy kernel).
constexpr int32_t kNttFlagLegacy = 1 << 13;
constexpr int32_t kNttFlagNoDirect = 1 << 14;
constexpr int32_t kNttFlagBounded = 1 << 15;

NttOptions ntt_options(int32_t flags) {
  NttOptions o;
  o.tile_log = (flags >> 8) & 0x1f;
  o.legacy = (flags & kNttFlagLegacy) != 0;
  o.no_direct_twiddles = (flags & kNttFlagNoDirect) != 0;
  o.bounded = (flags & kNttFlagBounded) != 0;
  return o;
}

template <class F>
F from_host(const void* p) {
  F r;
  std::memcpy(&r, p, sizeof r);
  return r;
}

}  // namespace

extern "C" {

snarkpipe_status* snarkpipe_fr_ntt(snarkpipe_ctx* ctx, void* d_data, uint32_t lg_n, const void* h_root, int32_t flags) {
  return guarded(ctx, [&] {
    if (!d_data || !h_root) invalid("nil argument");
    const NttOptions o = ntt_options(flags);
    ntt_run(static_cast<Fr*>(d_data), int(lg_n), from_host<Fr>(h_root), (flags & 1) != 0, ctx->stream, o);
  });
}

snarkpipe_status* snarkpipe_fr_ntt_coset(snarkpipe_ctx* ctx, void* d_data, uint32_t lg_n, const void* h_root,
                                         const void* h_c, const void* h_g, int32_t flags) {
  return guarded(ctx, [&] {
    if (!d_data || !h_root || !h_c || !h_g) invalid("nil argument");
    if (lg_n > 28) invalid("ntt: lg_n must be in [0, 28]");
    Fr* data = static_cast<Fr*>(d_data);
    const Fr c = from_host<Fr>(h_c), g = from_host<Fr>(h_g);
    NttOptions o = ntt_options(flags);
    PowTablesBuf coset(g, int(lg_n), ctx->stream, &c);
    o.fuse.pre = NttScaleSpec{coset.view(), true, false};
    o.coset_g = &g;
    ntt_run(data, int(lg_n), from_host<Fr>(h_root), (flags & 1) != 0, ctx->stream, o);
  });
}

snarkpipe_status* snarkpipe_fr_scale(snarkpipe_ctx* ctx, void* d_data, uint32_t lg_n, const void* h_c, const void* h_g,
                                     int32_t bitrev_index) {
  return guarded(ctx, [&] {
    if (!d_data || !h_c) invalid("nil argument");
    const Fr c = from_host<Fr>(h_c);
    if (h_g) {
      const Fr g = from_host<Fr>(h_g);
      scale_run(static_cast<Fr*>(d_data), int(lg_n), c, &g, bitrev_index != 0, ctx->stream);
    } else {
      scale_run(static_cast<Fr*>(d_data), int(lg_n), c, nullptr, false, ctx->stream);
    }
  });
}

snarkpipe_status* snarkpipe_fr_bitrev(snarkpipe_ctx* ctx, void* d_data, uint32_t lg_n) {
  return guarded(ctx, [&] {
    if (!d_data) invalid("nil argument");
    bitrev_run(static_cast<Fr*>(d_data), int(lg_n), ctx->stream);
  });
}

snarkpipe_status* snarkpipe_fr_quotient(snarkpipe_ctx* ctx, void* d_a, void* d_b, void* d_c, uint32_t lg_n,
                                        const void* h_consts) {
  return guarded(ctx, [&] {
    if (!d_a || !d_b || !d_c || !h_consts) invalid("nil argument");
    Fr k[6];
    std::memcpy(k, h_consts, sizeof k);
    quotient_run(static_cast<Fr*>(d_a), static_cast<Fr*>(d_b), static_cast<Fr*>(d_c), int(lg_n), k, ctx->stream);
  });
}

snarkpipe_status* snarkpipe_fr_gen_scalars(snarkpipe_ctx* ctx, void* d_out, uint64_t n, uint64_t seed,
                                           uint32_t zero_permille, uint32_t one_permille, const void* h_one) {
  return guarded(ctx, [&] {
    if (!d_out || !h_one) invalid("nil argument");
    if (zero_permille + one_permille > 1000) invalid("gen_scalars: zero + one per mille > 1000");
    gen_scalars<<<blocks_for(n, 256), 256, 0, ctx->stream>>>(static_cast<Fr*>(d_out), n, seed, zero_permille,
                                                            one_permille, from_host<Fr>(h_one));
    SP_LAUNCHED("gen_scalars");
  });
}

snarkpipe_status* snarkpipe_fp_mul_test(snarkpipe_ctx* ctx, const void* h_a, const void* h_b, uint64_t n, void* h_mul,
                                        void* h_add, void* h_sub) {
  return guarded(ctx, [&] { field_ops_run<Fp>(h_a, h_b, n, h_mul, h_add, h_sub, ctx->stream); });
}

snarkpipe_status* snarkpipe_fr_mul_test(snarkpipe_ctx* ctx, const void* h_a, const void* h_b, uint64_t n, void* h_mul,
                                        void* h_add, void* h_sub) {
  return guarded(ctx, [&] { field_ops_run<Fr>(h_a, h_b, n, h_mul, h_add, h_sub, ctx->stream); });
}

}  // extern "C"
