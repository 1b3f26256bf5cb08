# stitched output code (simulated)
# triton_poi_fused_add_mul_0: {"XBLOCK":32,"num_stages":1,"num_warps":2}
def call(args):
    pass
