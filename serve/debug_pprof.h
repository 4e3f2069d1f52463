/*
 * serve/debug_pprof.h - perf-sql serve's /debug/pprof/: profiles collected on request, in the
 * format and at the paths of Go's net/http/pprof, so that `go tool pprof URL`, Pyroscope's and
 * Grafana Alloy's scrapers pull them as from a Go service (docs/pprof.md#perf-sql-serve).
 *
 *   curl -o cpu.pb.gz 'http://127.0.0.1:9464/debug/pprof/profile?seconds=10'
 *   perf-sql serve --pprof offcpu "select start_value as stack, sum(latency) as off_ns ..."
 *
 * (1) Endpoints: /debug/pprof/profile, the CPU profile (PPROF_CPU_SQL: cpu_clock's stacks
 *     counted in the kernel, at -F HZ, default 99), and one per --pprof NAME "SQL" at
 *     /debug/pprof/NAME. /debug/pprof/ lists them (text).
 * (2) GET ?seconds=N (default 30, or --pprof-max-seconds if less) collects for N seconds, on
 *     serve's targets (-p, -t, --cgroup, -C: its collection options) and answers the profile
 *     as render/pprof.h makes it (gzip'd profile.proto; 200, application/octet-stream,
 *     attachment). N not a whole number from 1 to --pprof-max-seconds: 400, one line.
 * (3) One collection per endpoint at a time: a request to an endpoint whose collection runs
 *     gets 429 with Retry-After, the seconds it has left (rounded up). Other endpoints and
 *     /metrics answer meanwhile: the request's connection is suspended (libmicrohttpd's
 *     MHD_ALLOW_SUSPEND_RESUME) while a thread of its own runs the query (engine/query.h)
 *     in 1 s windows, and resumed with the answer.
 * (4) A client that goes away is noticed at the next window's end (its socket hung up): the
 *     collection stops and the next request may start one. A query that fails is a 500 with
 *     its error; a stop of serve (SIGTERM) a 503, the collection's events closed first.
 * (5) Only the SQL given at start runs; the URL chooses an endpoint and N, nothing else.
 * (6) /debug/pprof/symbol (GET, or POST of addresses, Go's symbol service, which pprof asks
 *     for the frames of a mapping the profile left unnamed) answers "num_symbols: 0": the
 *     profile names what perf-sql can name, and nothing more is known here.
 */
#ifndef PERF_SQL_DEBUG_PPROF_H
#define PERF_SQL_DEBUG_PPROF_H
#include <stdbool.h>
#include "core/err.h"

struct debug_pprof;
struct MHD_Connection;
struct query;
struct query_param;

#define PPROF_DEFAULT_SECONDS 30
#define PPROF_MAX_SECONDS_DEFAULT 60
#define PPROF_MAX_ENDPOINTS 16
#define PPROF_WINDOW_MS 1000
#define PPROF_ANSWER_WAIT_MS 500
#define PPROF_CPU_SQL "SELECT stack, count(*) AS samples FROM cpu_clock GROUP BY stack"

/* max_seconds: the cap of ?seconds= (0: no endpoint at all, /debug/pprof/ is a 404) */
struct debug_pprof *debug_pprof__new(int max_seconds);
/* Cancels the collections and waits for their threads, each resuming its connection: before
 * the server stops. No collection starts after. NULL is fine. */
void debug_pprof__stop(struct debug_pprof *dp);
/* Stops, and frees: after the server stopped (a resumed connection's answer is read from it
 * until then). NULL is fine. */
void debug_pprof__free(struct debug_pprof *dp);
/* /debug/pprof/NAME runs sql with params (borrowed: they must outlive dp); what is its line
 * in the listing. 0, or -EINVAL (a name taken, not [A-Za-z0-9_-]+, too many) with e set. */
int debug_pprof__add(struct debug_pprof *dp, const char *name, const char *sql,
		     const struct query_param *params, int nr_params, const char *what,
		     struct err *e);
/* The collection options every profile runs with (serve's -p, -F, ...: copied; its sql and
 * parameters are not used). Before the server starts. */
void debug_pprof__set_query(struct debug_pprof *dp, const struct query *tmpl);
/* Serving: a whole request for url under /debug/pprof (method GET or HEAD); *con_cls becomes
 * the collection's when one starts (the connection is then suspended). An MHD_Result. */
int debug_pprof__request(struct debug_pprof *dp, struct MHD_Connection *conn, const char *url,
			 const char *method, void **con_cls);
/* The connection of a collection was resumed: its answer. An MHD_Result. */
int debug_pprof__resumed(struct debug_pprof *dp, struct MHD_Connection *conn, void *job);
/* The request of job is over (answered or not): its memory. */
void debug_pprof__completed(struct debug_pprof *dp, void *job);
/* While held (a web configuration's reload stops the server the connections are on), no
 * collection runs or starts: false, and nothing held, when one runs. */
bool debug_pprof__hold(struct debug_pprof *dp);
void debug_pprof__release(struct debug_pprof *dp);
#endif
