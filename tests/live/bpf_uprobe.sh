# uprobe, uretprobe and USDT tables in the kernel (docs/bpf.md): a kprobe-type program on a
# uprobe event of perf-sql's own reads the task's registers (arg0..arg5, ret, ip) as the perf
# ring samples them. uprobe_target N calls target_fn(i) for i = 0..N-1 (ret = i); usdt_target N
# fires perfsql:tick(i, 2 i): exact answers, identical on both paths (--no-bpf).
. "$(dirname "$0")/lib.sh"; need_root
ut="$WL/uprobe_target"
U=(--uprobe "target_fn@$ut" --uretprobe "target_fn@$ut")
p=$("$PERF_SQL" "${U[@]}" --explain "select comm, count(*) from uprobe_target_fn group by comm" \
	-- true 2>&1) || fail "explain: $p"
if ! printf '%s\n' "$p" | grep -q "aggregated in the kernel"; then
	printf '%s\n' "$p" | grep -q "perf ring: not permitted\|perf ring: cannot create BPF maps" &&
		skip "no BPF here: $(printf '%s\n' "$p" | grep path)"
	fail "not aggregated in the kernel: $p"
fi
printf '%s\n' "$p" | grep -q "BPF program [0-9]* of [0-9]* insns on a uprobe of $ut" ||
	fail "explain: $p"
echo "ok: --explain: a uprobe of $ut"

# same WANT OPTIONS... -- SQL CMD...: both paths give WANT (rows joined by spaces), in the kernel
same() {
	local want=$1 opts=() sql k r
	shift
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	sql=$2
	shift 2
	"$PERF_SQL" "${opts[@]}" --explain "$sql" -- true 2>&1 | grep "path  " |
		grep -qv "aggregated in the kernel" && fail "$sql: a table on the ring"
	k=$("$PERF_SQL" --csv "${opts[@]}" "$sql" -- "$@" | grep -v '^sum=' | tail -n +2 | tr -d '\r' |
		tr '\n' ' ' | sed 's/ $//') || fail "bpf run: $sql"
	r=$("$PERF_SQL" --csv --no-bpf -m 1024 "${opts[@]}" "$sql" -- "$@" | grep -v '^sum=' |
		tail -n +2 | tr -d '\r' | tr '\n' ' ' | sed 's/ $//') || fail "ring run: $sql"
	[ "$k" = "$r" ] || fail "$sql: the kernel gave '$k', the ring '$r'"
	eq "$k" "$want" "$sql (both paths)"
}
same "uprobe_target,5000,12497500,0,4999,1" "${U[@]}" -- "select comm, count(*), sum(arg0),
	min(arg0), max(arg0), min(ip) = max(ip) from uprobe_target_fn group by comm" "$ut" 5000
same "0,1667,4165833 1,1667,4167500 2,1666,4164167" "${U[@]}" -- "select arg0 % 3, count(*),
	sum(arg0) from uprobe_target_fn group by 1 order by 1" "$ut" 5000
same "uprobe_target,5000,12497500,4999" "${U[@]}" -- "select comm, count(*), sum(ret), max(ret) from
	uretprobe_target_fn where ret >= 0 group by comm" "$ut" 5000
same "100,\"uprobe_target;__libc_start_call_main;target_fn 100 \"" "${U[@]}" -- "select count(*), folded_stack(stack) from uprobe_target_fn group by stack" \
	"$ut" 100
same "usdt_target,1000,499500,999000,0,999" --usdt "perfsql:tick@$WL/usdt_target" -- \
	"select comm, count(*), sum(arg0), sum(arg1), min(arg1), max(arg0) from usdt_tick
	group by comm" "$WL/usdt_target" 1000
p=$("$PERF_SQL" "${U[@]}" --explain "select addr, count(*) from uprobe_target_fn group by 1" \
	-- true 2>&1 | grep "path  ")
printf '%s\n' "$p" | grep -q "perf ring: addr of a uprobe is not read" || fail "addr: $p"
echo "ok: addr of a uprobe stays on the ring, with why"
