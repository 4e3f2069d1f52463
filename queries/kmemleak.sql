-- kmemleak: kernel objects allocated and never freed (kmalloc, kfree), per call site
-- needs: tracepoints kmem:kmalloc, kmem:kfree
-- param: than duration 0 "only objects alive at least this long at the window's end"
-- param: limit int 20 "at most this many call sites"
-- example: perf-sql kmemleak than=1s -d 30s
-- example: perf-sql kmemleak -- ./app
-- Like perf-prof kmemleak on kmem:kmalloc/kfree and bcc's memleak: an object is outstanding
-- while its pointer's last event is a kmalloc. pending() keeps each allocation by pointer until
-- its kfree (in the kernel: a BPF hash, only what is left read at the window's end), so with
-- -i each window lists what is still allocated since the start, and oldest_ms is the age of
-- the oldest. call_site is the allocating function (ksym), or its address.
SELECT coalesce(ksym(start_value), printf('%#x', start_value)) AS call_site,
       count(*) AS objects, sum(start_value2) AS bytes, round(max(age) / 1e6, 1) AS oldest_ms
  FROM pending('kmalloc', 'ptr', 'kfree', 'ptr', 'call_site', 'bytes_alloc')
 WHERE age >= :than
 GROUP BY start_value
 ORDER BY bytes DESC
 LIMIT :limit;
