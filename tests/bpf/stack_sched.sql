-- a stack key on sched_switch: the tracepoint, not tp_btf (its own call's chain)
SELECT stack, count(*) FROM sched_switch GROUP BY stack;
