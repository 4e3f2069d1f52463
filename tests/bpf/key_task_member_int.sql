-- a key: a signed int field of sched_wakeup, task_struct.prio through tp_btf
SELECT prio, count(*) FROM sched_wakeup GROUP BY prio;
