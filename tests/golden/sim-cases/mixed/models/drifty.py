# model drifty
# sim: drift default
# sim: dram error
# sim: peak 0
# sim: vendor uncaptured
import torch
