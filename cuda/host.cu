// ABI unit: page-locking host memory, so that uploads from it (a proof's witness from
// the pipeline's reused buffers) run at full bus speed instead of through the driver's
// staging copies of pageable memory.
//
// These calls use only the context's device, never its stream or timing events (unlike
// guarded): page-locking does not need them, so the Go side may call these while another
// thread runs a proof on the same context, and they neither wait for that proof nor
// disturb its timing. Ranges are registered portable: pinned for every device of the
// process, so one buffer serves uploads to any GPU.
#include "runtime.cuh"

using namespace snarkpipe;

namespace {

// on_device runs body with ctx's device current on this thread (restored afterwards) and
// converts failures to a status.
template <class Body>
snarkpipe_status* on_device(snarkpipe_ctx* ctx, Body body) {
  if (!ctx) return make_status(SNARKPIPE_EINVAL, "nil context");
  int prev = -1;
  try {
    SP_CUDA(cudaGetDevice(&prev));
    SP_CUDA(cudaSetDevice(ctx->device));
    body();
    cudaSetDevice(prev);
    return nullptr;
  } catch (const Error& e) {
    if (prev >= 0) cudaSetDevice(prev);
    return make_status(e.code, "%s", e.msg.c_str());
  } catch (...) {
    if (prev >= 0) cudaSetDevice(prev);
    return make_status(SNARKPIPE_EINTERNAL, "host memory registration: unexpected exception");
  }
}

}  // namespace

extern "C" {

snarkpipe_status* snarkpipe_host_register(snarkpipe_ctx* ctx, void* h_ptr, uint64_t bytes) {
  return on_device(ctx, [&] {
    if (!h_ptr || bytes == 0) invalid("host_register: nil or empty range");
    SP_CUDA(cudaHostRegister(h_ptr, bytes, cudaHostRegisterPortable));
  });
}

snarkpipe_status* snarkpipe_host_unregister(snarkpipe_ctx* ctx, void* h_ptr) {
  return on_device(ctx, [&] {
    if (!h_ptr) invalid("host_unregister: nil pointer");
    SP_CUDA(cudaHostUnregister(h_ptr));
  });
}

}  // extern "C"
