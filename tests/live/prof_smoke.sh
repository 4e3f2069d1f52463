# Every built-in profiler runs 300 ms without an error (warnings of lost events allowed, on
# both paths), or is skipped with its reason (hardware counters in a VM; memleak has its own
# test).
. "$(dirname "$0")/lib.sh"; need_root
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME=$tmp PERF_SQL_SYSTEM_PROFILERS=$tmp/none
ran=0 skipped=0
for p in $("$PERF_SQL" list | awk 'NR > 1 && $2 == "built-in" { print $1 }'); do
	if [ "$p" = memleak ]; then
		echo "skip: memleak (needs uprobes on a binary: tests/live/prof_memleak.sh)"
		skipped=$((skipped + 1)); continue
	fi
	# shellcheck disable=SC2046
	timeout 30 "$PERF_SQL" "$p" $(profiler_args "$p") -d 300ms > "$tmp/out" 2> "$tmp/err"; rc=$?
	# the kernel path's losses too: a full BPF map, a chain the stack map's bucket had no room
	# for (a hash collision, counted and said, as bcc's profile does)
	errs=$(grep -v 'perf-sql: warning: .* lost [0-9]* events' "$tmp/err" |
		grep -v 'perf-sql: warning: .*: [0-9]* events of this window.* were not aggregated')
	if [ $rc != 0 ] && grep -q 'not supported by this CPU/VM' "$tmp/err"; then
		echo "skip: $p ($(head -1 "$tmp/err" | sed 's/^perf-sql: //'))"
		skipped=$((skipped + 1)); continue
	fi
	[ $rc = 0 ] || fail "$p: exit $rc: $errs"
	[ -z "$errs" ] || fail "$p: stderr: $errs"
	echo "ok: $p ($(wc -l < "$tmp/out") lines)"
	ran=$((ran + 1))
done
[ "$ran" -ge 20 ] || fail "only $ran profilers ran"
echo "ok: $ran profilers ran, $skipped skipped"
