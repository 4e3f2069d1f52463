-- a key: raw_syscalls' id, every system call on tp_btf/sys_enter
SELECT id, count(*) FROM "raw_syscalls:sys_enter" GROUP BY id;
