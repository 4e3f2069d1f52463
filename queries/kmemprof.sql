-- kmemprof: kernel allocation hot spots: kmalloc calls and bytes per call site
-- needs: tracepoints kmem:kmalloc
-- param: limit int 20 "at most this many call sites"
-- example: perf-sql kmemprof -d 5s
-- example: perf-sql kmemprof -i 1000 -- ./app
-- Like perf-prof kmemprof (by call site; by stack once tracepoint stacks exist). waste is what
-- the slab rounding adds: bytes_alloc - bytes_req. call_site is a kernel address.
SELECT printf('%#x', call_site) AS call_site, count(*) AS allocs, sum(bytes_req) AS bytes_req,
       sum(bytes_alloc) AS bytes_alloc, sum(bytes_alloc - bytes_req) AS waste,
       min(bytes_req) AS min_req, max(bytes_req) AS max_req
  FROM kmalloc
 GROUP BY call_site
 ORDER BY bytes_alloc DESC
 LIMIT :limit;
