-- hrcount: event counts per fine time slot (10 ms by default): min, max, every slot
-- needs: the tracepoint named by table=
-- param: table table NULL "the tracepoint"
-- param: slot duration 10ms "the slot length"
-- example: perf-sql hrcount table=irq_handler_entry slot=1ms -i 1000
-- Like perf-prof hrcount. Slots without events in between count 0; the counts list is in time
-- order from the first slot with an event.
WITH c AS (SELECT _time / :slot AS s, count(*) AS n FROM :table GROUP BY 1),
     r(s) AS (SELECT min(s) FROM c UNION ALL
              SELECT s + 1 FROM r WHERE s < (SELECT max(s) FROM c))
SELECT ts(min(r.s) * :slot) AS first_slot, count(*) AS slots, sum(coalesce(n, 0)) AS events,
       min(coalesce(n, 0)) AS min, max(coalesce(n, 0)) AS max,
       group_concat(coalesce(n, 0), ' ') AS counts
  FROM r LEFT JOIN c USING (s)
 WHERE r.s IS NOT NULL;
