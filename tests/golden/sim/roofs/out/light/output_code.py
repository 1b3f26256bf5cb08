# output code of light (simulated)
@triton.jit
def triton_red_fused__softmax_0(in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    # simulated kernel 0 of model 80718065695b18a9, class aaaaaa
    r0_numel = 16384
    xnumel = 1024
    tmp0 = tl.load(in_ptr0 + (x0), None)
    tmp1 = tmp0 * tmp0
    tmp2 = tmp1 * tmp0
    pass

@triton.jit
def triton_poi_fused_add_mul_1(in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    # simulated kernel 1 of model 80718065695b18a9, class baaaaa
    xnumel = 16777216
    tmp0 = tl.load(in_ptr0 + (x0), None)
    tmp1 = tmp0 * tmp0
    tmp2 = tmp1 * tmp0
    pass

def call(args):
    pass
