# stitched output code (simulated)
# triton_poi_fused_add_mul_1: {"XBLOCK":2048,"num_stages":1,"num_warps":16}
# triton_red_fused__softmax_0: {"R0_BLOCK":2048,"XBLOCK":2,"num_stages":2,"num_warps":16}
def call(args):
    pass
