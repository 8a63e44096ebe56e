#include <torch/extension.h>
void run_variant(int64_t v, at::Tensor x, at::Tensor q, at::Tensor s);
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("run", &run_variant); }
