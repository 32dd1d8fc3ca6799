/* C ABI of libsnarkpipe_cuda.so, loaded at run time by cuda/cuda.go (purego, no cgo).
 *
 * Conventions
 * - Every function returns NULL on success or a snarkpipe_status* that the caller frees
 *   with snarkpipe_status_free. No C++ exception crosses this boundary.
 * - Field elements and points use gnark-crypto's in-memory layout: Fr = 32 bytes, Fp = 48
 *   bytes, both little-endian limbs in Montgomery form; G1 affine = 96 bytes {X, Y}, G2
 *   affine = 192 bytes {X.A0, X.A1, Y.A0, Y.A1}; (0, 0) is infinity.
 * - XYZZ results are {X, Y, ZZ, ZZZ} (x = X/ZZ, y = Y/ZZZ; ZZ = 0 is infinity), 4 field
 *   elements of the curve's base field.
 * - "d_" pointers are device pointers from snarkpipe_mem_alloc; "h_" pointers are host
 *   memory. Every call is synchronous on the context's stream.
 * - Nothing here reads environment variables.
 */
#ifndef SNARKPIPE_CAPI_H
#define SNARKPIPE_CAPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
  SNARKPIPE_OK = 0,
  SNARKPIPE_EINVAL = 1,    /* bad argument */
  SNARKPIPE_ECUDA = 2,     /* CUDA runtime error */
  SNARKPIPE_ENOMEM = 3,    /* device out of memory */
  SNARKPIPE_ENODEV = 4,    /* no such device */
  SNARKPIPE_EINTERNAL = 5, /* unexpected host-side failure */
};

#define SNARKPIPE_MAX_WINDOWS 64

typedef struct snarkpipe_status {
  int32_t code;
  char* msg;
} snarkpipe_status;

typedef struct snarkpipe_ctx snarkpipe_ctx;

void snarkpipe_status_free(snarkpipe_status* st);

/* Devices and contexts. */
snarkpipe_status* snarkpipe_device_count(int32_t* out);
/* name: NUL-terminated, at most name_cap bytes. */
snarkpipe_status* snarkpipe_device_info(int32_t device, char* name, uint64_t name_cap,
                                        uint64_t* total_mem, int32_t* sm_count);
/* Free and total memory of a device now (cudaMemGetInfo; used = total - free counts every
 * process and this library's cached pool). Needs no context; the calling thread's current
 * device is restored. Optional in cuda.go: an older build lacks it. */
snarkpipe_status* snarkpipe_device_mem_info(int32_t device, uint64_t* free_bytes, uint64_t* total_bytes);
snarkpipe_status* snarkpipe_ctx_create(int32_t device, snarkpipe_ctx** out);
snarkpipe_status* snarkpipe_ctx_destroy(snarkpipe_ctx* ctx);

/* Device properties for the choice of arithmetic and kernel parameters (all from
 * cudaDeviceGetAttribute; clocks in kHz, sizes in bytes). fp32_per_fp64 is
 * cudaDevAttrSingleToDoublePrecisionPerfRatio: 2 on A100/H100/H200, 32 or 64 on consumer
 * cards. kernel_binary_version and kernel_ptx_version are those of one kernel of this
 * library as the driver loaded it for the device (10·major + minor): a PTX version below
 * the binary one means the driver compiled the library's PTX for the device (JIT).
 * size: sizeof(snarkpipe_device_props) as the caller knows it (fields beyond are not
 * written), so older callers keep working. */
typedef struct snarkpipe_device_props {
  int64_t cc_major, cc_minor;
  int64_t sm_count;
  int64_t total_mem;
  int64_t clock_khz, mem_clock_khz, mem_bus_bits;
  int64_t fp32_per_fp64;
  int64_t smem_per_block_optin, smem_per_sm;
  int64_t l2_bytes;
  int64_t regs_per_sm, threads_per_sm;
  int64_t pci_bus, pci_device;
  int64_t kernel_binary_version, kernel_ptx_version;
} snarkpipe_device_props;
snarkpipe_status* snarkpipe_device_props_get(int32_t device, snarkpipe_device_props* out, uint64_t size);
/* What the library was built for: a NUL-terminated text of at most cap bytes, e.g.
 * "cuda 13.0; sm_80 sm_86 sm_89 sm_90 sm_100 sm_120 compute_120". */
snarkpipe_status* snarkpipe_build_info(char* out, uint64_t cap);

