// The body of ntt_fp64.cu and ntt_int.cu: NttOps over the transforms of ntt.cuh and
// quotient.cuh as built in this unit (SP_NTT_CIOS or not: ntt_twiddles.cuh).
#pragma once

#include "ntt.cuh"
#include "ntt_ops.cuh"
#include "quotient.cuh"

namespace snarkpipe {
inline namespace SP_NTT_NS {

// snarkpipe_fr_ntt flags: bit 0 DIT; bits 8..12 the tile log; bit 13 the legacy kernel
// (ntt_pass), bit 14 no direct twiddle tables, bit 15 the radix-8 kernel capped at 128
// registers, all for comparisons (cuda.Lib.NTTTile passes its tileLog argument into
// bits 8..15: a tileLog of 0x20 | tile selects the legacy kernel).
constexpr int32_t kNttFlagLegacy = 1 << 13;
constexpr int32_t kNttFlagNoDirect = 1 << 14;
constexpr int32_t kNttFlagBounded = 1 << 15;

inline NttOptions ntt_options(int32_t flags) {
  NttOptions o;
  o.tile_log = (flags >> 8) & 0x1f;
  o.legacy = (flags & kNttFlagLegacy) != 0;
  o.no_direct_twiddles = (flags & kNttFlagNoDirect) != 0;
  o.bounded = (flags & kNttFlagBounded) != 0;
  return o;
}

inline void ops_ntt(Fr* data, int lg_n, const Fr& root, int32_t flags, cudaStream_t s) {
  ntt_run(data, lg_n, root, (flags & 1) != 0, s, ntt_options(flags));
}

inline void ops_ntt_coset(Fr* data, int lg_n, const Fr& root, const Fr& c, const Fr& g, int32_t flags,
                          cudaStream_t s) {
  if (lg_n < 0 || lg_n > 28) invalid("ntt: lg_n must be in [0, 28]");
  NttOptions o = ntt_options(flags);
  PowTablesBuf coset(g, lg_n, s, &c);
  o.fuse.pre = NttScaleSpec{coset.view(), true, false};
  o.coset_g = &g;
  ntt_run(data, lg_n, root, (flags & 1) != 0, s, o);
}

inline void ops_scale(Fr* data, int lg_n, const Fr& c, const Fr* g, bool bitrev_index, cudaStream_t s) {
  scale_run(data, lg_n, c, g, bitrev_index, s);
}

inline void ops_bitrev(Fr* data, int lg_n, cudaStream_t s) { bitrev_run(data, lg_n, s); }

inline void ops_quotient(Fr* a, Fr* b, Fr* c, int lg_n, const Fr* k, int32_t flags, cudaStream_t s) {
  quotient_run(a, b, c, lg_n, k, s, ntt_options(flags).tile_log);
}

inline const NttOps& ntt_ops_here() {
  static const NttOps ops{ops_ntt, ops_ntt_coset, ops_scale, ops_bitrev, ops_quotient};
  return ops;
}

}  // namespace SP_NTT_NS
}  // namespace snarkpipe
