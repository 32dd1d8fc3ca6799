// BLS12-381 base field Fp (381 bits, 12 limbs) and scalar field Fr (255 bits, 8 limbs),
// the G1/G2 point types built on them. Constants are little-endian 32-bit limbs; M0 is
// -p^-1 mod 2^32 and ONE is R mod p (R = 2^384 for Fp, 2^256 for Fr), as in gnark-crypto.
#pragma once

#include "curve.cuh"
#include "field.cuh"

namespace snarkpipe {

static __device__ __constant__ uint32_t kFpMod[12] = {
    0xffffaaab, 0xb9feffff, 0xb153ffff, 0x1eabfffe, 0xf6b0f624, 0x6730d2a0,
    0xf38512bf, 0x64774b84, 0x434bacd7, 0x4b1ba7b6, 0x397fe69a, 0x1a0111ea};
static __device__ __constant__ uint32_t kFpOne[12] = {
    0x0002fffd, 0x76090000, 0xc40c0002, 0xebf4000b, 0x53c758ba, 0x5f489857,
    0x70525745, 0x77ce5853, 0xa256ec6d, 0x5c071a97, 0xfa80e493, 0x15f65ec3};
// R^3 mod p and R^3 mod r: the Montgomery factor that turns the plain inverse of a
// Montgomery form into the Montgomery form of the inverse (Fe::inv_binary).
static __device__ __constant__ uint32_t kFpR3[12] = {
    0xd94ca1e0, 0xed48ac6b, 0x03a7adf8, 0x315f831e, 0x615e29dd, 0x9a53352a,
    0x921e1761, 0x34c04e5e, 0x65724728, 0x2512d435, 0x91755d4d, 0x0aa63460};
static __device__ __constant__ uint32_t kFrR3[8] = {
    0x439b73af, 0xc62c1807, 0x8cf06990, 0x1b3e0d18, 0xc7b5f418, 0x73d13c71, 0xc8db33e9, 0x6e2a5bb9};
static __device__ __constant__ uint32_t kFrMod[8] = {
    0x00000001, 0xffffffff, 0xfffe5bfe, 0x53bda402, 0x09a1d805, 0x3339d808, 0x299d7d48, 0x73eda753};
static __device__ __constant__ uint32_t kFr2Mod[8] = {  // 2r, for the NTT's lazy forms
    0x00000002, 0xfffffffe, 0xfffcb7fd, 0xa77b4805, 0x1343b00a, 0x6673b010, 0x533afa90, 0xe7db4ea6};
static __device__ __constant__ uint32_t kFrOne[8] = {
    0xfffffffe, 0x00000001, 0x00034802, 0x5884b7fa, 0xecbc4ff5, 0x998c4fef, 0xacc5056f, 0x1824b159};

struct FpParams {
  static constexpr int N = 12;
  static constexpr bool kInlineMul = false;
  static constexpr bool kLowOneMinusOne = false;
  static constexpr uint32_t M0 = 0xfffcfffdu;
  static __device__ __forceinline__ uint32_t mod(int i) { return kFpMod[i]; }
  static __device__ __forceinline__ uint32_t one(int i) { return kFpOne[i]; }
  static __device__ __forceinline__ uint32_t r3(int i) { return kFpR3[i]; }
};

// FpInlineParams: Fp with inlined products, for the G1 accumulation kernel's measurements.
struct FpInlineParams : FpParams {
  static constexpr bool kInlineMul = true;
};

struct FrParams {
  static constexpr int N = 8;
  static constexpr bool kInlineMul = true;
  static constexpr bool kLowOneMinusOne = true;  // limbs 0 and 1 of r (Fe::reduce_row_low_one)
  static constexpr uint32_t M0 = 0xffffffffu;
  static __device__ __forceinline__ uint32_t mod(int i) { return kFrMod[i]; }
  static __device__ __forceinline__ uint32_t mod2(int i) { return kFr2Mod[i]; }
  static __device__ __forceinline__ uint32_t one(int i) { return kFrOne[i]; }
  static __device__ __forceinline__ uint32_t r3(int i) { return kFrR3[i]; }
};

using Fp = Fe<FpParams>;
using Fr = Fe<FrParams>;
using FpInline = Fe<FpInlineParams>;
using Fp2 = Ext2<Fp>;
using Fp2Call = Ext2<Fp, true>;  // same layout; one call per Fp2 product

using G1Affine = Affine<Fp>;
using G1Xyzz = Xyzz<Fp>;
using G2Affine = Affine<Fp2>;
using G2Xyzz = Xyzz<Fp2>;

static_assert(sizeof(Fp) == 48, "Fp is 48 bytes");
static_assert(sizeof(Fr) == 32, "Fr is 32 bytes");
static_assert(sizeof(G1Affine) == 96, "G1 affine is 96 bytes (gnark G1Affine)");
static_assert(sizeof(G2Affine) == 192, "G2 affine is 192 bytes (gnark G2Affine)");
static_assert(sizeof(G1Xyzz) == 192, "G1 XYZZ is 192 bytes");
static_assert(sizeof(G2Xyzz) == 384, "G2 XYZZ is 384 bytes");

}  // namespace snarkpipe
