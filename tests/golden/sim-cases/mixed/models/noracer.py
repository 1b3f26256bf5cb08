# model noracer
# sim: softfail race
# sim: softfail screen
import torch
