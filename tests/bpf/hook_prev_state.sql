-- sched_switch's prev_state is computed as __trace_sched_switch_state() does (preempt, the prev_state argument, prev->exit_state): tp_btf
SELECT prev_state, count(*) FROM sched_switch GROUP BY prev_state;
