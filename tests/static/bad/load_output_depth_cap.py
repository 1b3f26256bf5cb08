# expect: more steps than the gate follows
# original: standalone_stack.py
# out_ptr copied 120 times, past the steps the gate follows, where the original loads through pointers read from memory: a load of the write-only output, which the memcheck passes (in bounds)
"""A standalone Triton kernel over a stack of tensors given by their
addresses (as Helion's stack tensors are): out[i] = sum over k of x_k[i]."""
import triton
import triton.language as tl


@triton.jit
def stack_sum_kernel(addrs_ptr, out_ptr, n, K: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k in tl.static_range(K):
        base = tl.load(addrs_ptr + k).to(tl.pointer_type(tl.float32))
        acc += tl.load(base + offs, mask=mask, other=0.0)
    p0 = out_ptr
    p1 = p0
    p2 = p1
    p3 = p2
    p4 = p3
    p5 = p4
    p6 = p5
    p7 = p6
    p8 = p7
    p9 = p8
    p10 = p9
    p11 = p10
    p12 = p11
    p13 = p12
    p14 = p13
    p15 = p14
    p16 = p15
    p17 = p16
    p18 = p17
    p19 = p18
    p20 = p19
    p21 = p20
    p22 = p21
    p23 = p22
    p24 = p23
    p25 = p24
    p26 = p25
    p27 = p26
    p28 = p27
    p29 = p28
    p30 = p29
    p31 = p30
    p32 = p31
    p33 = p32
    p34 = p33
    p35 = p34
    p36 = p35
    p37 = p36
    p38 = p37
    p39 = p38
    p40 = p39
    p41 = p40
    p42 = p41
    p43 = p42
    p44 = p43
    p45 = p44
    p46 = p45
    p47 = p46
    p48 = p47
    p49 = p48
    p50 = p49
    p51 = p50
    p52 = p51
    p53 = p52
    p54 = p53
    p55 = p54
    p56 = p55
    p57 = p56
    p58 = p57
    p59 = p58
    p60 = p59
    p61 = p60
    p62 = p61
    p63 = p62
    p64 = p63
    p65 = p64
    p66 = p65
    p67 = p66
    p68 = p67
    p69 = p68
    p70 = p69
    p71 = p70
    p72 = p71
    p73 = p72
    p74 = p73
    p75 = p74
    p76 = p75
    p77 = p76
    p78 = p77
    p79 = p78
    p80 = p79
    p81 = p80
    p82 = p81
    p83 = p82
    p84 = p83
    p85 = p84
    p86 = p85
    p87 = p86
    p88 = p87
    p89 = p88
    p90 = p89
    p91 = p90
    p92 = p91
    p93 = p92
    p94 = p93
    p95 = p94
    p96 = p95
    p97 = p96
    p98 = p97
    p99 = p98
    p100 = p99
    p101 = p100
    p102 = p101
    p103 = p102
    p104 = p103
    p105 = p104
    p106 = p105
    p107 = p106
    p108 = p107
    p109 = p108
    p110 = p109
    p111 = p110
    p112 = p111
    p113 = p112
    p114 = p113
    p115 = p114
    p116 = p115
    p117 = p116
    p118 = p117
    p119 = p118
    p120 = p119
    prev = tl.load(p120 + offs, mask=mask, other=0.0)  # the output's previous contents
    tl.store(out_ptr + offs, acc + prev, mask=mask)
