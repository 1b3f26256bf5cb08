## examples/local.mk: included by the top Makefile.am
EXTRA_DIST += examples/examples.kopt examples/README.md \
	examples/models/avgpool2d.py examples/models/col_mean.py \
	examples/models/conv2d_relu.py examples/models/cross_entropy.py \
	examples/models/elementwise.py examples/models/layernorm.py \
	examples/models/matmul_epilogue.py examples/models/maxpool3d.py \
	examples/models/mlp.py examples/models/rmsnorm.py \
	examples/models/row_sum.py examples/models/softmax.py \
	examples/models/transformer_block.py \
	examples/models/resnet50.py examples/models/gpt2_block.py examples/models/convnext.py \
	examples/kernels/vadd.py examples/kernels/softmax_rows.py \
	examples/helion/helion.kopt examples/helion/softmax.py \
	examples/helion/layernorm.py examples/helion/matmul_epilogue.py \
	examples/checks/baseline.kopt examples/checks/models/floor_div.py \
	examples/checks/models/floor_div_scaled.py

# the examples are well formed (parsed with Python's ast; no torch needed)
TESTS += tests/examples.sh
EXTRA_DIST += tests/examples.sh
