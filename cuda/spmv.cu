// ABI unit: sparse R1CS products and gathers over Fr (spmv.cuh).
#include <cstring>

#include "spmv.cuh"

using namespace snarkpipe;

extern "C" {

snarkpipe_status* snarkpipe_fr_csr_eval(snarkpipe_ctx* ctx, const void* d_rowptr, const void* d_col,
                                        const void* d_coeff, const void* d_coeffs, uint64_t rows, const void* d_z,
                                        void* d_out, uint64_t n_out) {
  return guarded(ctx, [&] {
    if (!d_out || (rows > 0 && (!d_rowptr || !d_col || !d_coeff || !d_coeffs || !d_z))) invalid("nil argument");
    const CsrView m{static_cast<const uint64_t*>(d_rowptr), static_cast<const uint32_t*>(d_col),
                    static_cast<const uint32_t*>(d_coeff), static_cast<const Fr*>(d_coeffs)};
    csr_eval_run(m, static_cast<const Fr*>(d_z), static_cast<Fr*>(d_out), rows, n_out, ctx->stream);
  });
}

snarkpipe_status* snarkpipe_fr_csr_eval_host(snarkpipe_ctx* ctx, const void* h_rowptr, const void* h_col,
                                             const void* h_coeff, const void* d_coeffs, uint64_t rows,
                                             const void* d_z, void* d_out, uint64_t n_out, uint64_t chunk_terms) {
  return guarded(ctx, [&] {
    if (!d_out || (rows > 0 && (!h_rowptr || !h_col || !h_coeff || !d_coeffs || !d_z))) invalid("nil argument");
    csr_eval_host_run(static_cast<const uint64_t*>(h_rowptr), static_cast<const uint32_t*>(h_col),
                      static_cast<const uint32_t*>(h_coeff), static_cast<const Fr*>(d_coeffs), rows,
                      static_cast<const Fr*>(d_z), static_cast<Fr*>(d_out), n_out, chunk_terms, ctx->stream);
  });
}

snarkpipe_status* snarkpipe_fr_gather(snarkpipe_ctx* ctx, const void* d_src, const void* d_idx, uint64_t n,
                                      void* d_out) {
  return guarded(ctx, [&] {
    if (n > 0 && (!d_src || !d_idx || !d_out)) invalid("nil argument");
    gather_run(static_cast<const Fr*>(d_src), static_cast<const uint32_t*>(d_idx), static_cast<Fr*>(d_out), n,
               ctx->stream);
  });
}

snarkpipe_status* snarkpipe_fr_unpack(snarkpipe_ctx* ctx, void* d_z, uint64_t n, const void* d_field,
                                      const void* d_ones, const void* d_rank, const void* d_vals, const void* h_one) {
  return guarded(ctx, [&] {
    if (!h_one || (n > 0 && (!d_z || !d_field || !d_ones || !d_rank || !d_vals))) invalid("nil argument");
    Fr one;
    std::memcpy(&one, h_one, sizeof one);
    unpack_run(static_cast<Fr*>(d_z), n, static_cast<const uint64_t*>(d_field), static_cast<const uint64_t*>(d_ones),
               static_cast<const uint32_t*>(d_rank), static_cast<const Fr*>(d_vals), one, ctx->stream);
  });
}

}  // extern "C"