/* Device-memory ledger: every device allocation of the library (snarkpipe_mem_alloc and
 * the calls' scratch) is counted per device; with a limit (bytes, 0 = none) an
 * allocation that would take the count past it fails with SNARKPIPE_ENOMEM, as on a card
 * of that size. The limit may not be set below the bytes allocated now. While a limit is
 * set, snarkpipe_device_mem_info reports total = min(total, limit) and
 * free = min(free, limit - allocated). ledger: the limit, the bytes allocated now and the
 * most allocated since the last reset_peak. */
snarkpipe_status* snarkpipe_device_set_limit(int32_t device, uint64_t limit);
snarkpipe_status* snarkpipe_device_ledger(int32_t device, uint64_t* limit, uint64_t* used, uint64_t* peak);
snarkpipe_status* snarkpipe_device_reset_peak(int32_t device);

/* The Fr product of the context's NTTs and quotient: SNARKPIPE_ARITH_FP64 (the
 * products on the FP64 pipe, dpf.cuh: fast where FP64 runs at half the FP32 rate) or
 * SNARKPIPE_ARITH_INT (the integer CIOS product of field.cuh: every GPU). Both give the
 * same field elements. A new context starts with FP64. */
enum { SNARKPIPE_ARITH_FP64 = 0, SNARKPIPE_ARITH_INT = 1 };
snarkpipe_status* snarkpipe_ctx_set_arith(snarkpipe_ctx* ctx, int32_t arith);

/* Device memory (stream-ordered pool; freed memory is kept for reuse). */
snarkpipe_status* snarkpipe_mem_alloc(snarkpipe_ctx* ctx, uint64_t bytes, void** d_out);
snarkpipe_status* snarkpipe_mem_free(snarkpipe_ctx* ctx, void* d_ptr);
snarkpipe_status* snarkpipe_mem_upload(snarkpipe_ctx* ctx, void* d_dst, const void* h_src, uint64_t bytes);
snarkpipe_status* snarkpipe_mem_download(snarkpipe_ctx* ctx, void* h_dst, const void* d_src, uint64_t bytes);
/* Page-locks (unlocks) a host range for fast uploads (host.cu); the memory must stay
 * allocated until it is unregistered. Registered portable (pinned for every GPU of the
 * process); the calls use the context's device only, not its stream or events, so they
 * may run while a proof runs on the context (the Go side does not hold the device lock). */
snarkpipe_status* snarkpipe_host_register(snarkpipe_ctx* ctx, void* h_ptr, uint64_t bytes);
snarkpipe_status* snarkpipe_host_unregister(snarkpipe_ctx* ctx, void* h_ptr);
/* Releases pooled memory back to the device. */
snarkpipe_status* snarkpipe_mem_trim(snarkpipe_ctx* ctx);
/* Elapsed device time of the last public call on this context, in nanoseconds. */
snarkpipe_status* snarkpipe_ctx_last_ns(snarkpipe_ctx* ctx, uint64_t* ns);
/* MSM counters of this context since its creation: MSMs run (with scalars other than 0
 * and 1), MSMs that ran without their batch-affine pair rounds because the rounds' scratch
 * did not fit the device (slower, same result), and MSMs that took batches of 2^28
 * sorted entries. */
snarkpipe_status* snarkpipe_ctx_msm_stats(snarkpipe_ctx* ctx, uint64_t* calls, uint64_t* rounds_dropped,
                                          uint64_t* wide_batches);

/* Multi-scalar multiplication Σ s_i·P_i, i < n, scalars Fr (Montgomery) on the device.
 * Writes the window sums W_0..W_{nwins-1} (XYZZ) to h_windows (room for
 * SNARKPIPE_MAX_WINDOWS points); the result is Σ_w 2^(w·c)·W_w. window_bits 0 = auto;
 * its bits above 7 select tuning variants for measurements (cuda/msm.cuh, MsmTuning). 
 * Scalars equal to one are summed by batch addition and folded into W_0. */
snarkpipe_status* snarkpipe_g1_msm(snarkpipe_ctx* ctx, const void* d_bases, const void* d_scalars,
                                   uint64_t n, uint32_t window_bits, void* h_windows,
                                   uint32_t* nwins, uint32_t* c);
snarkpipe_status* snarkpipe_g2_msm(snarkpipe_ctx* ctx, const void* d_bases, const void* d_scalars,
                                   uint64_t n, uint32_t window_bits, void* h_windows,
                                   uint32_t* nwins, uint32_t* c);

/* The MSM above over bases in host memory (page-locked with snarkpipe_host_register for
 * the copies to overlap the work: the memory tiers' streamed keys), copied to the device
 * in chunks of `chunk` points (0 = sized from the device's spare memory) through two
 * buffers; same windows out, one width for every chunk, the same point as the MSM over
 * device bases. */
