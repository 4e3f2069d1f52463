#!/usr/bin/env bash
# scripts/check-layers.sh - includes point down the layers, never up nor sideways
# (`make check-layers`).
#
#   core/ -> bpf/ -> symbols/ -> vtab/ -> sqlite/ -> engine/ -> ext/ -> profilers/
#         -> render/ -> cli/ -> { shell/ | serve/ } -> cmd/
#
# For every .c and .h in those folders, each `#include "DIR/..."` that names one of them must
# name the file's own layer or a lower one. Layers written together ("shell serve") share a
# rank and are siblings: neither includes the other, so the interactive shell stays out of the
# Prometheus server and the server out of the shell by this check, not by convention. Each
# violation is printed as
#   FILE: includes HEADER (LAYER above LAYER)   or   FILE: includes HEADER (LAYER beside LAYER)
# and the script exits 1 if there is any, 0 otherwise. A folder that does not exist keeps its
# place in the order. Includes of anything else (<sqlite3.h>, "queries.h" generated into
# build/gen, "tests/...") are not layered and not checked.
set -uo pipefail
cd "$(dirname "$0")/.."

layers=(core bpf symbols vtab sqlite engine ext profilers render cli "shell serve" cmd)
declare -A rank
dirs=()
for i in "${!layers[@]}"; do
	for dir in ${layers[$i]}; do
		rank[$dir]=$i
		dirs+=("$dir")
	done
done

nr_bad=0
for dir in "${dirs[@]}"; do
	[ -d "$dir" ] || continue
	for file in "$dir"/*.c "$dir"/*.h; do
		[ -f "$file" ] || continue
		while IFS= read -r header; do
			target=${header%%/*}
			[ "$target" != "$header" ] && [ -n "${rank[$target]+x}" ] || continue
			if [ "${rank[$target]}" -gt "${rank[$dir]}" ]; then
				echo "$file: includes $header ($target above $dir)"
				nr_bad=$((nr_bad + 1))
			elif [ "${rank[$target]}" -eq "${rank[$dir]}" ] && [ "$target" != "$dir" ]; then
				echo "$file: includes $header ($target beside $dir)"
				nr_bad=$((nr_bad + 1))
			fi
		done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file")
	done
done
[ "$nr_bad" -eq 0 ] || exit 1
