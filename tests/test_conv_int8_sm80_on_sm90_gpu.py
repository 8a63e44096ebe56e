"""The SM80 int8 implicit-GEMM conv kernels (kernels/emit_conv80.py: CUTLASS 2's mainloop with a visitor epilogue;
what A100, A10, L4 and L40 users run) executed on an SM90 GPU: the SM90 family's own GPU tests, run again here with
the device switched to the SM80 kernel family (as tests/test_sm80_on_sm90_gpu.py does for the GEMMs), the kernels
compiled with sm_90 machine code beside sm_80 (CUTLASS_GEMM_SM80_ARCHS=80,90).

Imported from tests/test_conv_int8_gpu.py and tests/test_conv_chain_gpu.py (pytest collects them in this module too,
under this module's autouse fixture): every output element of the bf16 / fp16 kernels against float64 over the
shapes there (all three tiles, strides, padding, dilation, 1x1 / 3x3 / 5x3 / 7x7, every activation, bias or none),
`conv2d_int8` from float input against the CPU path, typed errors and opcheck, the layer under
torch.compile(fullgraph=True) and in a CUDA graph, the plan cache, the C++ eager entry, the int8-output kernels
(within one step of the reference), the NaN guard, ResNet-50 quantized with each scheme and as an int8 chain (its
1x1 convs and fc on the SM80 GEMMs). The last test checks that every kernel ran was an SM80 one and
that every kernel of the SM80 set ran. Run with `pytest -m gpu` on an H100/H200."""
import pytest

from cutlass_gemm.kernels import conv2d
from cutlass_gemm.kernels.families import config_from_name
from cutlass_gemm.ops import conv_igemm
from cutlass_gemm.ops import gemm as gemm_ops
from cutlass_gemm.runtime import build, fastpath, kernel_list
from gpu_helpers import family_on_sm90
from test_conv_chain_gpu import (test_int8_output_kernel, test_int8_output_opcheck_on_gpu,  # noqa: F401
                                 test_resnet50_int8_chain, test_scale_guard_in_the_kernel)
from test_conv_int8_gpu import (test_conv2d_int8_matches_the_cpu_path,  # noqa: F401
                                test_eager_cpp_entry_serves_a_planned_signature,
                                test_every_kernel_of_the_family_against_float64,
                                test_kernel_every_element_against_float64,
                                test_layer_compile_fullgraph_and_cuda_graph_without_sync,
                                test_plan_cache_new_data_and_graph_replay, test_resnet50_end_to_end,
                                test_typed_errors_before_launch_and_opcheck)

pytestmark = pytest.mark.gpu


def _forget_plans():
    conv_igemm._plans.clear()
    gemm_ops._plans.clear()
    gemm_ops._selected.clear()
    fast = fastpath.module()
    if fast is not None:
        fast.clear_conv_plans()
        fast.clear_plans()


def family_configs():
    """The kernels this module's fixture builds at once (tools/suite_plan.py builds them ahead for a run of this file)."""
    return conv2d.default_configs(80)


@pytest.fixture(scope="module", autouse=True)
def sm80_conv_family():
    # the 27 kernels built at once, not one by one on first use
    with family_on_sm90(80, family_configs(), "sm80_conv", {build.SM80_ARCHS_ENV: "80,90"},
                        _forget_plans) as dev:
        yield dev


def test_zz_every_conv_kernel_that_ran_is_sm80_and_every_sm80_kernel_ran():
    """After the imported tests (this one is defined last): the conv kernels this process loaded are the SM80
    set's, and all of it (3 tiles x bf16 / fp16 / int8 x none / relu / relu6) except what no test asks for."""
    loaded = [config_from_name(n) for n in kernel_list.loaded_names() if "_conv2d_" in n]
    assert loaded and all(c.sm == 80 for c in loaded), sorted(c.name for c in loaded if c.sm != 80)
    # int8 output with relu6 and fp16 int8-twins: no imported test asks for them
    want = {c.name for c in conv2d.default_configs(80) if not (c.out_dtype == "s8" and c.activation == "relu6")}
    missing = want - {c.name for c in loaded}
    assert not missing, f"SM80 conv kernels no test ran: {sorted(missing)}"
    print(f"{len(loaded)} SM80 conv kernels ran")
