# expect: is missing
# original: poi_conv1.py
# an empty module
import triton
