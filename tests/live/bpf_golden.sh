# Every BPF golden (tests/bpf/*.sql) on the running kernel: perf-sql --explain loads each
# program (the verifier runs) without attaching it, and the path each table takes is the one
# the offline golden says, program for program: a table listed offline is loaded here (no
# verifier refusal), a fall-back falls back for the same reason. When this kernel is the one
# the fixture was written on (its release and nr_cpu_ids), the loaded program's listing is the
# golden's, instruction for instruction (bpf/listing.h (1)); elsewhere the loads alone. And a
# capture recorded here, replayed with --explain as nobody, lists what this kernel loads.
. "$(dirname "$0")/lib.sh"; need_root
cd "$(dirname "$0")/../bpf" || fail "no tests/bpf"
plan=$("$PERF_SQL" -a --explain "select comm, count(*) from sys_enter_getppid group by comm") ||
	fail "explain"
printf '%s\n' "$plan" | grep -q "perf ring: not permitted\|perf ring: cannot create BPF maps" &&
	skip "no BPF here: $(printf '%s\n' "$plan" | grep path)"
same=false
[ "$(sed -n 's/^release //p' fixture/facts)" = "$(uname -r)" ] &&
	[ "$(sed -n 's/^nr_cpu_ids //p' fixture/facts)" = \
		"$(($(sed 's/.*-//; s/,.*//' /sys/devices/system/cpu/possible) + 1))" ] && same=true
# the path lines without what differs between a load and a listing: the program's id, how
# it was made, the cgroups a WHERE on _cgroup matches (this machine's: engine/bpf_cgroup.c)
paths() {
	grep '^  path' | sed -E 's/BPF program [0-9]+ of/BPF program of/;
		s/ \(loaded, not attached: --explain\)//; s/ \(built[^)]*not loaded: offline\)//;
		s/the ids of [0-9]+ cgroups? matching at planning, or made since \(id > [0-9]+\)/the ids of N cgroups matching at planning, or made since (id > N)/'
}
# the listing: the rewritten statement, each program's header and instructions
listing() { grep -E '^  (rewritten |(the|start|end) program, )|^ +[0-9]+: \(' ; }
n=0 listed=0 loaded=0
for t in *.sql; do
	name=${t%.sql}
	grep -q '^exit [0-9]' "$name.out" && continue # an offline error (--kernel-facts' own)
	read -ra args <<< "$(sed -n 's/^-- args: //p' "$t")"
	read -ra prof <<< "$(sed -n 's/^-- profiler: //p' "$t")"
	if [ ${#prof[@]} -gt 0 ]; then
		out=$("$PERF_SQL" --explain "${args[@]}" "${prof[@]}" 2>&1)
	else
		out=$("$PERF_SQL" --explain "${args[@]}" "$(grep -v '^--' "$t")" 2>&1)
	fi
	want=$(paths < "$name.out")
	got=$(printf '%s\n' "$out" | paths)
	[ "$got" = "$want" ] || fail "$name: the live plan is not the golden's:
$(diff <(printf '%s\n' "$got") <(printf '%s\n' "$want"))"
	n=$((n + 1))
	k=$(printf '%s\n' "$want" | grep -c 'BPF program of')
	loaded=$((loaded + k))
	# "-- listing varies: WHY": its instructions hold this machine's values (cgroup ids)
	if $same && [ "$k" -gt 0 ] && ! grep -q '^-- listing varies:' "$t"; then
		[ "$(printf '%s\n' "$out" | listing)" = "$(listing < "$name.out")" ] ||
			fail "$name: the loaded program is not the golden's listing:
$(diff <(printf '%s\n' "$out" | listing) <(listing < "$name.out") | head -20)"
		listed=$((listed + 1))
	fi
done
[ "$loaded" -ge 40 ] || fail "only $loaded programs among the goldens"

# a capture carries its kernel's facts: --explain over it, as nobody, lists what this kernel
# loads (the path line but for the program's id and how it was made)
command -v setpriv >/dev/null || skip "setpriv is not installed (util-linux)"
d=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$d"' EXIT
sql="select prev_comm, count(*), max(prev_prio) from sched_switch where next_pid != 0 group by prev_comm"
"$PERF_SQL" record -o "$d/c.cap" -d 100ms "$sql" 2>/dev/null || fail "record"
cp "$PERF_SQL" "$d/perf-sql" && chmod -R a+rX "$d" || fail "copy"
off=$(cd "$d" && setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/nonexistent \
	./perf-sql -r c.cap --explain "$sql" 2>&1) || fail "replay --explain as nobody: $off"
live=$("$PERF_SQL" --explain "$sql" 2>&1) || fail "--explain: $live"
printf '%s\n' "$off" | grep -q "built from c.cap, not loaded: offline" ||
	fail "the capture's facts were not used: $(printf '%s\n' "$off" | grep path)"
[ "$(printf '%s\n' "$off" | paths; printf '%s\n' "$off" | listing)" = \
	"$(printf '%s\n' "$live" | paths; printf '%s\n' "$live" | listing)" ] ||
	fail "the capture's listing is not the loaded one:
$(diff <(printf '%s\n' "$off" | listing) <(printf '%s\n' "$live" | listing) | head)"
echo "ok: a capture's --explain as nobody lists the program this kernel loads ($(printf '%s\n' "$off" | listing | grep -c ': (') insns)"
echo "ok: $n goldens planned alike live; $loaded programs loaded by the verifier; $listed listings the same as offline$($same || echo " (not this fixture's kernel: loads only)")"
