-- a key: a char[16] field of sched_switch, task_struct.comm through tp_btf
SELECT prev_comm, count(*) FROM sched_switch GROUP BY prev_comm;
