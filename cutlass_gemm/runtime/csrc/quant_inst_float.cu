// The activation-quant kernels of float input, compiled in a unit of their own (see quant_launch.cuh).
// The other types are declared extern (launch_quant in the header names all three): compiled in their own units.
#define CG_QUANT_SPLIT_INSTANCES
#include "quant_launch.cuh"

namespace cg_quant {
template cudaError_t launch_quant_in<float>(RowArgs const&, RowMode, OutType, bool, cudaStream_t);
}  // namespace cg_quant
