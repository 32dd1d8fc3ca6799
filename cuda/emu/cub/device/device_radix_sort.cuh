// Host emulation of cub::DeviceRadixSort::SortPairs (stable, by key).
#pragma once
namespace cub {
struct DeviceRadixSort {
  template <class K, class V>
  static cudaError_t SortPairs(void* temp, size_t& bytes, const K* kin, K* kout, const V* vin, V* vout, int n, int,
                               int, cudaStream_t) {
    if (!temp) {
      bytes = 1;
      return cudaSuccess;
    }
    std::vector<int> idx(n);
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return kin[a] < kin[b]; });
    for (int i = 0; i < n; i++) {
      kout[i] = kin[idx[i]];
      vout[i] = vin[idx[i]];
    }
    return cudaSuccess;
  }
};
}  // namespace cub
