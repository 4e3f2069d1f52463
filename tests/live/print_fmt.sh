# symbolic() and flags(): values named by the events' own print fmts.
. "$(dirname "$0")/lib.sh"; need_root
out=$(q "select distinct symbolic('vec', vec) from softirq_entry" -d 1s) || fail "symbolic"
[ -n "$out" ] || skip "no softirq in 1 s"
for name in $out; do
	case $name in HI|TIMER|NET_TX|NET_RX|BLOCK|IRQ_POLL|TASKLET|SCHED|HRTIMER|RCU) ;;
	*) fail "softirq vector named '$name'" ;; esac
done
echo "ok: softirq vectors named $(echo $out | tr '\n' ' ')"
eq "$(q "select symbolic('vec', 1), symbolic('vec', 9), symbolic('vec', 77) from softirq_entry limit 1" -d 1s)" \
	"TIMER,RCU,77" "known vectors by number, and an unknown one as a number"
out=$(q "select flags('prev_state', 1), flags('prev_state', 2), flags('prev_state', 3) from sched_switch limit 1" -d 500ms)
eq "$out" "S,D,S|D" "prev_state bits as sched_switch prints them"
out=$(q "select flags('nosuchfield', 5) from sched_switch limit 1" -d 500ms)
eq "$out" "0x5" "a field with no __print_flags prints in hex"
