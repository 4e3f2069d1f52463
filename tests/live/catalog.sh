# perf_sql_events lists every tracepoint; --schema shows a table's columns with types.
. "$(dirname "$0")/lib.sh"; need_root; need_tracefs
n=$(ls -d "$TFS"/events/*/*/ | wc -l)
eq "$(q "select count(*) from perf_sql_events where kind = 'tracepoint'")" "$n" "catalog rows = tracefs event directories"
eq "$(q "select kind from perf_sql_events where name = 'cpu_clock'")" "software" "cpu_clock is a software event"
eq "$(q "select name, kind from perf_sql_events where system = 'sched' and event = 'sched_switch'")" \
	"sched_switch,tracepoint" "sched_switch row"
f=$(q "select fields from perf_sql_events where name = 'sched_switch'")
[[ "$f" == *"prev_comm char[16]"*"next_pid pid_t"* ]] || fail "fields: $f"
echo "ok: fields $f"
s=$(q --schema sched_switch | tr '\n' ' ')
[[ "$s" == "_time,INTEGER _cpu,INTEGER _pid,INTEGER _tid,INTEGER _comm,TEXT _period,INTEGER time,INTEGER cpu,INTEGER pid,INTEGER tid,INTEGER comm,TEXT prev_comm,TEXT prev_pid,INTEGER"* ]] ||
	fail "schema: $s"
echo "ok: schema"
# the name as SQL quotes it (as FROM takes it) is the same table
for t in '"sched:sched_switch"' '[sched_switch]' '`sched_switch`'; do
	eq "$(q --schema "$t" | tr '\n' ' ')" "$s" "--schema $t"
done
# on sched_wakeup, comm and pid are the event's own fields (the woken task), not aliases
s=$(q --schema sched_wakeup | tr '\n' ' ')
[[ "$s" == *"time,INTEGER cpu,INTEGER tid,INTEGER comm,TEXT pid,INTEGER prio"* ]] || fail "wakeup schema: $s"
echo "ok: sched_wakeup keeps its own comm/pid"
# sysfs PMU events are tables too, under perf's own spelling ("msr/tsc/") and system:event
pmus=$(q "select count(*) from perf_sql_events where kind = 'pmu'")
n=$(ls /sys/bus/event_source/devices/*/events/ 2>/dev/null | grep -v -e : -e '\.' -e '^$' | wc -l)
eq "$pmus" "$n" "pmu tables = sysfs PMU event files"
if [ -e /sys/bus/event_source/devices/msr/events/tsc ]; then
	err=$("$PERF_SQL" -d 100ms 'select count(*) from "msr/tsc/"' 2>&1); rc=$?
	eq "$rc" 1 "exit status when a counting-only PMU is asked to sample"
	[[ "$err" == "perf-sql: msr:tsc: this PMU cannot sample"* ]] || fail "msr: $err"
fi
