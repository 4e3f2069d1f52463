# bash completion for perf-sql                                  -*- shell-script -*-
# Installed as /usr/share/bash-completion/completions/perf-sql (make install, the Debian
# package); or: source contrib/completion/perf-sql.bash
#
# Everything offered comes from perf-sql itself, so nothing here drifts from the binary:
#   options, and which take a value    perf-sql --help (its "options:" block)
#   subcommands                         perf-sql help
#   the choices of -f, --call-graph,    the "choices: ..." of perf-sql's own error for a bad
#     --help-man                        value (perf-sql -f ? -> "choices: table csv json")
#   profilers, their PARAM= names       perf-sql list, perf-sql help NAME (its usage line)
#   serve's options                     perf-sql serve --help (its own, and the OPTIONS it takes)
#   tables                              perf_sql_events (as root: tracefs is root's), the
#                                       profilers as tables
# Tables complete after FROM or JOIN inside the quoted SQL argument; files complete after
# -o, -r, --flame-graph, --heatmap, --list-usdt, info and -r's capture; commands after --.

# the perf-sql being completed (./perf-sql, or the one on PATH), its stdin never a terminal
_perf_sql_run()
{
	"${_perf_sql_bin:-perf-sql}" "$@" </dev/null 2>/dev/null
}

# the options of --help, one a line, with "=" after the ones that take a value ("--duration=")
_perf_sql_options()
{
	_perf_sql_run --help | sed -n '/^options:/,/^$/p' | grep -E '^ +-' |
		sed -E 's/^ +//; s/  .*//' |
		awk '{ v = $NF ~ /^-/ ? "" : "="
		       for (i = 1; i <= NF; i++) if ($i ~ /^-/) { sub(/,$/, "", $i); print $i v } }'
}

# does option $1 take a value? (from --help: "-d, --duration D")
_perf_sql_takes_value()
{
	local o
	for o in "${_perf_sql_opts[@]}"; do
		[[ $o == "$1=" ]] && return 0
	done
	return 1
}

_perf_sql_subcommands()
{
	_perf_sql_run help | sed 's/^usage://' | awk '$2 ~ /^[a-z]+$/ { print $2 }'
}

_perf_sql_profilers()
{
	_perf_sql_run list | awk 'NR > 1 && NF == 0 { exit } NR > 1 { print $1 }'
}

# "than= syscall=" of profiler $1, from the usage line of perf-sql help NAME
_perf_sql_params()
{
	_perf_sql_run help "$1" | awk '/^usage:/ { getline; print; exit }' |
		grep -oE '\[[a-z_0-9]+=' | tr -d '['
}

# the type of parameter $2 of profiler $1 (duration, table, ...)
_perf_sql_param_type()
{
	_perf_sql_run help "$1" | awk '/^usage:/ { getline; print; exit }' |
		grep -oE "\\[$2=[a-z]+\\]" | sed -E 's/.*=([a-z]+)\]/\1/'
}

# the choices perf-sql lists when option $1 gets a bad value
_perf_sql_choices()
{
	"${_perf_sql_bin:-perf-sql}" "$1" '?' </dev/null 2>&1 | sed -n 's/.*choices: \([^;]*\);.*/\1/p'
}

# every table name: the catalog's (cached for the shell's session), then the profilers'
_perf_sql_tables()
{
	if [[ -z ${_perf_sql_table_cache-} ]]; then
		_perf_sql_table_cache=$(_perf_sql_run --csv "select name from perf_sql_events" |
			tail -n +2 | tr -d '\r')
	fi
	printf '%s\n' "$_perf_sql_table_cache"
	_perf_sql_profilers | sed 's/.*-.*/"&"/'    # "page-faults": quoted in SQL
}

