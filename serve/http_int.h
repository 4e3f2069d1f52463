/*
 * serve/http_int.h - what serve/serve_http.c (the requests: /metrics, the guard of
 * --web.config.file, the server's start, reload and stop) and serve/http_conn.c (the
 * connections: the listening socket, each connection's request clock, the deadline's
 * watchdog) share: the server's state.
 */
#ifndef PERF_SQL_HTTP_INT_H
#define PERF_SQL_HTTP_INT_H
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <microhttpd.h>
#include "core/err.h"
#include "serve/serve.h"

/* a connection's request clock (serve_http.c (3)): linked in http.conns while the connection
 * is open */
struct conn_clock {
	struct conn_clock *next, **pprev;
	int fd;
	uint64_t since; /* ns, CLOCK_MONOTONIC: the connection's start or the last response's
			 * end; 0 while a request is being answered */
};

/* a window's exposition in both formats, as published; answered from until its last scrape */
struct snapshot {
	int refs; /* under http.lock */
	struct mbuf text, om;
};

struct http {
	struct MHD_Daemon *d;
	int fd;
	pthread_mutex_t lock; /* cur, conns, stopping */
	struct snapshot *cur;
	struct http_limits lim;
	struct conn_clock *conns;
	pthread_t watchdog;
	pthread_cond_t wake;
	bool watching, stopping;
	struct web_config *web; /* serve_http.c (7): the caller's, or NULL; under web_lock, which a
				 * password's bcrypt may hold for 50 ms: never lock (the
				 * collection thread's publish) */
	pthread_mutex_t web_lock;
	bool reload_said;
	struct debug_pprof *dp; /* the caller's, or NULL: /debug/pprof/ */
};

/* now, ns of CLOCK_MONOTONIC */
uint64_t http_conn__now(void);
/* (3) of serve_http.c: conn's request clock runs from since (0: stopped, answering) */
void http_conn__clock(struct http *h, struct MHD_Connection *conn, uint64_t since);
/* MHD_OPTION_NOTIFY_CONNECTION: a connection's clock linked in h->conns, unlinked at its end */
void http_conn__notify(void *cls, struct MHD_Connection *conn, void **socket_context,
		       enum MHD_ConnectionNotificationCode toe);
/* the watchdog thread of h, until h->stopping */
void *http_conn__watch(void *arg);
/* ADDR:PORT or [ADDR]:PORT, numeric only, bound and listening; the fd or -errno with e set
 * (bound gets the address bound: port 0 picks one) */
int http_conn__listen(const char *spec, char *bound, size_t len, struct err *e);
#endif
