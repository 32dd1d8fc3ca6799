// Host emulation of the CUDA runtime subset the kernels use, for testing the library's
// logic (digit split, sort, segments, NTT index maths, ABI) on machines without a GPU.
// Kernels run serially: each launch is a loop over blocks and threads; kernels that
// synchronise threads (ntt_pass) run with one thread per block, their loops being strided
// by blockDim. Built by emu/build.sh with SP_HOST_EMU (portable field arithmetic).
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <vector>

#define __device__
#define __host__
#define __global__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __constant__
#define __shared__
#define __launch_bounds__(...)  // occupancy hints mean nothing to the serial emulation

struct uint4 {
  unsigned x, y, z, w;
};
struct emu_dim {
  unsigned x, y, z;
};
// thread_local: two library contexts (proof streams) may run kernels from two threads at once.
inline thread_local emu_dim blockIdx, threadIdx, blockDim;

inline uint4 __ldg(const uint4* p) { return *p; }
inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; i++) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
inline int __ffs(unsigned x) { return __builtin_ffs(int(x)); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline unsigned atomicOr(unsigned* p, unsigned v) {
  unsigned o = *p;
  *p |= v;
  return o;
}
inline unsigned atomicMax(unsigned* p, unsigned v) {
  unsigned o = *p;
  if (v > o) *p = v;
  return o;
}
inline void __syncthreads() {}

typedef int cudaError_t;
enum {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorHostMemoryAlreadyRegistered = 712,
  cudaErrorHostMemoryNotRegistered = 713
};
typedef void* cudaStream_t;
typedef void* cudaEvent_t;
typedef void* cudaMemPool_t;
enum cudaMemcpyKind { cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice };
typedef int cudaDeviceAttr;
// The device attributes the library reads, numbered as CUDA numbers them.
enum {
  cudaDevAttrClockRate = 13,
  cudaDevAttrL2CacheSize = 38,
  cudaDevAttrMemoryClockRate = 36,
  cudaDevAttrGlobalMemoryBusWidth = 37,
  cudaDevAttrPciBusId = 33,
  cudaDevAttrPciDeviceId = 34,
  cudaDevAttrMaxThreadsPerMultiProcessor = 39,
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76,
  cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
  cudaDevAttrMaxRegistersPerMultiprocessor = 82,
  cudaDevAttrSingleToDoublePrecisionPerfRatio = 87,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
};
enum {
  cudaStreamNonBlocking = 1,
  cudaDevAttrMultiProcessorCount = 16,
  cudaMemPoolAttrReleaseThreshold = 4,
  cudaMemPoolAttrReservedMemCurrent = 5,
  cudaMemPoolAttrUsedMemCurrent = 7,
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8
};
struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem;
  int multiProcessorCount;
};
inline const char* cudaGetErrorString(cudaError_t) { return "emulated error"; }
inline cudaError_t cudaGetLastError() { return cudaSuccess; }
inline cudaError_t cudaSetDevice(int) { return cudaSuccess; }
inline cudaError_t cudaGetDevice(int* d) {
  *d = 0;
  return cudaSuccess;
}
inline cudaError_t cudaGetDeviceCount(int* n) {
  *n = 1;
  return cudaSuccess;
}
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int) {
  std::strcpy(p->name, "host emulation");
  p->totalGlobalMem = 1ull << 34;
  p->multiProcessorCount = 1;
  return cudaSuccess;
}
// A nominal Hopper-like device: one multiprocessor, FP64 at half the FP32 rate.
inline cudaError_t cudaDeviceGetAttribute(int* v, int attr, int) {
  switch (attr) {
    case cudaDevAttrComputeCapabilityMajor: *v = 9; break;
    case cudaDevAttrComputeCapabilityMinor: *v = 0; break;
    case cudaDevAttrSingleToDoublePrecisionPerfRatio: *v = 2; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *v = 232448; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *v = 233472; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *v = 2048; break;
    case cudaDevAttrMaxRegistersPerMultiprocessor: *v = 65536; break;
    case cudaDevAttrClockRate: *v = 1980000; break;
    case cudaDevAttrMemoryClockRate: *v = 2619000; break;
    case cudaDevAttrGlobalMemoryBusWidth: *v = 5120; break;
    case cudaDevAttrL2CacheSize: *v = 60 << 20; break;
    default: *v = 1;
  }
  return cudaSuccess;
}
struct cudaFuncAttributes {
  int binaryVersion, ptxVersion;
};
template <class T>
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* a, T*) {
  a->binaryVersion = 90;
  a->ptxVersion = 90;
  return cudaSuccess;
}
inline cudaError_t cudaRuntimeGetVersion(int* v) {
  *v = 0;
  return cudaSuccess;
}
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned) {
  *s = nullptr;
  return cudaSuccess;
}
inline cudaError_t cudaStreamDestroy(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaEventCreate(cudaEvent_t* e) {
  *e = nullptr;
  return cudaSuccess;
}
enum { cudaEventDisableTiming = 2 };
inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned) {
  *e = nullptr;
  return cudaSuccess;
}
// Everything runs in order on the host: a stream never has to wait for another.
inline cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned) { return cudaSuccess; }
inline cudaError_t cudaEventDestroy(cudaEvent_t) { return cudaSuccess; }
inline cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t, cudaEvent_t) {
  *ms = 0;
  return cudaSuccess;
}
inline cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* p, int) {
  *p = nullptr;
  return cudaSuccess;
}
inline cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t, int, void*) { return cudaSuccess; }
inline cudaError_t cudaMemPoolTrimTo(cudaMemPool_t, size_t) { return cudaSuccess; }
// No device memory to report: callers that size by free memory take their smaller choice.
inline cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t, int, void* v) {
  *static_cast<uint64_t*>(v) = 0;
  return cudaSuccess;
}
// A nominal 16 GiB device, all free: the MSM's memory-dependent choices (msm_canon_once)
// then take their roomy path, which the tests must cover.
inline cudaError_t cudaMemGetInfo(size_t* f, size_t* t) {
  *f = size_t(16) << 30;
  *t = size_t(16) << 30;
  return cudaSuccess;
}
inline cudaError_t cudaMallocAsync(void** p, size_t n, cudaStream_t) {
  *p = std::aligned_alloc(256, (n + 255) / 256 * 256);
  if (*p) std::memset(*p, 0xa5, n);  // poison: nothing may rely on fresh memory being zero
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
inline cudaError_t cudaFreeAsync(void* p, cudaStream_t) {
  std::free(p);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpyAsync(void* d, const void* s, size_t n, cudaMemcpyKind, cudaStream_t) {
  std::memmove(d, s, n);
  return cudaSuccess;
}
inline cudaError_t cudaMemsetAsync(void* d, int v, size_t n, cudaStream_t) {
  std::memset(d, v, n);
  return cudaSuccess;
}
enum { cudaHostRegisterDefault = 0, cudaHostRegisterPortable = 1 };
// Page-locking keeps a registry of ranges (host_registry.cpp), thread-safe like the real
// runtime, and refuses what CUDA refuses: an overlapping range, or unregistering a
// pointer that does not start a registered range.
cudaError_t cudaHostRegister(void* p, size_t bytes, unsigned flags);
cudaError_t cudaHostUnregister(void* p);
template <class T>
cudaError_t cudaFuncSetAttribute(T*, int, int) {
  return cudaSuccess;
}

namespace snarkpipe {
inline thread_local uint4 smem_raw[1 << 14];  // per thread: see thread_local above; build.sh drops the kernels' extern declarations
}

namespace emu {
// Launch iterates (block, thread) pairs; Serial gives each block one thread.
struct Launch {
  uint64_t grid, block, b = 0, t = 0;
  bool started = false;
  Launch(uint64_t g, uint64_t bl, size_t = 0, cudaStream_t = nullptr) : grid(g), block(bl) {}
  bool next() {
    if (!started) {
      started = true;
    } else if (++t == block) {
      t = 0;
      ++b;
    }
    if (b >= grid) return false;
    blockIdx.x = unsigned(b);
    threadIdx.x = unsigned(t);
    blockDim.x = unsigned(block);
    return true;
  }
};
struct Serial : Launch {
  Serial(uint64_t g, uint64_t, size_t = 0, cudaStream_t = nullptr) : Launch(g, 1) {}
};
}  // namespace emu
