// Host emulation of cub::DeviceSelect::Flagged (stable compaction).
#pragma once
namespace cub {
struct DeviceSelect {
  template <class T, class Flag, class N>
  static cudaError_t Flagged(void* temp, size_t& bytes, const T* in, const Flag* flags, T* out, N* nsel, int n,
                             cudaStream_t) {
    if (!temp) {
      bytes = 1;
      return cudaSuccess;
    }
    N k = 0;
    for (int i = 0; i < n; i++)
      if (flags[i]) out[k++] = in[i];
    *nsel = k;
    return cudaSuccess;
  }
};
}  // namespace cub
