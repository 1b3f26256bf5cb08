# output code of wrongbase (simulated)
@triton.jit
def triton_poi_fused_add_mul_0(in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    # simulated kernel 0 of model eed83f3ab1af73e8, class aaaaaa
    pass

@triton.jit
def triton_poi_fused_add_mul_1(in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    # simulated kernel 1 of model eed83f3ab1af73e8, class baaaaa
    pass

def call(args):
    pass
