-- fall-back: rows, not groups
SELECT fd, count FROM sys_enter_write;
