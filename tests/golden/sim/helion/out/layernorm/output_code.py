# stitched output code (simulated)
# _helion_hk0: {"block_sizes":[128,16],"indexing":"pointer","loop_orders":[[0,1]],"num_stages":2,"num_warps":4,"pid_type":"flat"}
def call(args):
    pass
