# stitched output code (simulated)
# _helion_hk0: {"block_sizes":[512,32],"indexing":"pointer","loop_orders":[[0,1]],"num_stages":2,"num_warps":2,"pid_type":"flat"}
def call(args):
    pass
