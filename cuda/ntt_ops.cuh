// NttOps: the Fr transforms of fr.cu's ABI (NTT, coset NTT, scaling, bit reversal and
// the quotient) in one product arithmetic. The library holds two, chosen per context
// (snarkpipe_ctx_set_arith): ntt_fp64.cu, the products on the FP64 pipe (dpf.cuh), fast
// where FP64 runs at half the FP32 rate (A100, H100/H200, B200); ntt_int.cu, the integer
// CIOS product of field.cuh, for every GPU (consumer cards run FP64 at 1/64 of FP32).
// Both compute the same field elements.
#pragma once

#include <cstdint>

#include "bls12_381.cuh"
#include "runtime.cuh"

namespace snarkpipe {

struct NttOps {
  // ntt: snarkpipe_fr_ntt (flags as there).
  void (*ntt)(Fr* data, int lg_n, const Fr& root, int32_t flags, cudaStream_t s);
  // ntt_coset: snarkpipe_fr_ntt_coset.
  void (*ntt_coset)(Fr* data, int lg_n, const Fr& root, const Fr& c, const Fr& g, int32_t flags, cudaStream_t s);
  // scale: x[p] *= c·g^i (i = p or bitrev(p)); g null means x[p] *= c.
  void (*scale)(Fr* data, int lg_n, const Fr& c, const Fr* g, bool bitrev_index, cudaStream_t s);
  void (*bitrev)(Fr* data, int lg_n, cudaStream_t s);
  // quotient: snarkpipe_fr_quotient, k the six constants, flags as ntt's (the tile).
  void (*quotient)(Fr* a, Fr* b, Fr* c, int lg_n, const Fr* k, int32_t flags, cudaStream_t s);
};

const NttOps& ntt_ops_fp64();  // ntt_fp64.cu
const NttOps& ntt_ops_int();   // ntt_int.cu

}  // namespace snarkpipe
