# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# bash completion for elfthp-align
_elfthp_align()
{
	local cur prev opts
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	opts="-n --dry-run -o --output -q --quiet -v --verbose -r --recursive
	    -x --one-file-system -j --jobs -f --files-from -0 --null
	    --page-size --align --sync --no-sync --lock-timeout
	    --break-hardlinks --report --check --compat --warm --host --pid
	    --format -h --help -V --version"
	case $prev in
	-o|--output|-f|--files-from)
		COMPREPLY=($(compgen -f -- "$cur")); return ;;
	--page-size) COMPREPLY=($(compgen -W "4k 16k 64k" -- "$cur")); return ;;
	--format) COMPREPLY=($(compgen -W "text json" -- "$cur")); return ;;
	--align) COMPREPLY=($(compgen -W "2M 32M" -- "$cur")); return ;;
	--pid) COMPREPLY=($(compgen -W "$(cd /proc && echo [0-9]*)" -- "$cur")); return ;;
	-j|--jobs|--lock-timeout) return ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -o filenames -F _elfthp_align elfthp-align
