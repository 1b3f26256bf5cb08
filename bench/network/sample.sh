#!/bin/sh
# bench/network/sample.sh KERNELBENCH DIR: copies the level-3 benchmark's
# sample (issue 43) into DIR/level3.
# The rule, fixed on 2026-12-04 before any run of it: level 3's problems in
# the order of their numbers, every third from the first (the level's 44
# files over the 12 wanted, rounded down), the first 12 of those. It looks
# at names only. Of ../shared/kernelbench that is 1 MLP, 5 AlexNet,
# 8 ResNetBasicBlock, 12 VGG19, 15 DenseNet121, 18 SqueezeNet,
# 21 EfficientNetMBConv, 24 EfficientNetB2, 27 RegNet, 30 SwinTransformerV2,
# 33 VanillaRNN, 37 LSTMCn: ResNet-class networks, a transformer with
# attention, recurrent models and an MLP among them.
set -eu
kb=$1
dir=$2
want=${WANT:-12}
src="$kb/KernelBench/level3"
[ -d "$src" ] || { echo "sample.sh: no $src" >&2; exit 2; }
mkdir -p "$dir/level3"
n=$(ls "$src" | grep -c '\.py$')
stride=$((n / want))
ls "$src" | grep '\.py$' | sort -t_ -k1,1n | awk -v s="$stride" '(NR - 1) % s == 0' | head -n "$want" |
	while read -r f; do
		# ONLY="1 8 33": those numbers of the sample alone (a part of it,
		# built to the end in one session: README.md, "In parts")
		if [ -n "${ONLY:-}" ]; then
			case " $ONLY " in *" ${f%%_*} "*) ;; *) continue ;; esac
		fi
		cp "$src/$f" "$dir/level3/"; chmod u+w "$dir/level3/$f"
	done
for k in ${ONLY:-}; do
	ls "$dir/level3" | grep -q "^${k}_" || { echo "sample.sh: $k is not in the sample (ONLY)" >&2; exit 2; }
done
echo "level3: $(ls "$dir/level3" | wc -l) of $n (stride $stride)"
