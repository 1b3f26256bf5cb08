# model nocap
# sim: error capture
import torch
