#!/bin/sh
# tests/dist.sh: the release tarball holds what its tests read. Every path
# under the source tree that a test script names ($top_srcdir/PATH,
# $srcdir/PATH) and that is in this tree is in the tarball's list
# (`make dist-list`: DISTFILES), itself or a folder above it; otherwise the
# test fails in `make distcheck` (bench/beyond/sample.sh did, issue 44).
# Prints TAP.
set -eu
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kopt-dist-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0
check() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fi; }
(cd "$top_builddir" && ${MAKE:-make} -s dist-list) | sed -e "s|^$top_srcdir/||" -e 's|^\./||' -e 's|/*$||' | sort -u > "$tmp/dist"
check "make dist-list lists the tarball ($(wc -l < "$tmp/dist") entries, this test among them)" \
	"grep -qx tests/dist.sh $tmp/dist && grep -qx configure.ac $tmp/dist"
# the paths the tests name
(cd "$top_srcdir" && find tests tools -type f \( -name '*.sh' -o -name '*.py' -o -name run \) -exec \
	grep -hoE '\$\{?(top_)?srcdir\}?/[A-Za-z0-9_./-]+' {} + ) |
	sed -E 's/^\$\{?(top_)?srcdir\}?\///; s/\/+$//; s/\.$//' | sort -u > "$tmp/named"
# a folder stands for the files git tracks in it (where the source tree is
# a git checkout; a tarball's tree holds only what it lists)
git -C "$top_srcdir" ls-files > "$tmp/tracked" 2>/dev/null || : > "$tmp/tracked"
while IFS= read -r p; do
	[ -n "$p" ] || continue
	if [ -d "$top_srcdir/$p" ]; then
		grep "^$p/" "$tmp/tracked" || true
	elif [ -e "$top_srcdir/$p" ]; then
		echo "$p"
	fi
done < "$tmp/named" > "$tmp/files"
missing=
while IFS= read -r p; do
	q=$p found=
	while :; do
		if grep -qxF "$q" "$tmp/dist"; then found=1; break; fi
		case $q in */*) q=${q%/*} ;; *) break ;; esac
	done
	[ -n "$found" ] || missing="$missing $p"
done < "$tmp/files"
check "every path the tests name is in the tarball (missing:${missing:- none})" "[ -z '$missing' ]"
check "the check sees the paths it checks ($(wc -l < "$tmp/named") named)" "grep -qx bench/beyond/sample.sh $tmp/named"
echo "1..$n"
