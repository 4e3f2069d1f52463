-- top: the keys with the most events, or the largest sum of a field, in a table
-- needs: the tracepoint named by table=
-- param: table table NULL "the tracepoint"
-- param: key column _comm "group by this column"
-- param: field column _period "sum this column (the default, _period, is 1 per event)"
-- param: limit int 10 "at most this many keys"
-- example: perf-sql top table=sys_enter_write field=count -i 1000
-- example: perf-sql top table=sched_switch key=prev_comm
-- Like perf-prof top -e EVENT -k KEY. Ordered by the sum, then by the events.
SELECT :key AS key, count(*) AS events, sum(:field) AS total
  FROM :table
 GROUP BY :key
 ORDER BY total DESC, events DESC
 LIMIT :limit;
