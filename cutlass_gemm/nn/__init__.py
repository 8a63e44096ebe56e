"""Quantized layers and whole-model conversion: `Int8Linear`, `Fp8Linear`, `Fp8BlockLinear`, `Int8BlockLinear`,
`WeightOnlyLinear`, the convolutions `Int8Conv2d` and `WeightOnlyConv2d` (any kernel, stride, padding, dilation;
groups 1), `quantize_model`,
`calibrate`, int8 activation chaining between convolutions (`fold_batchnorm`, `chain_int8`), and greedy decoding replayed from a CUDA graph (`greedy_generate_cuda_graph`, with
`greedy_generate_eager` as its reference), for checks and demos."""
from .chain import ChainReport, chain_int8, fold_batchnorm
from .blockwise import Fp8BlockLinear, blockwise_unservable_reason
from .block_linear import Int8BlockLinear, block_unservable_reason
from .conv import Int8Conv2d, WeightOnlyConv2d, conv_unservable_reason
from .convert import BLOCK_SCHEMES, SCHEMES, WEIGHT_ONLY_SCHEMES, QuantizationReport, calibrate, quantize_model
from .graph_generate import Generation, greedy_generate_cuda_graph, greedy_generate_eager
from .linear import Fp8Linear, Int8Linear, unservable_reason
from .weight_only import WeightOnlyLinear, weight_only_unservable_reason

__all__ = ["Int8Linear", "Fp8Linear", "quantize_model", "calibrate", "QuantizationReport", "SCHEMES",
           "greedy_generate_cuda_graph", "greedy_generate_eager", "Generation", "unservable_reason",
           "WeightOnlyLinear", "WEIGHT_ONLY_SCHEMES", "weight_only_unservable_reason",
           "WeightOnlyConv2d", "Int8Conv2d", "conv_unservable_reason", "Fp8BlockLinear",
           "blockwise_unservable_reason",
           "Int8BlockLinear", "BLOCK_SCHEMES", "block_unservable_reason", "chain_int8", "fold_batchnorm",
           "ChainReport"]
