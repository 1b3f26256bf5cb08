# stitched output code (simulated)
# triton_poi_fused_add_mul_0: {"XBLOCK":4096,"num_stages":1,"num_warps":1}
def call(args):
    pass
