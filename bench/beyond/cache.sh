#!/bin/bash
# bench/beyond/cache.sh: Inductor's compile cache (.kopt/compile/inductor:
# compiled graphs and max-autotune's picks) carried from one device call to
# the next, in parts of at most KOPT_CACHE_PART bytes (default 15000000: a
# call brings back files of at most 16 MiB each). From the work folder:
#   cache.sh pack OUT [PARTS]  the cache into OUT/compile-cache.EXT.NN, at
#                              most PARTS parts (default 3): whole where it
#                              fits, else max-autotune's picks and the
#                              newest graphs that fit
#   cache.sh unpack FROM       the parts found in FROM (compile-cache.txz.NN,
#                              compile-cache.tgz.NN, an older single
#                              compile-cache.tgz) into the work folder
# EXT is txz where the machine has xz (level 3's graphs compress 20 to 1
# with it, 7 to 1 with gzip: 275 MB of them to 13.5 and 38.6 MB), else
# tgz; KOPT_CACHE_XZ=0 takes gzip. What was cut is said on stderr.
set -u
part=${KOPT_CACHE_PART:-15000000}
xz=0
if [ "${KOPT_CACHE_XZ:-1}" != 0 ] && command -v xz >/dev/null 2>&1; then xz=1; fi

squeeze() { if [ $xz = 1 ]; then xz -6 -T0; else gzip; fi; }

pack() { # OUT [PARTS]
	local out=$1 parts=${2:-3} ext=tgz ratio=6
	[ $xz = 1 ] && ext=txz ratio=18
	local c=$out/compile-cache
	rm -f "$c.tgz" "$c".tgz.[0-9]* "$c".txz.[0-9]*
	[ -d .kopt/compile/inductor ] || return 0
	tar cf - .kopt/compile/inductor | squeeze > "cc.$ext"
	echo "compile cache: $(du -sb .kopt/compile/inductor | cut -f1) bytes, $(find .kopt/compile/inductor -type f | wc -l) files, $(stat -c %s "cc.$ext") compressed ($ext)" >&2
	# the graphs, newest first, to RATIO times the parts' size
	# uncompressed, then three quarters of that, ..., then none; a graph
	# that does not fit is passed over, not the end (a network's graph is
	# 40 MB or more: stopping at the first had left max-autotune's picks
	# alone)
	local max=$((parts * part * ratio))
	while [ "$(stat -c %s "cc.$ext")" -gt $((parts * part)) ]; do
		find .kopt/compile/inductor \( -name '*.best_config' -o -path '*/cache/*' \) -type f >picks.txt
		find .kopt/compile/inductor -type f ! -name '*.best_config' ! -path '*/cache/*' -printf '%T@ %s %p\n' |
			sort -rn | awk -v max=$max '$2 + t <= max { t += $2; print $3 }' >>picks.txt
		tar cf - -T picks.txt | squeeze > "cc.$ext"
		echo "compile cache: graphs to $max bytes: $(wc -l <picks.txt) files, $(stat -c %s "cc.$ext") bytes compressed" >&2
		[ "$max" -gt 0 ] || break
		max=$((max * 3 / 4 > part / 15 ? max * 3 / 4 : 0))
	done
	split -b "$part" -d "cc.$ext" "$c.$ext."
	rm -f "cc.$ext" picks.txt
	echo "compile cache: $(cat "$c.$ext".[0-9]* | wc -c) bytes in $(ls "$c.$ext".[0-9]* | wc -l) parts"
}

unpack() { # FROM
	local from=$1
	[ -f "$from/compile-cache.tgz" ] && tar xzf "$from/compile-cache.tgz"
	if ls "$from"/compile-cache.tgz.[0-9]* >/dev/null 2>&1; then
		cat "$from"/compile-cache.tgz.[0-9]* | tar xzf -
	fi
	if ls "$from"/compile-cache.txz.[0-9]* >/dev/null 2>&1; then
		cat "$from"/compile-cache.txz.[0-9]* | xz -dc | tar xf -
	fi
	return 0
}

case "${1:-}" in
pack) shift; pack "$@" ;;
unpack) shift; unpack "$@" ;;
*) echo "usage: cache.sh pack OUT [PARTS] | unpack FROM" >&2; exit 2 ;;
esac
