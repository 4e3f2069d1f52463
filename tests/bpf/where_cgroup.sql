-- WHERE on _cgroup: the ids matching at planning (none offline) or made since, in the program;
-- the term again on the paths of the groups, a key of the kernel's only
-- listing varies: the ids of the cgroups that match are this machine's
SELECT count(*) FROM sys_enter_write WHERE fd = 1 AND _cgroup GLOB 'system.slice/*';
