-- page-faults: user page faults per process: faults, pages, writes, protection faults
-- needs: tracepoints exceptions:page_fault_user
-- param: limit int 20 "at most this many processes"
-- example: perf-sql page-faults -- ./app
-- example: perf-sql page-faults -i 1000
-- Like perf-prof page-faults, counted instead of printed (trace table=page_fault_user prints
-- each). error_code bit 1 is a write, bit 0 a fault on a present page (protection).
SELECT _comm AS comm, _pid AS pid, count(*) AS faults, count(DISTINCT address >> 12) AS pages,
       sum((error_code & 2) != 0) AS writes, sum((error_code & 1) != 0) AS protection
  FROM page_fault_user
 GROUP BY _pid
 ORDER BY faults DESC
 LIMIT :limit;
