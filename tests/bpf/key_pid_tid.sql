-- keys: _pid and _tid (bpf_get_current_pid_tgid)
SELECT _pid, _tid, count(*) FROM sys_enter_read GROUP BY _pid, _tid;
