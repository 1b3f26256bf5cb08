# expect: its value is made from what the gate cannot follow
# original: per_layernorm_gelu3.py
# the weight's distance copied 120 times, past the steps the gate follows, then written as data, read back, and the store lands on in_ptr0: what the gate cannot follow is no data a kernel writes
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.persistent_reduction(
    size_hints={'x': 64, 'r0_': 1024},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*fp32', 'in_ptr1': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused_gelu_native_layer_norm_3', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': True, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 3, 'num_store': 1, 'num_reduction': 4, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 0, 'r0_': 794624}}
)
@triton.jit
def triton_per_fused_gelu_native_layer_norm_3(in_out_ptr0, in_ptr0, in_ptr1, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 64
    r0_numel = 1024
    R0_BLOCK: tl.constexpr = 1024
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = tl.full([R0_BLOCK], True, tl.int1)[None, :]
    roffset = r0_offset
    rindex = r0_index
    r0_1 = r0_index
    x0 = xindex
    tmp0 = tl.load(in_out_ptr0 + (r0_1 + 1024*x0), xmask, other=0.0)
    tmp24 = tl.load(in_ptr0 + (r0_1), None, eviction_policy='evict_last')
    tmp26 = tl.load(in_ptr1 + (r0_1), None, eviction_policy='evict_last')
    tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
    tmp3 = tl.where(xmask, tmp1, 0)
    tmp4 = tl.broadcast_to(tmp1, [XBLOCK, R0_BLOCK])
    tmp6 = tl.where(xmask, tmp4, 0)
    tmp7 = tl.sum(tmp6, 1)[:, None].to(tl.float32)
    tmp8 = tl.full([1, 1], 1024, tl.int32)
    tmp9 = tmp8.to(tl.float32)
    tmp10 = (tmp7 / tmp9)
    tmp11 = tmp1 - tmp10
    tmp12 = tmp11 * tmp11
    tmp13 = tl.broadcast_to(tmp12, [XBLOCK, R0_BLOCK])
    tmp15 = tl.where(xmask, tmp13, 0)
    tmp16 = tl.sum(tmp15, 1)[:, None].to(tl.float32)
    tmp17 = tmp0 - tmp10
    tmp18 = tl.full([1, 1], 1024.0, tl.float32)
    tmp19 = (tmp16 / tmp18)
    tmp20 = tl.full([1, 1], 1e-05, tl.float32)
    tmp21 = tmp19 + tmp20
    tmp22 = libdevice.rsqrt(tmp21)
    tmp23 = tmp17 * tmp22
    tmp25 = tmp23 * tmp24
    tmp27 = tmp25 + tmp26
    tmp28 = tl.full([1, 1], 0.5, tl.float32)
    tmp29 = tmp27 * tmp28
    tmp30 = tl.full([1, 1], 0.7071067811865476, tl.float32)
    tmp31 = tmp27 * tmp30
    tmp32 = libdevice.erf(tmp31)
    tmp33 = tl.full([1, 1], 1.0, tl.float32)
    tmp34 = tmp32 + tmp33
    tmp35 = tmp29 * tmp34
    c0 = ((in_ptr0.to(tl.int64) - in_out_ptr0.to(tl.int64)) // 4).to(tl.int32) - 1024*x0
    c1 = c0
    c2 = c1
    c3 = c2
    c4 = c3
    c5 = c4
    c6 = c5
    c7 = c6
    c8 = c7
    c9 = c8
    c10 = c9
    c11 = c10
    c12 = c11
    c13 = c12
    c14 = c13
    c15 = c14
    c16 = c15
    c17 = c16
    c18 = c17
    c19 = c18
    c20 = c19
    c21 = c20
    c22 = c21
    c23 = c22
    c24 = c23
    c25 = c24
    c26 = c25
    c27 = c26
    c28 = c27
    c29 = c28
    c30 = c29
    c31 = c30
    c32 = c31
    c33 = c32
    c34 = c33
    c35 = c34
    c36 = c35
    c37 = c36
    c38 = c37
    c39 = c38
    c40 = c39
    c41 = c40
    c42 = c41
    c43 = c42
    c44 = c43
    c45 = c44
    c46 = c45
    c47 = c46
    c48 = c47
    c49 = c48
    c50 = c49
    c51 = c50
    c52 = c51
    c53 = c52
    c54 = c53
    c55 = c54
    c56 = c55
    c57 = c56
    c58 = c57
    c59 = c58
    c60 = c59
    c61 = c60
    c62 = c61
    c63 = c62
    c64 = c63
    c65 = c64
    c66 = c65
    c67 = c66
    c68 = c67
    c69 = c68
    c70 = c69
    c71 = c70
    c72 = c71
    c73 = c72
    c74 = c73
    c75 = c74
    c76 = c75
    c77 = c76
    c78 = c77
    c79 = c78
    c80 = c79
    c81 = c80
    c82 = c81
    c83 = c82
    c84 = c83
    c85 = c84
    c86 = c85
    c87 = c86
    c88 = c87
    c89 = c88
    c90 = c89
    c91 = c90
    c92 = c91
    c93 = c92
    c94 = c93
    c95 = c94
    c96 = c95
    c97 = c96
    c98 = c97
    c99 = c98
    c100 = c99
    c101 = c100
    c102 = c101
    c103 = c102
    c104 = c103
    c105 = c104
    c106 = c105
    c107 = c106
    c108 = c107
    c109 = c108
    c110 = c109
    c111 = c110
    c112 = c111
    c113 = c112
    c114 = c113
    c115 = c114
    c116 = c115
    c117 = c116
    c118 = c117
    c119 = c118
    c120 = c119
    tl.store(in_out_ptr0 + (r0_1 + 1024*x0), c120.to(tl.float32, bitcast=True), xmask)
    tl.debug_barrier()
    d = tl.load(in_out_ptr0 + (r0_1 + 1024*x0), xmask, other=0.0).to(tl.int32, bitcast=True)
    tl.store(in_out_ptr0 + (r0_1 + 1024*x0) + d, tmp35 * 0.0, xmask)
    tl.debug_barrier()
    tl.store(in_out_ptr0 + (r0_1 + 1024*x0), tmp35, xmask)
