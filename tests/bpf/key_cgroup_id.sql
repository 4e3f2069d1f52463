-- the cgroup id as a plain integer value: a key and a WHERE comparison
SELECT _cgroup_id, sum(count) FROM sys_enter_write WHERE _cgroup_id > 1 GROUP BY 1;
