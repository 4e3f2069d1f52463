-- a __data_loc string field as a key: read through the record (at most 64 bytes)
SELECT filename, count(*) FROM sched_process_exec GROUP BY filename;
