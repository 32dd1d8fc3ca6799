// 32-bit carry-chain primitives: PTX add/sub/mad with the carry flag on the device, and a
// host emulation of the same instructions (one global flag: the emulation runs kernels
// serially) so that the host build executes the exact instruction sequence of the
// Montgomery product. Every device statement is volatile: the carry flag lives between
// consecutive statements, so the compiler must keep them in order.
#pragma once

#include <cstdint>

namespace snarkpipe {
namespace cc {

#ifdef SP_HOST_EMU
inline uint32_t& flag() {
  static thread_local uint32_t f;
  return f;
}
inline uint32_t lo(uint32_t a, uint32_t b) { return uint32_t(uint64_t(a) * b); }
inline uint32_t hi(uint32_t a, uint32_t b) { return uint32_t((uint64_t(a) * b) >> 32); }
inline uint32_t add_out(uint64_t r) {
  flag() = uint32_t(r >> 32);
  return uint32_t(r);
}
// d = lo(a·b) + c, carry out.
inline uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) { return add_out(uint64_t(lo(a, b)) + c); }
inline uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c) { return add_out(uint64_t(lo(a, b)) + c + flag()); }
inline uint32_t mad_hi_cc(uint32_t a, uint32_t b, uint32_t c) { return add_out(uint64_t(hi(a, b)) + c); }
inline uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c) { return add_out(uint64_t(hi(a, b)) + c + flag()); }
// madc_hi: d = hi(a·b) + c + carry in, no carry out.
inline uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c) { return uint32_t(uint64_t(hi(a, b)) + c + flag()); }
inline uint32_t add_cc(uint32_t a, uint32_t b) { return add_out(uint64_t(a) + b); }
inline uint32_t addc_cc(uint32_t a, uint32_t b) { return add_out(uint64_t(a) + b + flag()); }
inline uint32_t addc(uint32_t a, uint32_t b) { return uint32_t(uint64_t(a) + b + flag()); }
#else
__device__ __forceinline__ uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t d;
  asm volatile("mad.lo.cc.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}
__device__ __forceinline__ uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t d;
  asm volatile("madc.lo.cc.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}
__device__ __forceinline__ uint32_t mad_hi_cc(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t d;
  asm volatile("mad.hi.cc.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}
__device__ __forceinline__ uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t d;
  asm volatile("madc.hi.cc.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}
__device__ __forceinline__ uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t d;
  asm volatile("madc.hi.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}
__device__ __forceinline__ uint32_t add_cc(uint32_t a, uint32_t b) {
  uint32_t d;
  asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
}
__device__ __forceinline__ uint32_t addc_cc(uint32_t a, uint32_t b) {
  uint32_t d;
  asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
}
__device__ __forceinline__ uint32_t addc(uint32_t a, uint32_t b) {
  uint32_t d;
  asm volatile("addc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
}
#endif

}  // namespace cc
}  // namespace snarkpipe
