// ABI unit: statuses, devices (properties, build), contexts and device memory with its
// per-device ledger and limit.
#include <mutex>
#include <unordered_map>
#include <utility>

#include "runtime.cuh"

using namespace snarkpipe;

namespace {

constexpr int kMaxDevices = 64;

// Ledger: the device bytes this library holds on one device, and its limit. Counted at
// the bytes asked (never less than 1); a free returns what its allocation counted.
struct Ledger {
  std::mutex mu;
  uint64_t limit = 0;  // 0: none
  uint64_t used = 0, peak = 0;
  std::unordered_map<void*, uint64_t> live;
};

Ledger* ledger_of(int device) {
  static Ledger ledgers[kMaxDevices];
  return device >= 0 && device < kMaxDevices ? &ledgers[device] : nullptr;
}

// largest_live writes the sizes of the ledger's eight largest live buffers, in MiB, to
// out: what holds a capped device when an allocation is refused.
void largest_live(const Ledger& l, char* out, size_t cap) {
  uint64_t top[8] = {};
  for (const auto& kv : l.live) {
    uint64_t v = kv.second;
    for (auto& t : top)
      if (v > t) std::swap(v, t);
  }
  size_t at = 0;
  for (uint64_t t : top) {
    if (!t || at >= cap) break;
    const int n = std::snprintf(out + at, cap - at, " %.1f", double(t) / (1 << 20));
    if (n < 0) break;
    at += size_t(n);
  }
}

int current_device() {
  int d = 0;
  SP_CUDA(cudaGetDevice(&d));
  return d;
}

// A kernel of this unit whose attributes say how the driver loaded the library's code.
__global__ void probe_kernel() {}

#ifndef SP_BUILD_ARCHS
#define SP_BUILD_ARCHS "unknown architectures"
#endif

}  // namespace

namespace snarkpipe {

void* device_alloc(uint64_t bytes, cudaStream_t s) {
  if (bytes == 0) bytes = 1;
  const int d = current_device();
  Ledger* l = ledger_of(d);
  if (!l) throw Error{SNARKPIPE_ENODEV, "device ordinal beyond the ledger's 64 devices"};
  {
    std::lock_guard<std::mutex> g(l->mu);
    if (l->limit && bytes > l->limit - l->used) {
      char msg[384];
      const int n = std::snprintf(msg, sizeof msg,
                                  "device %d memory limit: %llu bytes asked, %llu of the %llu-byte limit already "
                                  "allocated in %zu buffers; the largest (MiB):",
                                  d, (unsigned long long)bytes, (unsigned long long)l->used,
                                  (unsigned long long)l->limit, l->live.size());
      largest_live(*l, msg + n, sizeof msg - size_t(n));
      throw Error{SNARKPIPE_ENOMEM, msg};
    }
    l->used += bytes;  // reserved before the allocation, so two threads cannot both pass the limit
    if (l->used > l->peak) l->peak = l->used;
  }
  void* p = nullptr;
  const cudaError_t e = cudaMallocAsync(&p, bytes, s);
  std::lock_guard<std::mutex> g(l->mu);
  if (e != cudaSuccess) {
    l->used -= bytes;
    check_cuda(e, "cudaMallocAsync", __FILE__, __LINE__);
  }
  l->live[p] = bytes;
  return p;
}

cudaError_t device_free(void* p, cudaStream_t s) noexcept {
  if (!p) return cudaSuccess;
  int d = 0;
  if (cudaGetDevice(&d) == cudaSuccess) {
    if (Ledger* l = ledger_of(d)) {
      std::lock_guard<std::mutex> g(l->mu);
      auto it = l->live.find(p);
      if (it != l->live.end()) {
        l->used -= it->second;
        l->live.erase(it);
      }
    }
  }
  return cudaFreeAsync(p, s);
}

uint64_t device_room() {
  Ledger* l = ledger_of(current_device());
  if (!l) return 0;
  std::lock_guard<std::mutex> g(l->mu);
  return l->limit ? l->limit - l->used : UINT64_MAX;
}

uint64_t device_limit() {
  Ledger* l = ledger_of(current_device());
  if (!l) return 0;
  std::lock_guard<std::mutex> g(l->mu);
  return l->limit;
}

}  // namespace snarkpipe

