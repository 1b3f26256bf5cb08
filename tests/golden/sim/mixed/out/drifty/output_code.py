# stitched output code (simulated)
# triton_red_fused__softmax_0: {"R0_BLOCK":2048,"XBLOCK":1,"num_stages":2,"num_warps":8}
def call(args):
    pass
