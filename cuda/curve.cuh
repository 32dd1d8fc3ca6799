// Short Weierstrass points (y^2 = x^3 + b, a = 0) over a field F (Fp for G1, Fp2 for G2).
// Affine points use gnark-crypto's layout {X, Y} with (0, 0) as infinity. Accumulation
// uses XYZZ coordinates (x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2; infinity has ZZ = 0) with the
// add-2008-s / madd-2008-s / dbl-2008-s-1 / mdbl-2008-s-1 formulas (8M+2S mixed addition).
// The formulas are independent of b, so one template serves G1 and G2.
#pragma once

#include "field.cuh"

namespace snarkpipe {

template <class F>
struct alignas(16) Affine {
  F x, y;
  __device__ __forceinline__ bool is_inf() const { return x.is_zero() && y.is_zero(); }
  __device__ __forceinline__ Affine neg() const { return Affine{x, -y}; }
};

template <class F>
struct alignas(16) Xyzz {
  F X, Y, ZZ, ZZZ;

  static __host__ __device__ __forceinline__ Xyzz inf() { return Xyzz{F::zero(), F::zero(), F::zero(), F::zero()}; }
  __device__ __forceinline__ bool is_inf() const { return ZZ.is_zero(); }

  static __device__ __forceinline__ Xyzz from_affine(const Affine<F>& p) {
    if (p.is_inf()) return inf();
    return Xyzz{p.x, p.y, F::one(), F::one()};
  }

  __device__ __forceinline__ Xyzz neg() const { return Xyzz{X, -Y, ZZ, ZZZ}; }

  // dbl-2008-s-1.
  __device__ Xyzz dbl() const {
    if (is_inf()) return *this;
    F U = Y.dbl();
    F V = U.sqr();
    F W = U * V;
    F S = X * V;
    F X2 = X.sqr();
    F M = X2.dbl() + X2;
    F X3 = M.sqr() - S.dbl();
    F Y3 = M * (S - X3) - W * Y;
    return Xyzz{X3, Y3, V * ZZ, W * ZZZ};
  }

  // mdbl-2008-s-1: 2·p for an affine p, as XYZZ.
  static __device__ Xyzz dbl_affine(const Affine<F>& p) {
    F U = p.y.dbl();
    F V = U.sqr();
    F W = U * V;
    F S = p.x * V;
    F X2 = p.x.sqr();
    F M = X2.dbl() + X2;
    F X3 = M.sqr() - S.dbl();
    F Y3 = M * (S - X3) - W * p.y;
    return Xyzz{X3, Y3, V, W};
  }

  // madd-2008-s: this + q for an affine q, with every special case handled.
  __device__ Xyzz add_affine(const Affine<F>& q) const {
    if (q.is_inf()) return *this;
    if (is_inf()) return Xyzz{q.x, q.y, F::one(), F::one()};
    F U2 = q.x * ZZ;
    F S2 = q.y * ZZZ;
    F P = U2 - X;
    F R = S2 - Y;
    if (P.is_zero()) {
      if (R.is_zero()) return dbl_affine(q);
      return inf();
    }
    F PP = P.sqr();
    F PPP = P * PP;
    F Q = X * PP;
    F X3 = R.sqr() - PPP - Q.dbl();
    F Y3 = R * (Q - X3) - Y * PPP;
    return Xyzz{X3, Y3, ZZ * PP, ZZZ * PPP};
  }

  // add-2008-s: this + q.
  __device__ Xyzz add(const Xyzz& q) const {
    if (q.is_inf()) return *this;
    if (is_inf()) return q;
    F U1 = X * q.ZZ;
    F U2 = q.X * ZZ;
    F S1 = Y * q.ZZZ;
    F S2 = q.Y * ZZZ;
    F P = U2 - U1;
    F R = S2 - S1;
    if (P.is_zero()) {
      if (R.is_zero()) return dbl();
      return inf();
    }
    F PP = P.sqr();
    F PPP = P * PP;
    F Q = U1 * PP;
    F X3 = R.sqr() - PPP - Q.dbl();
    F Y3 = R * (Q - X3) - S1 * PPP;
    return Xyzz{X3, Y3, ZZ * q.ZZ * PP, ZZZ * q.ZZZ * PPP};
  }

  // mul_small returns k·this for a small non-negative k (double-and-add, MSB first).
  __device__ Xyzz mul_small(uint32_t k) const {
    Xyzz acc = inf();
    for (int bit = 31; bit >= 0; bit--) {
      acc = acc.dbl();
      if ((k >> bit) & 1) acc = acc.add(*this);
    }
    return acc;
  }
};

}  // namespace snarkpipe
