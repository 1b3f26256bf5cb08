# bash completion for koptmake                              -*- shell-script -*-
#
# Options; the tools after -t (from `koptmake -t list`); the debug modes
# after -d (`koptmake -d list`); folders after -C; spec files after -f; and
# otherwise the targets and models of the spec that koptmake would read
# (`koptmake -t dump`, honouring -f and -C given before). `make install`
# puts this file in $(datadir)/bash-completion/completions/koptmake, where
# bash-completion loads it on first use; or source it from ~/.bashrc.
# Tested by tests/conventions/completion.sh.

# the spec's targets and models: the dump's 'target NAME' and 'model NAME' lines
_koptmake_targets()
{
	"$1" "${@:2}" -t dump 2>/dev/null | sed -En \
		-e 's/^target ([^ ]*) =.*/\1/p' \
		-e 's/^(model|kernel|helion) "([^"]*)" \{.*/\2/p' \
		-e 's/^(model|kernel|helion) ([^ "]*) \{.*/\2/p'
}

_koptmake()
{
	local cur prev prog i
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	prog=${COMP_WORDS[0]}
	COMPREPLY=()

	case $prev in
	-f | --file)
		COMPREPLY=($(compgen -f -X '!*.kopt' -- "$cur") $(compgen -f -X '!*Koptfile' -- "$cur")
			$(compgen -d -S / -- "$cur"))
		compopt -o nospace 2>/dev/null
		return
		;;
	-C | --directory | --allow-root)
		COMPREPLY=($(compgen -d -S / -- "$cur"))
		compopt -o nospace 2>/dev/null
		return
		;;
	-j | --jobs)
		return
		;;
	-d | --debug)
		COMPREPLY=($(compgen -W "$("$prog" -d list 2>/dev/null | sed -n 's/^  \([a-z]*\) .*/\1/p') list" -- "$cur"))
		return
		;;
	-t | --tool)
		COMPREPLY=($(compgen -W "$("$prog" -t list 2>/dev/null | sed -n 's/^  \([a-z]*\) .*/\1/p')" -- "$cur"))
		return
		;;
	esac

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W '-f -C -j -k -n -B -d -t -v -V -h --file --directory --jobs --keep-going
			--dry-run --always-make --debug --tool --verbose --remote-cache --allow-root --help --version' -- "$cur"))
		return
	fi

	# the -f and -C given so far choose the spec
	local -a spec=()
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-f | -C | --file | --directory) spec+=("${COMP_WORDS[i]}" "${COMP_WORDS[i + 1]/#\~/$HOME}") ;;
		esac
	done
	local IFS=$'\n'
	COMPREPLY=($(compgen -W "$(_koptmake_targets "$prog" "${spec[@]}")" -- "$cur"))
}

complete -F _koptmake koptmake
