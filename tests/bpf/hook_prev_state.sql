-- sched_switch's prev_state is computed, not a member: the tracepoint, and why
SELECT prev_state, count(*) FROM sched_switch GROUP BY prev_state;
