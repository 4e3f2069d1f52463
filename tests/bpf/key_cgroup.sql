-- a key: the task's cgroup v2 id (bpf_get_current_cgroup_id), shown as its path
SELECT _cgroup, count(*) FROM sys_enter_write GROUP BY _cgroup;
