-- a key: sched_wakeup's target_cpu, task_struct.thread_info.cpu through tp_btf
SELECT target_cpu, count(*) FROM sched_wakeup GROUP BY target_cpu;
