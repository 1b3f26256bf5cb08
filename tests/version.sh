#!/bin/sh
# tests/version.sh: one version. It is written once, as __version__ in
# runtime/python/kopt/__init__.py; configure takes it from there, and
# koptmake --version, -V, kopt.__version__, the package the build backend
# makes (runtime/python/_build), the man pages' headers and the editor
# packages all say it (issue 44). Prints TAP.
set -eu
: "${KOPTMAKE:=$top_builddir/koptmake}"
PYTHON=${PYTHON:-python3}
n=0
check() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fi; }
v=$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' "$top_srcdir/runtime/python/kopt/__init__.py")
check "kopt/__init__.py writes the version ($v)" "echo '$v' | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+'"
check "koptmake --version says koptmake $v ($("$KOPTMAKE" --version))" "[ \"\$('$KOPTMAKE' --version)\" = 'koptmake $v' ]"
check "koptmake -V says the same" "[ \"\$('$KOPTMAKE' -V)\" = 'koptmake $v' ]"
if command -v "$PYTHON" >/dev/null 2>&1; then
	pv=$(PYTHONPATH=$top_srcdir/runtime/python${PYTHONPATH:+:$PYTHONPATH} "$PYTHON" -c 'import kopt; print(kopt.__version__)')
	check "kopt.__version__ is $v ($pv)" "[ '$pv' = '$v' ]"
	bv=$("$PYTHON" "$top_srcdir/runtime/python/_build/kopt_build.py" version)
	check "the package's metadata says $v ($bv)" "[ '$bv' = '$v' ]"
else
	n=$((n + 1)); echo "ok $n # SKIP no $PYTHON"
	n=$((n + 1)); echo "ok $n # SKIP no $PYTHON"
fi
for m in koptmake.1 kopt.5; do
	check "man/$m's header says koptmake $v" "head -n 5 '$top_srcdir/man/$m' | grep -q '^\.TH .* \"koptmake $v\"'"
done
check "the Emacs mode's Version is $v" "grep -qx ';; Version: $v' '$top_srcdir/tools/editors/emacs/kopt-mode.el'"
check "the VS Code extension's version is $v" "grep -q '\"version\": \"$v\"' '$top_srcdir/tools/editors/vscode/package.json'"
echo "1..$n"
