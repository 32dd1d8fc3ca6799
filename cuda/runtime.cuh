// Host-side plumbing shared by the ABI units: the context, status construction, error
// propagation (CUDA errors become statuses, never exceptions across the ABI) and
// stream-ordered scratch buffers.
#pragma once

#include <cuda_runtime.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#include "capi.h"

struct snarkpipe_ctx {
  int device;
  int sm_count;
  // Per-device figures read at creation for kernel parameters: the most dynamic shared
  // memory a block may opt into, and the threads a multiprocessor holds at once.
  int smem_optin;
  int smem_per_sm;
  int threads_per_sm;
  // arith: the Fr product of the NTTs and the quotient (snarkpipe_ctx_set_arith):
  // SNARKPIPE_ARITH_FP64 or SNARKPIPE_ARITH_INT.
  int arith;
  cudaStream_t stream;
  cudaEvent_t start, stop;
  uint64_t last_ns;
  // MSM counters since creation (snarkpipe_ctx_msm_stats): MSMs run, MSMs that dropped
  // their pair rounds because the scratch did not fit, MSMs with 2^28-entry batches.
  uint64_t msm_calls, msm_rounds_dropped, msm_wide_batches;
};

namespace snarkpipe {

inline snarkpipe_status* make_status(int code, const char* fmt, ...) {
  auto* st = static_cast<snarkpipe_status*>(std::malloc(sizeof(snarkpipe_status)));
  if (!st) return nullptr;  // cannot report; caller sees success only if code was 0
  st->code = code;
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  st->msg = static_cast<char*>(std::malloc(std::strlen(buf) + 1));
  if (st->msg) std::strcpy(st->msg, buf);
  return st;
}

// Error carries a status out of deep host code to the ABI boundary, where it is caught.
struct Error {
  int code;
  std::string msg;
};

inline void check_cuda(cudaError_t e, const char* what, const char* file, int line) {
  if (e == cudaSuccess) return;
  int code = (e == cudaErrorMemoryAllocation) ? SNARKPIPE_ENOMEM : SNARKPIPE_ECUDA;
  char buf[384];
  std::snprintf(buf, sizeof buf, "%s: %s (%s:%d)", what, cudaGetErrorString(e), file, line);
  throw Error{code, buf};
}

#define SP_CUDA(call) ::snarkpipe::check_cuda((call), #call, __FILE__, __LINE__)
#define SP_LAUNCHED(name) ::snarkpipe::check_cuda(cudaGetLastError(), "launch " name, __FILE__, __LINE__)

inline void invalid(const char* msg) { throw Error{SNARKPIPE_EINVAL, msg}; }

// Every device allocation of the library goes through device_alloc and device_free
// (context.cu): they keep a per-device ledger of the bytes allocated and refuse, with
// SNARKPIPE_ENOMEM, an allocation that would cross the device's limit
// (snarkpipe_device_set_limit), exactly as a device of that size would refuse it. Both
// act on the calling thread's current device.
void* device_alloc(uint64_t bytes, cudaStream_t s);
cudaError_t device_free(void* p, cudaStream_t s) noexcept;  // (Buf's destructor: never throws)
// device_room: the bytes the ledger still allows on the current device (UINT64_MAX
// without a limit).
uint64_t device_room();
// device_limit: the current device's limit (0: none).
uint64_t device_limit();

// Buf is a device buffer from the context stream's pool, freed when it goes out of scope.
template <class T>
struct Buf {
  T* p = nullptr;
  cudaStream_t s = nullptr;
  Buf(size_t count, cudaStream_t stream) : s(stream) {
    if (count == 0) count = 1;
    p = static_cast<T*>(device_alloc(count * sizeof(T), stream));
  }
  ~Buf() {
    if (p) device_free(p, s);
  }
  Buf(const Buf&) = delete;
  Buf& operator=(const Buf&) = delete;
};

// guarded runs body on the context's device, times it with events, waits for the stream
// and converts every failure to a status.
template <class Body>
snarkpipe_status* guarded(snarkpipe_ctx* ctx, Body body) {
  if (!ctx) return make_status(SNARKPIPE_EINVAL, "nil context");
  try {
    SP_CUDA(cudaSetDevice(ctx->device));
    SP_CUDA(cudaEventRecord(ctx->start, ctx->stream));
    body();
    SP_CUDA(cudaEventRecord(ctx->stop, ctx->stream));
    SP_CUDA(cudaStreamSynchronize(ctx->stream));
    float ms = 0;
    SP_CUDA(cudaEventElapsedTime(&ms, ctx->start, ctx->stop));
    ctx->last_ns = uint64_t(double(ms) * 1e6);
    return nullptr;
  } catch (const Error& e) {
    cudaStreamSynchronize(ctx->stream);
    return make_status(e.code, "%s", e.msg.c_str());
  } catch (const std::bad_alloc&) {
    return make_status(SNARKPIPE_ENOMEM, "host out of memory");
  } catch (const std::exception& e) {
    return make_status(SNARKPIPE_EINTERNAL, "%s", e.what());
  } catch (...) {
    return make_status(SNARKPIPE_EINTERNAL, "unknown exception");
  }
}

inline unsigned blocks_for(uint64_t n, unsigned threads) { return unsigned((n + threads - 1) / threads); }

}  // namespace snarkpipe
