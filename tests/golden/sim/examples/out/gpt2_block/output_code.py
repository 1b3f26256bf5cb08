# stitched output code (simulated)
# triton_red_fused__softmax_1: {"R0_BLOCK":4096,"XBLOCK":2,"num_stages":1,"num_warps":32}
# triton_poi_fused_add_mul_0: {"XBLOCK":1024,"num_stages":1,"num_warps":8}
def call(args):
    pass