snarkpipe_status* snarkpipe_g1_msm_host(snarkpipe_ctx* ctx, const void* h_bases, const void* d_scalars,
                                        uint64_t n, uint64_t chunk, uint32_t window_bits, void* h_windows,
                                        uint32_t* nwins, uint32_t* c);
snarkpipe_status* snarkpipe_g2_msm_host(snarkpipe_ctx* ctx, const void* h_bases, const void* d_scalars,
                                        uint64_t n, uint64_t chunk, uint32_t window_bits, void* h_windows,
                                        uint32_t* nwins, uint32_t* c);

/* Σ P_i over the set bits i < n of a host bitmap (bit i = word[i/32] >> (i%32) & 1 on
 * 32-bit words; a little-endian uint64 bitmap has the same bytes). One XYZZ to h_out. */
snarkpipe_status* snarkpipe_g1_batch_add(snarkpipe_ctx* ctx, const void* d_bases, const void* h_bitmap,
                                         uint64_t n, void* h_out);
snarkpipe_status* snarkpipe_g2_batch_add(snarkpipe_ctx* ctx, const void* d_bases, const void* h_bitmap,
                                         uint64_t n, void* h_out);

/* NTT over Fr of size 2^lg_n in place; root is a primitive 2^lg_n-th root of unity
 * (Montgomery). flags bit 0 (dit) = 0: natural-order input, bit-reversed output
 * (decimation in frequency); 1: bit-reversed input, natural output (decimation in time).
 * flags bits 8..12: log2 of the shared-memory tile (10 or 11; 0 = default), for tuning;
 * bit 13: the legacy kernel (one butterfly per thread per stage), bit 14: no direct
 * twiddle tables, bit 15: the kernel capped at 128 registers, all for comparisons. */
snarkpipe_status* snarkpipe_fr_ntt(snarkpipe_ctx* ctx, void* d_data, uint32_t lg_n, const void* h_root,
                                   int32_t flags);
/* Coset NTT: x[p] *= c·g^p, then snarkpipe_fr_ntt with the same flags; the scaling is
 * done in the transform's first pass. Optional in cuda.go: an older build lacks it. */
snarkpipe_status* snarkpipe_fr_ntt_coset(snarkpipe_ctx* ctx, void* d_data, uint32_t lg_n, const void* h_root,
                                         const void* h_c, const void* h_g, int32_t flags);
/* x[p] *= c·g^i with i = p, or i = bitrev(p) when bitrev_index; h_g NULL means g = 1. */
snarkpipe_status* snarkpipe_fr_scale(snarkpipe_ctx* ctx, void* d_data, uint32_t lg_n, const void* h_c,
                                     const void* h_g, int32_t bitrev_index);
/* In-place bit-reversal permutation. */
snarkpipe_status* snarkpipe_fr_bitrev(snarkpipe_ctx* ctx, void* d_data, uint32_t lg_n);
/* bellperson's quotient: consts = {omega, omega_inv, g, g_inv, n_inv, z_inv} (6 × 32 bytes,
 * Montgomery). a, b, c hold evaluations over the 2^lg_n domain; on return a holds the
 * coefficients of h = (A·B − C)/Z in natural order; b and c are clobbered. */
snarkpipe_status* snarkpipe_fr_quotient(snarkpipe_ctx* ctx, void* d_a, void* d_b, void* d_c, uint32_t lg_n,
                                        const void* h_consts);

/* Sparse R1CS products for the pre-compiled path (spmv.cuh). One side of a recorded system
 * in CSR form: d_rowptr (rows + 1 uint64), d_col (uint32 columns of z), d_coeff (uint32 slots
 * of d_coeffs, an Fr table whose slot 0 is 1 and slot 1 is -1). Writes
 * out[j] = sum_k coeffs[coeff[k]]·z[col[k]] over row j's terms for j < rows and zero for
 * rows <= j < n_out. Columns and slots are trusted (checked by the caller at upload). */
snarkpipe_status* snarkpipe_fr_csr_eval(snarkpipe_ctx* ctx, const void* d_rowptr, const void* d_col,
                                        const void* d_coeff, const void* d_coeffs, uint64_t rows, const void* d_z,
                                        void* d_out, uint64_t n_out);
/* snarkpipe_fr_csr_eval over a side whose rowptr, col and coeff arrays are in host memory
 * (page-locked for speed: the memory tiers' streamed shape), copied in chunks of rows of at
 * most chunk_terms terms (> 0) through two device buffer sets; the same out. */
