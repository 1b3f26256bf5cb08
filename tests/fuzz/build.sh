#!/bin/sh
# tests/fuzz/build.sh: builds the libFuzzer target for the spec language
# with clang (ASan + UBSan) into OUT (default: ./fuzz-build).
#   tests/fuzz/build.sh [OUT]
#   OUT/fuzz_lang -dict=tests/fuzz/lang.dict OUT/corpus tests/fuzz/corpus/lang
# Needs clang with libFuzzer (Debian: clang and libclang-rt-dev), flex, bison.
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-fuzz-build}
mkdir -p "$out/gen"
out=$(cd "$out" && pwd)
CC=${CC:-clang}
bison -d -o "$out/gen/parser.c" "$src/lang/parser.y"
(cd "$out/gen" && flex "$src/lang/lexer.l" && mv lex.yy.c lexer.c)
$CC -g -O1 -std=c11 -D_POSIX_C_SOURCE=200809L \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-DFUZZ_DIR="\"$src/tests/golden/cases\"" \
	-I"$src" -I"$src/lang" -I"$out/gen" \
	"$src/tests/fuzz/fuzz_lang.c" "$src/common/util.c" "$src/lang/ast.c" "$src/lang/spec.c" \
	"$src/lang/fields.c" "$src/lang/lang.c" "$src/lang/smap.c" "$src/lang/eval.c" "$src/lang/decl.c" \
	"$src/lang/glob.c" "$src/lang/include.c" "$src/lang/resolve.c" "$src/lang/targets.c" "$src/lang/shape.c" "$src/lang/paths.c" \
	"$src/runtime/sandbox.c" \
	"$out/gen/parser.c" "$out/gen/lexer.c" \
	-ljansson -lm -o "$out/fuzz_lang"
echo "built $out/fuzz_lang"
