#!/bin/sh
# tests/setup-debian.sh: tools/setup-debian.sh against TEST DOUBLES of
# dpkg-query, apt-get, id and sudo (shell scripts on a PATH that holds
# nothing else but env): dpkg-query says "ii" for the packages in
# $FAKE_INSTALLED, apt-get logs its arguments and, like the real one,
# fails with 100 when not run as root, id -u says $FAKE_UID, sudo logs and
# runs its command as uid 0. Everything installed: exit 0, no apt-get, root
# or not; missing packages: apt-get (through sudo when not root) for those
# only; no root and no sudo: exit 1 naming them. Prints TAP.
set -eu
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kopt-setup-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
script=$top_srcdir/tools/setup-debian.sh
all=$(sed -n '/^PACKAGES="/,/"$/p' "$script" | tr -d '"' | sed 's/^PACKAGES=//' | tr -s ' \t\n' ' ')
mkdir "$tmp/bin" "$tmp/sudo"
ln -s "$(command -v env)" "$tmp/bin/env"
cat > "$tmp/bin/dpkg-query" <<'EOF'
#!/bin/sh
# a test double of dpkg-query -W -f='${db:Status-Abbrev}' PKG
for a in "$@"; do p=$a; done
for i in $FAKE_INSTALLED; do [ "$i" = "$p" ] && { printf 'ii '; exit 0; }; done
for i in ${FAKE_REMOVED:-}; do [ "$i" = "$p" ] && { printf 'rc '; exit 0; }; done
echo "dpkg-query: no packages found matching $p" >&2
exit 1
EOF
cat > "$tmp/bin/apt-get" <<'EOF'
#!/bin/sh
# a test double of apt-get: logs, and needs root as the real one does
echo "uid=$FAKE_UID frontend=${DEBIAN_FRONTEND:-} apt-get $*" >> "$FAKE_LOG"
[ "$FAKE_UID" -eq 0 ] || { echo "E: Could not open lock file (are you root?)" >&2; exit 100; }
EOF
cat > "$tmp/bin/id" <<'EOF'
#!/bin/sh
# a test double of id -u
echo "$FAKE_UID"
EOF
cat > "$tmp/sudo/sudo" <<'EOF'
#!/bin/sh
# a test double of sudo: logs, and runs the command as uid 0
echo "sudo $*" >> "$FAKE_LOG"
FAKE_UID=0 exec "$@"
EOF
chmod +x "$tmp/bin/"* "$tmp/sudo/sudo"
n=0
check() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; sed 's/^/# /' "$tmp/out" "$tmp/log" 2>/dev/null || true; fi; }
run() { # UID SUDO(yes/no) INSTALLED...
	uid=$1 sudo=$2
	shift 2
	: > "$tmp/log"
	p=$tmp/bin
	[ "$sudo" = yes ] && p=$tmp/sudo:$p
	rc=0
	env -i PATH="$p" FAKE_UID="$uid" FAKE_INSTALLED="$*" FAKE_REMOVED="${REMOVED:-}" FAKE_LOG="$tmp/log" \
		/bin/sh "$script" > "$tmp/out" 2>&1 || rc=$?
}
run 1000 no $all
check "everything installed, not root, no sudo: exit 0 ($rc) and no apt-get" "[ $rc -eq 0 ] && [ ! -s $tmp/log ] && grep -q 'is installed' $tmp/out"
run 1000 yes $all
check "everything installed, not root: no sudo asked" "[ $rc -eq 0 ] && [ ! -s $tmp/log ]"
run 0 no $all
check "everything installed, root: no apt-get update (no network needed)" "[ $rc -eq 0 ] && [ ! -s $tmp/log ]"
some=$(echo "$all" | sed 's/ libxxhash-dev//; s/ bison//')
run 0 no $some
npk=$(echo $all | wc -w)
check "the package list is read from the script ($npk packages)" "[ $npk -ge 12 ] && echo ' $all ' | grep -q ' libxxhash-dev ' && echo ' $all ' | grep -q ' bison '"
check "two missing, root: apt-get update, then install of those two only" \
	"[ $rc -eq 0 ] && [ \"\$(sed -n 1p $tmp/log)\" = 'uid=0 frontend=noninteractive apt-get update -qq' ] && [ \"\$(sed -n 2p $tmp/log)\" = 'uid=0 frontend=noninteractive apt-get install -y -qq --no-install-recommends bison libxxhash-dev' ]"
run 1000 yes $some
check "two missing, not root, sudo here: apt-get through sudo for those two" \
	"[ $rc -eq 0 ] && grep -qx 'sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq' $tmp/log && grep -qx 'uid=0 frontend=noninteractive apt-get install -y -qq --no-install-recommends bison libxxhash-dev' $tmp/log"
run 1000 no $some
check "two missing, not root, no sudo: exit 1 ($rc), naming them, and no apt-get" \
	"[ $rc -eq 1 ] && [ ! -s $tmp/log ] && grep -q 'missing: bison libxxhash-dev; install them as root' $tmp/out"
REMOVED=valgrind run 0 no $(echo "$all" | sed 's/ valgrind//')
check "a package removed with its configuration left (rc) counts as missing" \
	"[ $rc -eq 0 ] && grep -q 'install -y -qq --no-install-recommends valgrind\$' $tmp/log"
echo "1..$n"
