#!/usr/bin/env bash
# scripts/check-names.sh [BUILD] - the planner's and the compiler's global symbols are prefixed
# (`make check-names`, run by `make test`).
#
# Every global a bpf/ or engine/ object defines (nm: T, D, B, R, C) must start with one of its
# layer's prefixes below: no `no`, `emit`, `pred` the whole binary shares. And an object prefix
# (`NAME__`) belongs to one layer: bpf_plan__* in bpf/ and engine/ both would read as one
# object. Each violation is printed as
#   OBJECT: SYMBOL (why)
# and the script exits 1 if there is any; 0 otherwise (2: no objects: build first).
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
declare -A allowed=(
	[bpf]='^(bpf_|basm__|kernel_btf__|user_str__|user_str_source$)'
	[engine]='^(bpf_|query__|sql_select__|lockdown__|pushdown__|user_str_plan__)'
)
declare -A owner
nr_bad=0 nr_obj=0
for layer in bpf engine; do
	for obj in "$build"/obj/"$layer"/*.o; do
		[ -f "$obj" ] || continue
		nr_obj=$((nr_obj + 1))
		while read -r _ kind sym; do
			case $kind in T | D | B | R | C) ;; *) continue ;; esac
			# what a sanitizer or the compiler adds (ASan's ODR indicators, .str copies)
			[[ $sym == __odr_asan* || $sym == __asan* || $sym == __ubsan* ]] && continue
			if ! [[ $sym =~ ${allowed[$layer]} ]]; then
				echo "$obj: $sym (not prefixed as $layer/ names are: ${allowed[$layer]})"
				nr_bad=$((nr_bad + 1))
			fi
			if [[ $sym == *__* ]]; then
				prefix=${sym%%__*}__
				if [ -n "${owner[$prefix]+x}" ] && [ "${owner[$prefix]}" != "$layer" ]; then
					echo "$obj: $sym ($prefix* is ${owner[$prefix]}/'s too)"
					nr_bad=$((nr_bad + 1))
				fi
				owner[$prefix]=$layer
			fi
		done < <(nm -g --defined-only "$obj")
	done
done
[ "$nr_obj" -gt 0 ] || { echo "check-names: no objects in $build/obj/{bpf,engine}: build first" >&2; exit 2; }
[ "$nr_bad" -eq 0 ] || exit 1
