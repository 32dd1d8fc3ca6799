// Groth16's quotient h on the device: bellperson's computation in six NTTs (ntt.cuh)
// with its scalings fused into their passes.
#pragma once

#include "bls12_381.cuh"
#include "ntt.cuh"
#include "pow_tables.cuh"
#include "runtime.cuh"

namespace snarkpipe {
inline namespace SP_NTT_NS {  // ntt_twiddles.cuh says why

// quotient_finish: h = (a − c)·k[0] in natural order, from a and c in bit-reversed order
// (one thread per pair p < bitrev(p), which it swaps).
static __global__ void quotient_finish(Fr* __restrict__ a, const Fr* __restrict__ c, int lg_n,
                                       const Fr* __restrict__ k) {
  const uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= (1u << lg_n)) return;
  const uint32_t q = bitrev(p, lg_n);
  if (p > q) return;
  const Fr f = load16(k);
  const Fr hp = (load16(a + p) - load16(c + p)) * f;
  if (p < q) {
    store16(a + p, (load16(a + q) - load16(c + q)) * f);
    store16(a + q, hp);
  } else {
    store16(a + p, hp);
  }
}

static __global__ void fr_product(Fr* __restrict__ out, Fr x, Fr y) { *out = x * y; }

// quotient_run: bellperson's h (see capi.h) with six transforms instead of its seven.
// consts: ω, ω^-1, g, g^-1, 1/n, 1/(g^n − 1). bellperson computes
//   h = icoset((coset(A)·coset(B) − coset(C))·z⁻¹),  X = iNTT(x) the coefficients of x,
// z = g^n − 1 being the value of x^n − 1 on the whole coset. icoset is linear and
// icoset(coset(C)) = C, so h = (icoset(coset(A)·coset(B)) − C)·z⁻¹: the same field
// elements without C's forward transform. Here:
//   c: inverse NTT (DIF, no scaling: n·C in bit-reversed order);
//   b, then a: inverse NTT with g^i/n fused into its last pass, forward DIT NTT to coset
//     evaluations; a's with the product a·b fused;
//   a: inverse NTT with g^-i fused (n·icoset(A·B), bit-reversed), then
//   quotient_finish: h = (a − c)·(1/n)·z⁻¹ and the bit reversal, in one pass.
// tile_log: the transforms' tile (NttOptions; 0 = default).
inline void quotient_run(Fr* a, Fr* b, Fr* c, int lg_n, const Fr* k, cudaStream_t s, int tile_log = 0) {
  if (lg_n < 1 || lg_n > 28) invalid("quotient: lg_n must be in [1, 28]");
  const Fr &omega = k[0], &omega_inv = k[1], &g = k[2], &g_inv = k[3], &n_inv = k[4], &z_inv = k[5];
  PowTablesBuf coset(g, lg_n, s, &n_inv), uncoset(g_inv, lg_n, s);
  Buf<Fr> factor(1, s);
  fr_product<<<1, 1, 0, s>>>(factor.p, n_inv, z_inv);
  SP_LAUNCHED("fr_product");
  NttOptions plain;
  plain.tile_log = tile_log;
  ntt_run(c, lg_n, omega_inv, false, s, plain);
  NttOptions to_coeffs = plain;
  to_coeffs.fuse.post = NttScaleSpec{coset.view(), true, true};  // coefficient i sits at bitrev(i)
  for (Fr* x : {b, a}) {
    ntt_run(x, lg_n, omega_inv, false, s, to_coeffs);
    NttOptions to_evals = plain;
    if (x == a) to_evals.fuse.qb = b;
    ntt_run(x, lg_n, omega, true, s, to_evals);
  }
  NttOptions back = plain;
  back.fuse.post = NttScaleSpec{uncoset.view(), true, true};
  ntt_run(a, lg_n, omega_inv, false, s, back);
  quotient_finish<<<blocks_for(1u << lg_n, 256), 256, 0, s>>>(a, c, lg_n, factor.p);
  SP_LAUNCHED("quotient_finish");
}

}  // namespace SP_NTT_NS
}  // namespace snarkpipe
