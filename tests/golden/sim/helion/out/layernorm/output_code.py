# stitched output code (simulated)
# _helion_hk0: {"block_sizes":[128,32],"indexing":"pointer","load_eviction_policies":["","last"],"loop_orders":[[0,1]],"num_stages":2,"num_warps":4,"pid_type":"flat","range_flattens":[null,true],"static_ranges":[false]}
def call(args):
    pass
