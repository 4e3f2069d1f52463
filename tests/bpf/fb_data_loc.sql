-- fall-back: a __data_loc string field
SELECT filename, count(*) FROM sched_process_exec GROUP BY filename;
