#!/bin/sh
# tests/e2e/beyond-sample.sh: bench/beyond/sample.sh, the benchmark's
# sampling rule, on a made-up KernelBench tree (empty problem files named
# as KernelBench names them, numbered 1 to N, listed out of order): every
# stride-th problem in the order of their numbers, the stride each level's
# count over 20, 8 and 3, rounded down; and with LEVEL/NUMBER arguments,
# only those problems, a missing one an error; and bench/network/sample.sh,
# the level-3 networks' rule, whole and in parts (ONLY). Prints TAP.
set -eu
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kopt-sample-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0
check() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fi; }
kb=$tmp/kb/KernelBench
for spec in level1:100 level2:50 level3:10; do
	level=${spec%:*} count=${spec#*:}
	mkdir -p "$kb/$level"
	i=$count
	while [ "$i" -ge 1 ]; do : > "$kb/$level/${i}_Problem_$i.py"; i=$((i - 1)); done
done
: > "$kb/level1/notes.txt"
s="$top_srcdir/bench/beyond/sample.sh"
sh "$s" "$tmp/kb" "$tmp/all" > "$tmp/out"
nums() { ls "$1" | sed 's/_.*//' | sort -n | tr '\n' ' '; }
# level 1: 100 / 20 = stride 5: 1, 6, ..., 96 (numbers, not names, ordered: 10 after 9)
check "level 1: every 5th of 100 in the order of their numbers" \
	"[ \"\$(nums $tmp/all/level1)\" = '1 6 11 16 21 26 31 36 41 46 51 56 61 66 71 76 81 86 91 96 ' ]"
check "level 2: every 6th of 50 (stride 50 / 8 = 6): 9 problems" \
	"[ \"\$(nums $tmp/all/level2)\" = '1 7 13 19 25 31 37 43 49 ' ]"
check "level 3: every 3rd of 10: 4 problems" "[ \"\$(nums $tmp/all/level3)\" = '1 4 7 10 ' ]"
check "it says what it took" "grep -qx 'level1: 20 of 100 (stride 5)' $tmp/out && grep -qx 'level3: 4 of 10 (stride 3)' $tmp/out"
sh "$s" "$tmp/kb" "$tmp/some" level1/57 level2/14 > "$tmp/out2"
check "named problems: only those" \
	"[ \"\$(ls $tmp/some/level1)\" = '57_Problem_57.py' ] && [ \"\$(ls $tmp/some/level2)\" = '14_Problem_14.py' ] && [ -z \"\$(ls $tmp/some/level3)\" ]"
check "a number is a whole prefix: level1/5 is 5, not 57" \
	"sh '$s' '$tmp/kb' '$tmp/five' level1/5 >/dev/null && [ \"\$(ls $tmp/five/level1)\" = '5_Problem_5.py' ]"
set +e
sh "$s" "$tmp/kb" "$tmp/none" level1/999 > /dev/null 2> "$tmp/err"
st=$?
set -e
check "a named problem that is not there: exit 2, named" "[ $st -eq 2 ] && grep -q 'no problem 999 in' $tmp/err"
# the level-3 networks' rule (bench/network/sample.sh): every (N / 12)-th,
# the first 12; ONLY keeps some of them (a part built in one session)
ns="$top_srcdir/bench/network/sample.sh"
mkdir -p "$tmp/kb3/KernelBench/level3"
i=44; while [ "$i" -ge 1 ]; do : > "$tmp/kb3/KernelBench/level3/${i}_Net_$i.py"; i=$((i - 1)); done
sh "$ns" "$tmp/kb3" "$tmp/net" > "$tmp/out3"
check "networks: every 3rd of 44, the first 12" \
	"[ \"\$(nums $tmp/net/level3)\" = '1 4 7 10 13 16 19 22 25 28 31 34 ' ] && grep -qx 'level3: 12 of 44 (stride 3)' $tmp/out3"
ONLY="1 10 34" sh "$ns" "$tmp/kb3" "$tmp/netpart" > /dev/null
check "networks, ONLY=\"1 10 34\": those alone (10 is not 1, nor 1 10)" "[ \"\$(nums $tmp/netpart/level3)\" = '1 10 34 ' ]"
set +e
ONLY="1 2" sh "$ns" "$tmp/kb3" "$tmp/netbad" > /dev/null 2> "$tmp/err3"
st=$?
set -e
check "networks, ONLY naming a problem the rule does not take: exit 2, named" "[ $st -eq 2 ] && grep -q '2 is not in the sample' $tmp/err3"
echo "1..$n"
