// ABI unit: G1 MSM, batch addition and bench bases.
#define SP_CURVE g1
#define SP_FIELD Fp
#include "curve_abi.cuh"
