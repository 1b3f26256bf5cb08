# output code of shaped (simulated)
@triton_heuristics.pointwise(size_hints={'x': 65536})
@triton.jit
def triton_poi_fused_add_mul_0(in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    # simulated kernel 0 of model 410c9cc31c7179bf, class aaaaaa
    pass

@triton_heuristics.pointwise(size_hints={'x': 65536})
@triton.jit
def triton_poi_fused_add_mul_1(in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    # simulated kernel 1 of model 410c9cc31c7179bf, class baaaaa
    pass

def call(args):
    pass
