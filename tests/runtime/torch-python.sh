# tests/runtime/torch-python.sh, sourced: torch_python prints the first of
# $KOPT_TEST_TORCH_PYTHON, python3 and /usr/bin/python3 (Debian's
# python3-torch) that imports torch (any version; CPU is enough), and fails
# where none does; torch_said prints a TAP comment naming it and its torch.
torch_python() {
	for py in ${KOPT_TEST_TORCH_PYTHON:-} python3 /usr/bin/python3; do
		if "$py" -c 'import torch' >/dev/null 2>&1; then
			echo "$py"
			return 0
		fi
	done
	return 1
}

torch_said() {
	echo "# $1, torch $("$1" -c 'import torch; print(torch.__version__)' 2>/dev/null)"
}

# torch_test FILE: runs tests/runtime/FILE with the Python torch_python
# finds, or says the test is skipped where there is none
torch_test() {
	if py=$(torch_python); then
		torch_said "$py"
		exec "$py" "${top_srcdir:-.}/tests/runtime/$1"
	fi
	echo "ok 1 # SKIP no Python with torch"
	echo "1..1"
}
