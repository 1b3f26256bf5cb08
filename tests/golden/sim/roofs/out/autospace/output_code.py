# output code of autospace (simulated)
@triton.jit
def triton_poi_fused_add_mul_0(in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    # simulated kernel 0 of model c0943db177d908ca, class aaaaaa
    pass

@triton.jit
def triton_red_fused__softmax_1(in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    # simulated kernel 1 of model c0943db177d908ca, class baaaaa
    r0_numel = 16384
    pass

def call(args):
    pass