# the SQL argument being typed: after FROM or JOIN, its last word is a table
_perf_sql_sql()
{
	local cur=$1 text head last prev
	text=${cur#[\"\']}
	[[ $text == "$cur" ]] && return 1        # not a quoted SQL argument
	last=${text##*[[:space:],(]}
	head=${text%"$last"}
	prev=${head%"${head##*[![:space:]]}"}    # the words before, trailing blanks dropped
	prev=${prev##*[[:space:],(]}
	case ${prev,,} in
	from | join) ;;
	*) return 1 ;;
	esac
	local t
	while IFS= read -r t; do
		[[ -n $t && $t == "$last"* ]] && COMPREPLY+=("$head$t")
	done < <(_perf_sql_tables)
	compopt -o nospace 2>/dev/null
	return 0
}

# serve's options: its own (--listen ...) and the query options it takes, from serve --help
_perf_sql_serve_options()
{
	_perf_sql_run serve --help | awk '/^  --[a-z]/ { print $1 } /^  OPTIONS/ { on = 1 }
		on && NF == 0 { exit } on' | grep -oE '(^| )--?[a-zA-Z][a-z-]*' | tr -d ' '
	echo --help
}

# after serve (at word $1): its options, profilers, PARAM= of the profiler just named ($2 typed)
_perf_sql_serve()
{
	local at=$1 cur=$2 prev=${COMP_WORDS[COMP_CWORD - 1]} i w prof=
	case $prev in
	--listen | --name | --max-series | --pprof | --pprof-max-seconds) return ;; # serve's own value
	esac
	if [[ ${COMP_WORDS[COMP_CWORD - 2]} == --pprof && $cur != -* ]]; then # --pprof NAME <Tab>
		COMPREPLY=($(compgen -W "$(_perf_sql_profilers)" -- "$cur"))   # a profiler, or SQL
		return
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_perf_sql_serve_options)" -- "$cur"))
		return
	fi
	# the profiler whose PARAM=VALUE may come now: the last one named, PARAM=VALUE after it
	for ((i = COMP_CWORD - 1; i > at; i--)); do
		w=${COMP_WORDS[i]}
		[[ $w == *=* ]] && continue
		_perf_sql_profilers | grep -qxF -- "$w" && prof=$w
		break
	done
	if [[ -n $prof && $cur == *=* ]]; then
		_perf_sql_param "$prof" "$cur"
		return
	fi
	COMPREPLY=($(compgen -W "$(_perf_sql_profilers) ${prof:+$(_perf_sql_params "$prof")}" \
		-- "$cur"))
	[[ ${#COMPREPLY[@]} == 1 && ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
}

# the value of option $1 being typed ($2)
_perf_sql_value()
{
	local opt=$1 cur=$2
	case $opt in
	-f | --format | --call-graph | --help-man)
		COMPREPLY=($(compgen -W "$(_perf_sql_choices "$opt")" -- "$cur")) ;;
	-o | --output | -r | --replay | --flame-graph | --heatmap | --list-usdt)
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -f -- "$cur")) ;;
	--schema)
		COMPREPLY=($(compgen -W "$(_perf_sql_tables)" -- "$cur")) ;;
	--save)
		COMPREPLY=($(compgen -W "$(_perf_sql_profilers)" -- "$cur")) ;;
	-p | --pid)
		COMPREPLY=($(compgen -W "$(cd /proc && printf '%s\n' [0-9]*)" -- "$cur")) ;;
	-C | --cpu)
		COMPREPLY=($(compgen -W "$(seq 0 $(($(getconf _NPROCESSORS_CONF) - 1)))" -- "$cur")) ;;
	--cgroup)
		COMPREPLY=($(cd /sys/fs/cgroup 2>/dev/null && compgen -d -- "$cur")) ;;
	esac
}

# PARAM=VALUE of profiler $1 ($2 as typed)
_perf_sql_param()
{
	local name=$1 cur=$2
	if [[ $cur == *=* ]]; then
		case $(_perf_sql_param_type "$name" "${cur%%=*}") in
		table)
			COMPREPLY=($(compgen -P "${cur%%=*}=" -W "$(_perf_sql_tables)" -- "${cur#*=}")) ;;
		esac
		return
	fi
	COMPREPLY=($(compgen -W "$(_perf_sql_params "$name")" -- "$cur"))
	compopt -o nospace 2>/dev/null
}

_perf_sql()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local i w first= first_at=0 _perf_sql_bin=${COMP_WORDS[0]} _perf_sql_opts
	COMPREPLY=()
	command -v "$_perf_sql_bin" >/dev/null || _perf_sql_bin=perf-sql
	_perf_sql_opts=($(_perf_sql_options))

	# after "--": a command, then its arguments
	for ((i = 1; i < COMP_CWORD; i++)); do
		if [[ ${COMP_WORDS[i]} == -- ]]; then
			if ((i == COMP_CWORD - 1)); then
				COMPREPLY=($(compgen -c -- "$cur"))
			else
				compopt -o default 2>/dev/null
			fi
			return
		fi
	done
	# the first argument that is neither an option nor an option's value
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [[ $w == -* ]]; then
			_perf_sql_takes_value "$w" && ((i++))
			continue
		fi
		first=$w first_at=$i
		break
	done
	if [[ $prev == -* ]] && _perf_sql_takes_value "$prev"; then
		_perf_sql_value "$prev" "$cur"
		return
	fi
	_perf_sql_sql "$cur" && return
	if [[ $first == serve ]]; then
		_perf_sql_serve "$first_at" "$cur"
		return
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "${_perf_sql_opts[*]//=/}" -- "$cur"))
		return
	fi
	case $first in
	'')
		COMPREPLY=($(compgen -W "$(_perf_sql_subcommands) $(_perf_sql_profilers)" -- "$cur")) ;;
	help | delete)
		((COMP_CWORD == first_at + 1)) &&
			COMPREPLY=($(compgen -W "$(_perf_sql_profilers)" -- "$cur")) ;;
	info)
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -f -- "$cur")) ;;
	record)   # TABLE[,TABLE...]
		COMPREPLY=($(compgen -P "${cur%"${cur##*,}"}" -W "$(_perf_sql_tables)" -- "${cur##*,}"))
		compopt -o nospace 2>/dev/null ;;
	list | save) ;;
	*)
		_perf_sql_profilers | grep -qxF -- "$first" && _perf_sql_param "$first" "$cur" ;;
	esac
}
complete -F _perf_sql perf-sql
