// Host emulation of cudaHostRegister / cudaHostUnregister (declared in cuda_runtime.h):
// a registry of page-locked ranges with their flags, so the Go tests can check what the
// library registers, from several threads at once. snarkpipe_emu_host_flags exists only
// in the emulation build (cuda.go does not bind it; the tests look it up themselves).
#include <cstdint>
#include <map>
#include <mutex>

namespace {

struct Range {
  size_t bytes;
  unsigned flags;
};

std::mutex registry_mu;
std::map<uintptr_t, Range> registry;  // start address -> range

}  // namespace

cudaError_t cudaHostRegister(void* p, size_t bytes, unsigned flags) {
  if (!p || bytes == 0) return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(registry_mu);
  uintptr_t lo = reinterpret_cast<uintptr_t>(p), hi = lo + bytes;
  auto next = registry.lower_bound(lo);
  if (next != registry.end() && next->first < hi) return cudaErrorHostMemoryAlreadyRegistered;
  if (next != registry.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second.bytes > lo) return cudaErrorHostMemoryAlreadyRegistered;
  }
  registry[lo] = Range{bytes, flags};
  return cudaSuccess;
}

cudaError_t cudaHostUnregister(void* p) {
  std::lock_guard<std::mutex> lock(registry_mu);
  if (registry.erase(reinterpret_cast<uintptr_t>(p)) == 0) return cudaErrorHostMemoryNotRegistered;
  return cudaSuccess;
}

extern "C" {

// Returns 1 and the flags when a registered range starts at p, else 0.
int32_t snarkpipe_emu_host_flags(const void* p, uint32_t* flags) {
  std::lock_guard<std::mutex> lock(registry_mu);
  auto it = registry.find(reinterpret_cast<uintptr_t>(p));
  if (it == registry.end()) return 0;
  if (flags) *flags = it->second.flags;
  return 1;
}

}  // extern "C"
