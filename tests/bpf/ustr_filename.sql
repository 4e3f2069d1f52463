-- user strings: NAME_str is copied by its own program, the GROUP BY stays on the ring
SELECT filename_str, count(*) FROM sys_enter_openat GROUP BY filename_str;
