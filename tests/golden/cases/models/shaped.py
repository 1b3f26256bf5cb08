# a KernelBench-format model whose inputs come from module-level names (golden tests of shapes)
import torch

batch_size = 16
dim: int = 1024
input_shape = (3, 224)
scale, bias = 0.5, 0.1
N = 2048  # KernelBench's matmul files name their sizes in capitals


def get_inputs():
    inner = 2
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return []
