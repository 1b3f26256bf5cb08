# stitched output code (simulated)
# triton_poi_fused_add_mul_0: {"XBLOCK":2048,"num_stages":1,"num_warps":4}
# triton_poi_fused_add_mul_1: {"XBLOCK":2048,"num_stages":1,"num_warps":4}
def call(args):
    pass
