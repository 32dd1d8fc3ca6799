// ABI unit: G2 MSM, batch addition and bench bases.
#define SP_CURVE g2
#define SP_FIELD Fp2
#include "curve_abi.cuh"
