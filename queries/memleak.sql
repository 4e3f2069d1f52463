-- memleak: user memory allocated and not freed, per allocating stack (uprobes)
-- needs: uprobes: --uretprobe ALLOC@BINARY --uprobe FREE@BINARY
-- param: alloc table uretprobe_malloc "the uretprobe table of the allocator (ret = the pointer)"
-- param: free table uprobe_free "the uprobe table of the free function (arg0 = the pointer)"
-- param: limit int 20 "at most this many stacks"
-- example: perf-sql memleak --uretprobe malloc@libc.so.6 --uprobe free@libc.so.6 -- ./app
-- example: perf-sql memleak alloc=uretprobe_my_alloc free=uprobe_my_free --uretprobe my_alloc@./app --uprobe my_free@./app -- ./app
-- Like perf-prof kmemleak with uprobes and bcc memleak. An object is outstanding when the last
-- event of its pointer in the run is an allocation. The stack is the allocator's caller's
-- (innermost first). Run it without -i: each window starts empty.
WITH ev AS (SELECT ret AS ptr, _time AS t, 1 AS alloc, stack FROM :alloc
            UNION ALL
            SELECT arg0, _time, 0, NULL FROM :free),
     last AS (SELECT ptr, max(t) AS t, alloc, stack FROM ev GROUP BY ptr)
SELECT stack_text(stack, ' <- ') AS stack, count(*) AS objects
  FROM last
 WHERE alloc = 1 AND ptr != 0
 GROUP BY 1
 ORDER BY objects DESC
 LIMIT :limit;
