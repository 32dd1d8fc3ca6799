// ABI unit: statuses, devices, contexts and device memory.
#include "runtime.cuh"

using namespace snarkpipe;

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
  *free_bytes = f;
  *total_bytes = t;
  return nullptr;
#endif
}

snarkpipe_status* snarkpipe_ctx_create(int32_t device, snarkpipe_ctx** out) {
  if (!out) return make_status(SNARKPIPE_EINVAL, "nil out");
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || device < 0 || device >= n)
    return make_status(SNARKPIPE_ENODEV, "no CUDA device %d (%d present)", device, n);
  auto* ctx = new (std::nothrow) snarkpipe_ctx{};
  if (!ctx) return make_status(SNARKPIPE_ENOMEM, "host out of memory");
  try {
    ctx->device = device;
    SP_CUDA(cudaSetDevice(device));
    SP_CUDA(cudaDeviceGetAttribute(&ctx->sm_count, cudaDevAttrMultiProcessorCount, device));
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
  return guarded(ctx, [&] { SP_CUDA(cudaMallocAsync(d_out, bytes ? bytes : 1, ctx->stream)); });
}

snarkpipe_status* snarkpipe_mem_free(snarkpipe_ctx* ctx, void* d_ptr) {
  return guarded(ctx, [&] {
    if (d_ptr) SP_CUDA(cudaFreeAsync(d_ptr, ctx->stream));
  });
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