extern "C" {

void snarkpipe_status_free(snarkpipe_status* st) {
  if (!st) return;
  std::free(st->msg);
  std::free(st);
}

snarkpipe_status* snarkpipe_device_count(int32_t* out) {
  if (!out) return make_status(SNARKPIPE_EINVAL, "nil out");
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    *out = 0;
    return make_status(SNARKPIPE_ENODEV, "cudaGetDeviceCount: %s", cudaGetErrorString(e));
  }
  *out = n;
  return nullptr;
}

snarkpipe_status* snarkpipe_device_info(int32_t device, char* name, uint64_t name_cap, uint64_t* total_mem,
                                        int32_t* sm_count) {
  cudaDeviceProp prop;
  cudaError_t e = cudaGetDeviceProperties(&prop, device);
  if (e != cudaSuccess) return make_status(SNARKPIPE_ENODEV, "device %d: %s", device, cudaGetErrorString(e));
  if (name && name_cap > 0) {
    std::strncpy(name, prop.name, name_cap - 1);
    name[name_cap - 1] = 0;
  }
  if (total_mem) *total_mem = prop.totalGlobalMem;
  if (sm_count) *sm_count = prop.multiProcessorCount;
  return nullptr;
}

snarkpipe_status* snarkpipe_device_mem_info(int32_t device, uint64_t* free_bytes, uint64_t* total_bytes) {
  if (!free_bytes || !total_bytes) return make_status(SNARKPIPE_EINVAL, "nil out");
#ifdef SP_HOST_EMU
  (void)device;
  return make_status(SNARKPIPE_ENODEV, "device memory info is not available in the host emulation");
#else
  int prev = 0;
  cudaError_t e = cudaGetDevice(&prev);
  if (e != cudaSuccess) return make_status(SNARKPIPE_ECUDA, "cudaGetDevice: %s", cudaGetErrorString(e));
  if ((e = cudaSetDevice(device)) != cudaSuccess)
    return make_status(SNARKPIPE_ENODEV, "device %d: %s", device, cudaGetErrorString(e));
  size_t f = 0, t = 0;
  e = cudaMemGetInfo(&f, &t);
  cudaSetDevice(prev);
  if (e != cudaSuccess) return make_status(SNARKPIPE_ECUDA, "cudaMemGetInfo: %s", cudaGetErrorString(e));
  if (Ledger* l = ledger_of(device)) {
    std::lock_guard<std::mutex> g(l->mu);
    if (l->limit) {
      if (t > l->limit) t = l->limit;
      if (f > l->limit - l->used) f = l->limit - l->used;
    }
  }
  *free_bytes = f;
  *total_bytes = t;
  return nullptr;
#endif
}

snarkpipe_status* snarkpipe_device_props_get(int32_t device, snarkpipe_device_props* out, uint64_t size) {
  if (!out) return make_status(SNARKPIPE_EINVAL, "nil out");
  snarkpipe_device_props p{};
  try {
    const auto attr = [&](cudaDeviceAttr a) {
      int v = 0;
      SP_CUDA(cudaDeviceGetAttribute(&v, a, device));
      return int64_t(v);
    };
    p.cc_major = attr(cudaDevAttrComputeCapabilityMajor);
    p.cc_minor = attr(cudaDevAttrComputeCapabilityMinor);
    p.sm_count = attr(cudaDevAttrMultiProcessorCount);
    p.clock_khz = attr(cudaDevAttrClockRate);
    p.mem_clock_khz = attr(cudaDevAttrMemoryClockRate);
    p.mem_bus_bits = attr(cudaDevAttrGlobalMemoryBusWidth);
    p.fp32_per_fp64 = attr(cudaDevAttrSingleToDoublePrecisionPerfRatio);
    p.smem_per_block_optin = attr(cudaDevAttrMaxSharedMemoryPerBlockOptin);
    p.smem_per_sm = attr(cudaDevAttrMaxSharedMemoryPerMultiprocessor);
    p.l2_bytes = attr(cudaDevAttrL2CacheSize);
    p.regs_per_sm = attr(cudaDevAttrMaxRegistersPerMultiprocessor);
    p.threads_per_sm = attr(cudaDevAttrMaxThreadsPerMultiProcessor);
    p.pci_bus = attr(cudaDevAttrPciBusId);
    p.pci_device = attr(cudaDevAttrPciDeviceId);
    cudaDeviceProp prop;
    SP_CUDA(cudaGetDeviceProperties(&prop, device));
    p.total_mem = int64_t(prop.totalGlobalMem);
    int prev = 0;
    SP_CUDA(cudaGetDevice(&prev));
    SP_CUDA(cudaSetDevice(device));
    cudaFuncAttributes fa;
    const cudaError_t e = cudaFuncGetAttributes(&fa, probe_kernel);
    cudaSetDevice(prev);
    SP_CUDA(e);
    p.kernel_binary_version = fa.binaryVersion;
    p.kernel_ptx_version = fa.ptxVersion;
  } catch (const Error& e) {
    return make_status(e.code == SNARKPIPE_ECUDA ? SNARKPIPE_ENODEV : e.code, "device %d: %s", device, e.msg.c_str());
  }
  std::memcpy(out, &p, size < sizeof p ? size : sizeof p);
  return nullptr;
}

