"""ResNet-101 at KernelBench level 3's size (batch 10, 224 x 224, float32):
the network of the issue's capture figure, for bench/network.

Its blocks are examples/models/resnet50.py's (read from that file, so the
two networks cannot drift apart); only the depth and the batch differ.
A build keys this model on this file's bytes alone: a change to
resnet50.py is seen here only by a clean build (-B).
"""
import importlib.util
import os

_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "models", "resnet50.py")
_spec = importlib.util.spec_from_file_location("kopt_bench_resnet_blocks", _path)
_base = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_base)

torch = _base.torch
Model = _base.Model
batch_size = 10
layers = [3, 4, 23, 3]


def get_inputs():
    return [torch.randn(batch_size, 3, 224, 224)]


def get_init_inputs():
    return [layers]