snarkpipe_status* snarkpipe_fr_csr_eval_host(snarkpipe_ctx* ctx, const void* h_rowptr, const void* h_col,
                                             const void* h_coeff, const void* d_coeffs, uint64_t rows,
                                             const void* d_z, void* d_out, uint64_t n_out, uint64_t chunk_terms);
/* Bit-packed witness: z[i] (i < n) = vals[rank] when bit i of d_field is set (rank = set
 * field bits before i = d_rank[i/64] + the popcount below i in its word), else h_one when
 * bit i of d_ones is set, else zero. Bitmaps are uint64 words (bit i = word[i/64] >> i%64);
 * d_rank is one uint32 per word. */
snarkpipe_status* snarkpipe_fr_unpack(snarkpipe_ctx* ctx, void* d_z, uint64_t n, const void* d_field,
                                      const void* d_ones, const void* d_rank, const void* d_vals, const void* h_one);
/* out[i] = src[idx[i]] for i < n (uint32 indices, trusted). */
snarkpipe_status* snarkpipe_fr_gather(snarkpipe_ctx* ctx, const void* d_src, const void* d_idx, uint64_t n,
                                      void* d_out);

/* Benchmark-parameter setup (setup.cuh): known, insecure toxic waste, for benchmarks only.
 * lagrange: out[j] = scale·omega^j/(tau − omega^j), j < 2^lg_n (tau^(2^lg_n) must not be 1).
 * powers: out[j] = scale·base^j, j < n. lincomb: out[i] = (k0·u[i] + k1·v[i] + w[i])·k2 with
 * h_k = {k0, k1, k2}. fixed_mul: out[i] = s_i·G (affine, gnark layout) with h_table[16·w + d]
 * = d·2^(4w)·G for w < 64, d < 16 (entry d = 0 unused). */
snarkpipe_status* snarkpipe_fr_lagrange(snarkpipe_ctx* ctx, void* d_out, uint32_t lg_n, const void* h_omega,
                                        const void* h_tau, const void* h_scale);
snarkpipe_status* snarkpipe_fr_powers(snarkpipe_ctx* ctx, void* d_out, uint64_t n, const void* h_base,
                                      const void* h_scale);
snarkpipe_status* snarkpipe_fr_lincomb(snarkpipe_ctx* ctx, void* d_out, const void* d_u, const void* d_v,
                                       const void* d_w, uint64_t n, const void* h_k);
snarkpipe_status* snarkpipe_g1_fixed_mul(snarkpipe_ctx* ctx, void* d_out, const void* d_scalars, uint64_t n,
                                         const void* h_table);
snarkpipe_status* snarkpipe_g2_fixed_mul(snarkpipe_ctx* ctx, void* d_out, const void* d_scalars, uint64_t n,
                                         const void* h_table);

/* Bench and test helpers. */
/* out[i] = A[i mod 2^lg_a] + B[i >> lg_a] (affine), n <= nb << lg_a. */
snarkpipe_status* snarkpipe_g1_gen_bases(snarkpipe_ctx* ctx, void* d_out, uint64_t n, const void* h_a,
                                         uint32_t lg_a, const void* h_b, uint64_t nb);
snarkpipe_status* snarkpipe_g2_gen_bases(snarkpipe_ctx* ctx, void* d_out, uint64_t n, const void* h_a,
                                         uint32_t lg_a, const void* h_b, uint64_t nb);
/* Pseudo-random Fr scalars (< 2^253, read as Montgomery); per mille zeros and ones
 * (h_one = one in Montgomery form). */
snarkpipe_status* snarkpipe_fr_gen_scalars(snarkpipe_ctx* ctx, void* d_out, uint64_t n, uint64_t seed,
                                           uint32_t zero_permille, uint32_t one_permille, const void* h_one);
/* Field self-test hooks: out[i] = a[i]·b[i] and a[i]+b[i], a[i]-b[i] (host arrays of n). */
snarkpipe_status* snarkpipe_fp_mul_test(snarkpipe_ctx* ctx, const void* h_a, const void* h_b, uint64_t n,
                                        void* h_mul, void* h_add, void* h_sub);
snarkpipe_status* snarkpipe_fr_mul_test(snarkpipe_ctx* ctx, const void* h_a, const void* h_b, uint64_t n,
                                        void* h_mul, void* h_add, void* h_sub);

#ifdef __cplusplus
}
#endif

#endif /* SNARKPIPE_CAPI_H */
