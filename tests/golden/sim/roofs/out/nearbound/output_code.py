# output code of nearbound (simulated)
@triton.jit
def triton_poi_fused_add_mul_0(in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    # simulated kernel 0 of model 44698bc431c1869a, class aaaaaa
    xnumel = 16777216
    tmp0 = tl.load(in_ptr0 + (x0), None)
    tmp1 = tmp0 * tmp0
    tmp2 = tmp1 * tmp0
    pass

def call(args):
    pass