snarkpipe_status* snarkpipe_build_info(char* out, uint64_t cap) {
  if (!out || cap == 0) return make_status(SNARKPIPE_EINVAL, "nil out");
  int rt = 0;
  cudaRuntimeGetVersion(&rt);
  std::snprintf(out, cap, "cuda %d.%d; %s", rt / 1000, (rt % 1000) / 10, SP_BUILD_ARCHS);
  return nullptr;
}

snarkpipe_status* snarkpipe_device_set_limit(int32_t device, uint64_t limit) {
  Ledger* l = ledger_of(device);
  if (!l) return make_status(SNARKPIPE_ENODEV, "device %d: beyond the ledger's %d devices", device, kMaxDevices);
  std::lock_guard<std::mutex> g(l->mu);
  if (limit && limit < l->used)
    return make_status(SNARKPIPE_EINVAL, "device %d: limit %llu below the %llu bytes allocated now", device,
                       (unsigned long long)limit, (unsigned long long)l->used);
  l->limit = limit;
  return nullptr;
}

snarkpipe_status* snarkpipe_device_ledger(int32_t device, uint64_t* limit, uint64_t* used, uint64_t* peak) {
  if (!limit || !used || !peak) return make_status(SNARKPIPE_EINVAL, "nil out");
  Ledger* l = ledger_of(device);
  if (!l) return make_status(SNARKPIPE_ENODEV, "device %d: beyond the ledger's %d devices", device, kMaxDevices);
  std::lock_guard<std::mutex> g(l->mu);
  *limit = l->limit;
  *used = l->used;
  *peak = l->peak;
  return nullptr;
}

snarkpipe_status* snarkpipe_device_reset_peak(int32_t device) {
  Ledger* l = ledger_of(device);
  if (!l) return make_status(SNARKPIPE_ENODEV, "device %d: beyond the ledger's %d devices", device, kMaxDevices);
  std::lock_guard<std::mutex> g(l->mu);
  l->peak = l->used;
  return nullptr;
}

