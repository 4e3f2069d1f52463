-- fall-back: count(*) alone of a table a program could skip (a wakeup in an interrupt that lands
-- inside the program's run for another) is counting mode, no program (bpf/hook.h (4))
SELECT count(*) FROM sched_wakeup;
