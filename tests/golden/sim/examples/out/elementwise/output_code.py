# stitched output code (simulated)
# triton_red_fused__softmax_1: {"R0_BLOCK":2048,"XBLOCK":1,"num_stages":1,"num_warps":32}
# triton_poi_fused_add_mul_3: {"XBLOCK":2048,"num_stages":1,"num_warps":2}
def call(args):
    pass
