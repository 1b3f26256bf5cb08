# model wrongbase
# sim: steady
# sim: kernels 2
# sim: baseline wrong
import torch
