-- kmemleak: kernel objects allocated and never freed (kmalloc, kfree), per call site
-- needs: tracepoints kmem:kmalloc, kmem:kfree
-- param: than duration 0 "only objects alive at least this long at the end"
-- param: limit int 20 "at most this many call sites"
-- example: perf-sql kmemleak than=1s -d 30
-- Like perf-prof kmemleak on kmem:kmalloc/kfree. An object is outstanding when the last event
-- of its pointer in the run is a kmalloc. Run it without -i: each window starts empty, so a
-- free in a later window cannot see its allocation. call_site is a kernel address.
WITH ev AS (SELECT ptr, _time AS t, 1 AS alloc, call_site, bytes_alloc FROM kmalloc
            UNION ALL
            SELECT ptr, _time, 0, NULL, NULL FROM kfree),
     last AS (SELECT ptr, max(t) AS t, alloc, call_site, bytes_alloc FROM ev GROUP BY ptr),
     fin AS (SELECT max(t) AS t FROM ev)
SELECT printf('%#x', call_site) AS call_site, count(*) AS objects,
       sum(bytes_alloc) AS bytes, round(((SELECT t FROM fin) - min(last.t)) / 1e6, 1) AS oldest_ms
  FROM last
 WHERE alloc = 1 AND last.t <= (SELECT t FROM fin) - :than
 GROUP BY call_site
 ORDER BY bytes DESC
 LIMIT :limit;
