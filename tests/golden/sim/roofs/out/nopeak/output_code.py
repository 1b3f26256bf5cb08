# stitched output code (simulated)
# triton_red_fused__softmax_0: {"R0_BLOCK":2048,"XBLOCK":2,"num_stages":1,"num_warps":16}
def call(args):
    pass
