# stitched output code (simulated)
# triton_poi_fused_add_mul_0: {"XBLOCK":512,"num_stages":1,"num_warps":16}
# triton_red_fused__softmax_1: {"R0_BLOCK":512,"XBLOCK":1,"num_stages":1,"num_warps":16}
def call(args):
    pass
