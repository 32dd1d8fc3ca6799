// ABI-less unit: the Fr transforms with their products on the FP64 pipe (ntt_ops.cuh).
#ifdef SP_NTT_CIOS
#error "SP_NTT_CIOS builds ntt_int.cu; choose the integer product at run time (snarkpipe_ctx_set_arith)"
#endif
#include "ntt_ops_impl.cuh"

const snarkpipe::NttOps& snarkpipe::ntt_ops_fp64() { return ntt_ops_here(); }
