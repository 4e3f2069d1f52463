-- _cgroup as a value to compute on: the ring runs it, and says why
SELECT sum(length(_cgroup)) FROM sys_enter_write;
