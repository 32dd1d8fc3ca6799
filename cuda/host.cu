// ABI unit: page-locking host memory, so that uploads from it (a proof's witness from
// the pipeline's reused buffers) run at full bus speed instead of through the driver's
// staging copies of pageable memory.
#include "runtime.cuh"

using namespace snarkpipe;

extern "C" {

snarkpipe_status* snarkpipe_host_register(snarkpipe_ctx* ctx, void* h_ptr, uint64_t bytes) {
  return guarded(ctx, [&] {
    if (!h_ptr || bytes == 0) invalid("host_register: nil or empty range");
    SP_CUDA(cudaHostRegister(h_ptr, bytes, cudaHostRegisterDefault));
  });
}

snarkpipe_status* snarkpipe_host_unregister(snarkpipe_ctx* ctx, void* h_ptr) {
  return guarded(ctx, [&] {
    if (!h_ptr) invalid("host_unregister: nil pointer");
    SP_CUDA(cudaHostUnregister(h_ptr));
  });
}

}  // extern "C"
