#!/usr/bin/env bash
# scripts/check-architecture.sh - docs/architecture.md names the house as it is (`make
# check-layers` runs it): every .c and .h git tracks is named there by its path, and every
# path of a .c, .h or .proto the page names exists. Each miss is printed as
#   docs/architecture.md: does not name FILE      or      docs/architecture.md: names FILE, which does not exist
# and the script exits 1 if there is any, 0 otherwise. A path is a token "DIR/.../NAME.c" (or
# .h, .proto) whose first folder is one git tracks; globs ("symbols/*.c") and generated files
# (build/gen/...) name nothing.
set -uo pipefail
cd "$(dirname "$0")/.."

doc=docs/architecture.md
dirs=$(git ls-files '*.c' '*.h' '*.proto' | sed -n 's#/.*##p' | sort -u | paste -sd'|')
named=$(grep -oE "(^|[^A-Za-z0-9_./-])($dirs)/[A-Za-z0-9_./-]*[A-Za-z0-9_]\.(c|h|proto)\b" "$doc" |
	sed -E 's#^[^A-Za-z0-9_./-]##' | sort -u)
nr_bad=0
while IFS= read -r file; do
	grep -qxF "$file" <<<"$named" && continue
	echo "$doc: does not name $file"
	nr_bad=$((nr_bad + 1))
done < <(git ls-files '*.c' '*.h')
while IFS= read -r file; do
	[ -n "$file" ] && [ ! -e "$file" ] || continue
	echo "$doc: names $file, which does not exist"
	nr_bad=$((nr_bad + 1))
done <<<"$named"
[ "$nr_bad" -eq 0 ] || exit 1