snarkpipe_status* snarkpipe_ctx_create(int32_t device, snarkpipe_ctx** out) {
  if (!out) return make_status(SNARKPIPE_EINVAL, "nil out");
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || device < 0 || device >= n)
    return make_status(SNARKPIPE_ENODEV, "no CUDA device %d (%d present)", device, n);
  if (device >= kMaxDevices) return make_status(SNARKPIPE_ENODEV, "device %d: beyond the ledger's %d devices", device, kMaxDevices);
  auto* ctx = new (std::nothrow) snarkpipe_ctx{};
  if (!ctx) return make_status(SNARKPIPE_ENOMEM, "host out of memory");
  try {
    ctx->device = device;
    SP_CUDA(cudaSetDevice(device));
    SP_CUDA(cudaDeviceGetAttribute(&ctx->sm_count, cudaDevAttrMultiProcessorCount, device));
    SP_CUDA(cudaDeviceGetAttribute(&ctx->smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    SP_CUDA(cudaDeviceGetAttribute(&ctx->smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
    SP_CUDA(cudaDeviceGetAttribute(&ctx->threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
    ctx->arith = SNARKPIPE_ARITH_FP64;
    SP_CUDA(cudaStreamCreateWithFlags(&ctx->stream, cudaStreamNonBlocking));
    SP_CUDA(cudaEventCreate(&ctx->start));
    SP_CUDA(cudaEventCreate(&ctx->stop));
    // Keep freed pool memory cached: scratch buffers are reused call after call.
    cudaMemPool_t pool;
    SP_CUDA(cudaDeviceGetDefaultMemPool(&pool, device));
    uint64_t threshold = UINT64_MAX;
    SP_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
  } catch (const Error& e) {
    delete ctx;
    return make_status(e.code, "%s", e.msg.c_str());
  }
  *out = ctx;
  return nullptr;
}

snarkpipe_status* snarkpipe_ctx_destroy(snarkpipe_ctx* ctx) {
  if (!ctx) return nullptr;
  cudaSetDevice(ctx->device);
  cudaStreamSynchronize(ctx->stream);
  cudaEventDestroy(ctx->start);
  cudaEventDestroy(ctx->stop);
  cudaStreamDestroy(ctx->stream);
  delete ctx;
  return nullptr;
}

snarkpipe_status* snarkpipe_mem_alloc(snarkpipe_ctx* ctx, uint64_t bytes, void** d_out) {
  if (!d_out) return make_status(SNARKPIPE_EINVAL, "nil out");
  return guarded(ctx, [&] { *d_out = device_alloc(bytes, ctx->stream); });
}

snarkpipe_status* snarkpipe_mem_free(snarkpipe_ctx* ctx, void* d_ptr) {
  return guarded(ctx, [&] { SP_CUDA(device_free(d_ptr, ctx->stream)); });
}

snarkpipe_status* snarkpipe_ctx_set_arith(snarkpipe_ctx* ctx, int32_t arith) {
  if (!ctx) return make_status(SNARKPIPE_EINVAL, "nil context");
  if (arith != SNARKPIPE_ARITH_FP64 && arith != SNARKPIPE_ARITH_INT)
    return make_status(SNARKPIPE_EINVAL, "unknown arithmetic %d", arith);
  ctx->arith = arith;
  return nullptr;
}

snarkpipe_status* snarkpipe_mem_upload(snarkpipe_ctx* ctx, void* d_dst, const void* h_src, uint64_t bytes) {
  return guarded(ctx, [&] {
    if (bytes) SP_CUDA(cudaMemcpyAsync(d_dst, h_src, bytes, cudaMemcpyHostToDevice, ctx->stream));
  });
}

snarkpipe_status* snarkpipe_mem_download(snarkpipe_ctx* ctx, void* h_dst, const void* d_src, uint64_t bytes) {
  return guarded(ctx, [&] {
    if (bytes) SP_CUDA(cudaMemcpyAsync(h_dst, d_src, bytes, cudaMemcpyDeviceToHost, ctx->stream));
  });
}

snarkpipe_status* snarkpipe_mem_trim(snarkpipe_ctx* ctx) {
  return guarded(ctx, [&] {
    cudaMemPool_t pool;
    SP_CUDA(cudaDeviceGetDefaultMemPool(&pool, ctx->device));
    SP_CUDA(cudaStreamSynchronize(ctx->stream));
    SP_CUDA(cudaMemPoolTrimTo(pool, 0));
  });
}

snarkpipe_status* snarkpipe_ctx_msm_stats(snarkpipe_ctx* ctx, uint64_t* calls, uint64_t* rounds_dropped,
                                          uint64_t* wide_batches) {
  if (!ctx || !calls || !rounds_dropped || !wide_batches) return make_status(SNARKPIPE_EINVAL, "nil argument");
  *calls = ctx->msm_calls;
  *rounds_dropped = ctx->msm_rounds_dropped;
  *wide_batches = ctx->msm_wide_batches;
  return nullptr;
}

snarkpipe_status* snarkpipe_ctx_last_ns(snarkpipe_ctx* ctx, uint64_t* ns) {
  if (!ctx || !ns) return make_status(SNARKPIPE_EINVAL, "nil argument");
  *ns = ctx->last_ns;
  return nullptr;
}

}  // extern "C"
