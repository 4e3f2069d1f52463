/*
 * serve/serve.h - perf-sql serve: queries and profilers as a Prometheus exporter
 * (docs/prometheus.md). serve/serve_args.c reads the command line, serve/serve.c runs the
 * queries through the engine; serve/metrics*.c turn each window into an exposition;
 * serve/serve_http.c serves the latest one at /metrics through libmicrohttpd, in its own thread;
 * serve/debug_pprof.c collects a pprof profile per request of /debug/pprof/NAME.
 */
#ifndef PERF_SQL_SERVE_H
#define PERF_SQL_SERVE_H
#include <stdbool.h>
#include <stddef.h>
#include "core/err.h"
#include "serve/metrics.h"

struct cli;
struct http;

#define HTTP_MAX_CONNECTIONS 256

/* what one client may hold (docs/security.md): 0 takes the default */
struct http_limits {
	unsigned per_client; /* connections open at once from one address (default 16) */
	long deadline_ms;    /* a request whole within this of the connection's start or of
			      * the previous response, or the connection is closed (5000) */
};

/* perf-sql serve [OPTIONS] NAME [PARAM=VALUE ...] | "SQL" ...: the subcommand's handler */
int serve__main(int argc, char **argv, struct cli *c);

/*
 * Listens on ADDR:PORT ("127.0.0.1:9464", "[::1]:9464"; port 0 picks a free one) and serves
 * from a thread of libmicrohttpd: GET /metrics the exposition last published, in OpenMetrics
 * when the Accept header prefers it, else in the 0.0.4 text format. bound_out gets the
 * address actually bound. NULL with e set (an unusable address, a port in use).
 */
struct web_config;
struct debug_pprof;

/* dp (NULL: none) answers /debug/pprof/ (serve/debug_pprof.h); http__stop() stops its
 * collections before the server */
struct http *http__start(const char *listen, const struct http_limits *lim, struct web_config *web,
			 struct debug_pprof *dp, char *bound_out, size_t len, struct err *e);
/* --web.config.file changed since it was read: read it again and serve with it; 1 done, 0
 * nothing to do, or -errno with e set (the old configuration kept) */
int http__reload(struct http *h, struct err *e);
/*
 * Makes text and om (the two renderings of one window) what every later scrape gets; takes
 * their buffers (left empty). A scrape in progress keeps the one it started with.
 */
void http__publish(struct http *h, struct mbuf *text, struct mbuf *om);
/* Stops serving: every connection is closed, the thread joined. NULL is fine. */
void http__stop(struct http *h);
/*
 * The same server with no listening socket and no thread (tests/fuzz/fuzz_http.c):
 * http__add_connection() hands it a connected socket (it closes it), http__run() serves what
 * can be served now without blocking and returns the connections still open.
 */
struct http *http__start_unlistened(struct err *e);
int http__add_connection(struct http *h, int fd);
int http__run(struct http *h);
/* Does an Accept header value prefer OpenMetrics to the text format? */
bool http__wants_openmetrics(const char *accept);
#endif
