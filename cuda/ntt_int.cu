// ABI-less unit: the Fr transforms with the integer CIOS product (ntt_ops.cuh).
#define SP_NTT_CIOS
#include "ntt_ops_impl.cuh"

const snarkpipe::NttOps& snarkpipe::ntt_ops_int() { return ntt_ops_here(); }
