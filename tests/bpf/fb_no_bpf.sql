-- fall-back: --no-bpf
-- args: --no-bpf
SELECT comm, count(*) FROM sys_enter_write GROUP BY comm;
