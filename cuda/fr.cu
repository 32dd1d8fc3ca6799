// ABI unit: Fr transforms (NTT, scaling, bit reversal, quotient) in the context's
// product arithmetic (ntt_ops.cuh), bench scalars and field self-test hooks.
#include <cstring>

#include "gen.cuh"
#include "ntt_ops.cuh"

using namespace snarkpipe;

namespace {

const NttOps& ops(const snarkpipe_ctx* ctx) {
  return ctx->arith == SNARKPIPE_ARITH_INT ? ntt_ops_int() : ntt_ops_fp64();
}

// ntt_flags: the transform flags with the tile chosen from the device's shared memory
// when the caller leaves it to the library: tiles of 2^11 elements where two or more
// blocks of them fit a multiprocessor (the H200 holds three, the A100 two), else 2^10
// (cards with 100 KB per multiprocessor, sm_86/89/120, hold one block of 2^11 but two of
// 2^10; not measured on such a card yet), and 2^10 where a 2^11 block does not fit at all.
// A block of a 2^27 transform's passes (9 stages each) takes the tile plus 256 twiddles
// of up to 40 bytes, and the device reserves 1 KB per block.
int32_t ntt_flags(const snarkpipe_ctx* ctx, int32_t flags) {
  constexpr int32_t kTileBits = 0x1f << 8;
  if ((flags & kTileBits) != 0 || ctx->smem_optin <= 0) return flags;
  constexpr int kLargeBlock = (1 << 11) * 32 + 256 * 40 + 1024;
  constexpr int kLargeTileMax = 86016;  // ntt_pass_smem(11) of the FP64 build (ntt.cuh): passes of 10 stages
  const bool large = ctx->smem_optin >= kLargeTileMax && ctx->smem_per_sm >= 2 * kLargeBlock;
  return large ? flags : flags | (10 << 8);
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
    ops(ctx).ntt(static_cast<Fr*>(d_data), int(lg_n), from_host<Fr>(h_root), ntt_flags(ctx, flags), ctx->stream);
  });
}

snarkpipe_status* snarkpipe_fr_ntt_coset(snarkpipe_ctx* ctx, void* d_data, uint32_t lg_n, const void* h_root,
                                         const void* h_c, const void* h_g, int32_t flags) {
  return guarded(ctx, [&] {
    if (!d_data || !h_root || !h_c || !h_g) invalid("nil argument");
    ops(ctx).ntt_coset(static_cast<Fr*>(d_data), int(lg_n), from_host<Fr>(h_root), from_host<Fr>(h_c),
                       from_host<Fr>(h_g), ntt_flags(ctx, flags), ctx->stream);
  });
}

snarkpipe_status* snarkpipe_fr_scale(snarkpipe_ctx* ctx, void* d_data, uint32_t lg_n, const void* h_c, const void* h_g,
                                     int32_t bitrev_index) {
  return guarded(ctx, [&] {
    if (!d_data || !h_c) invalid("nil argument");
    const Fr c = from_host<Fr>(h_c);
    if (h_g) {
      const Fr g = from_host<Fr>(h_g);
      ops(ctx).scale(static_cast<Fr*>(d_data), int(lg_n), c, &g, bitrev_index != 0, ctx->stream);
    } else {
      ops(ctx).scale(static_cast<Fr*>(d_data), int(lg_n), c, nullptr, false, ctx->stream);
    }
  });
}

snarkpipe_status* snarkpipe_fr_bitrev(snarkpipe_ctx* ctx, void* d_data, uint32_t lg_n) {
  return guarded(ctx, [&] {
    if (!d_data) invalid("nil argument");
    ops(ctx).bitrev(static_cast<Fr*>(d_data), int(lg_n), ctx->stream);
  });
}

snarkpipe_status* snarkpipe_fr_quotient(snarkpipe_ctx* ctx, void* d_a, void* d_b, void* d_c, uint32_t lg_n,
                                        const void* h_consts) {
  return guarded(ctx, [&] {
    if (!d_a || !d_b || !d_c || !h_consts) invalid("nil argument");
    Fr k[6];
    std::memcpy(k, h_consts, sizeof k);
    ops(ctx).quotient(static_cast<Fr*>(d_a), static_cast<Fr*>(d_b), static_cast<Fr*>(d_c), int(lg_n), k,
                      ntt_flags(ctx, 0), ctx->stream);
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
