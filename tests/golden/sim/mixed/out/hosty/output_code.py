# output code of hosty (simulated)
@triton.jit
def triton_red_fused__softmax_0(in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    # simulated kernel 0 of model 1c10442349cae3d5, class aaaaaa
    r0_numel = 16384
    pass

@triton.jit
def triton_poi_fused_add_mul_1(in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    # simulated kernel 1 of model 1c10442349cae3d5, class baaaaa
    pass

def call(args):
    pass
