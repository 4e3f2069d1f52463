/*
 * serve/debug_pprof.c - /debug/pprof/: profiles collected on request (see serve/debug_pprof.h).
 *
 * HOW IT WORKS: a request for /debug/pprof/NAME?seconds=N is whole when serve/serve_http.c
 * hands it here, in libmicrohttpd's one thread, which must never wait. Under dp->lock the
 * endpoint is taken (429 if a collection has it), a job made, the connection suspended, and
 * a thread started that runs the endpoint's SQL through engine/query.h for N seconds in
 * 1 s windows, each window's rows added to a profile (render/pprof.h). At its end the thread
 * sets the job's answer, frees the endpoint and resumes the connection; libmicrohttpd then
 * calls the request handler again, which sends the answer (debug_pprof__resumed()). The job
 * is freed when libmicrohttpd is done with the request (debug_pprof__completed()), answered
 * or not. So:
 * (1) after MHD_resume_connection() the thread touches neither the job nor the connection;
 *     it is joined by the endpoint's next collection, or at the end;
 * (2) a connection is never suspended when the server stops: debug_pprof__stop() (called
 *     before the server stops) cancels every collection and joins its thread, each resuming
 *     its connection first, then waits (at most PPROF_ANSWER_WAIT_MS) for the answers to be
 *     sent; debug_pprof__hold() keeps collections out while a reload of the
 *     web configuration replaces the server;
 * (3) the request clock of serve_http.c (its deadline watchdog) is stopped while a request is
 *     answered, so a collection of N seconds is not cut by --request-deadline; a suspended
 *     connection has no idle timeout either (libmicrohttpd leaves it out of its timeouts);
 * (4) the engine's only shared state is session_stop, which a signal sets: it ends every
 *     collection too (a 503), as it ends serve's own run; and SQLite's heap limit
 *     (--max-memory, engine/lockdown.h), which is the process's: each run sets it to what
 *     SQLite holds then plus the budget, so a collection's start gives serve's own statements
 *     what the collection does not use of its budget, and the limit stays so after it.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <microhttpd.h>
#include "cli/run.h"
#include "engine/query.h"
#include "render/pprof.h"
#include "serve/debug_pprof.h"

struct endpoint {
	char name[65];
	const char *sql;
	const struct query_param *params;
	int nr_params;
	char what[240];
	struct job *running; /* under dp->lock */
	uint64_t ends;       /* ns, CLOCK_MONOTONIC: when it does */
	pthread_t thread;
	bool joinable; /* thread: the last collection's, to be joined */
};

struct debug_pprof {
	pthread_mutex_t lock; /* endpoints' running, stopping, held, nr_jobs */
	pthread_cond_t answered;
	int nr_jobs; /* made and not yet completed: their answer may be being sent */
	bool stopping;
	bool held;
	int max_seconds;
	struct query tmpl;
	struct endpoint ep[PPROF_MAX_ENDPOINTS];
	int nr_ep;
};

struct job {
	struct debug_pprof *dp;
	struct endpoint *ep;
	struct MHD_Connection *conn;
	int fd; /* the client's socket: hung up? */
	int seconds;
	struct pprof *pp;
	/* the answer, set before the connection is resumed */
	unsigned int status;
	uint8_t *body;
	size_t len;
	char msg[900];
};

struct debug_pprof *debug_pprof__new(int max_seconds)
{
	struct debug_pprof *dp = calloc(1, sizeof(*dp));

	if (!dp)
		return NULL;
	pthread_condattr_t ca;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&dp->answered, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&dp->lock, NULL);
	dp->max_seconds = max_seconds;
	return dp;
}

/* (2) the resumed connections' answers (a 503 when serve stops) sent, for at most
 * PPROF_ANSWER_WAIT_MS: the server's stop would close them unsent */
static void answers_sent(struct debug_pprof *dp)
{
	struct timespec until;
	uint64_t t;

	clock_gettime(CLOCK_MONOTONIC, &until);
	t = (uint64_t)until.tv_nsec + PPROF_ANSWER_WAIT_MS * 1000000ull;
	until.tv_sec += (time_t)(t / 1000000000ull);
	until.tv_nsec = (long)(t % 1000000000ull);
	pthread_mutex_lock(&dp->lock);
	while (dp->nr_jobs && !pthread_cond_timedwait(&dp->answered, &dp->lock, &until))
		;
	pthread_mutex_unlock(&dp->lock);
}

/* every collection cancelled, its thread joined (it resumed its connection first) */
static void stop_collections(struct debug_pprof *dp)
{
	pthread_mutex_lock(&dp->lock);
	dp->stopping = true; /* (2): running ones stop at their next window, none starts */
	pthread_mutex_unlock(&dp->lock);
	for (int i = 0; i < dp->nr_ep; i++)
		if (dp->ep[i].joinable)
			pthread_join(dp->ep[i].thread, NULL);
	for (int i = 0; i < dp->nr_ep; i++)
		dp->ep[i].joinable = false;
}

void debug_pprof__stop(struct debug_pprof *dp)
{
	if (!dp)
		return;
	stop_collections(dp);
	answers_sent(dp);
}

void debug_pprof__free(struct debug_pprof *dp)
{
	if (!dp)
		return;
	stop_collections(dp); /* none runs when the server was stopped first, as it should be */
	pthread_cond_destroy(&dp->answered);
	pthread_mutex_destroy(&dp->lock);
	free(dp);
}

int debug_pprof__add(struct debug_pprof *dp, const char *name, const char *sql,
		     const struct query_param *params, int nr_params, const char *what,
		     struct err *e)
{
	struct endpoint *ep = &dp->ep[dp->nr_ep];
	size_t n = strlen(name);

	if (!n || n >= sizeof(ep->name) ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != n)
		return err_set(e, -EINVAL,
			       "--pprof '%s': a name is 1 to 64 of A-Z a-z 0-9 _ - (the path "
			       "/debug/pprof/NAME)",
			       name);
	for (int i = 0; i < dp->nr_ep; i++)
		if (!strcmp(dp->ep[i].name, name))
			return err_set(e, -EINVAL, "--pprof %s: /debug/pprof/%s is served already",
				       name, name);
	if (dp->nr_ep == PPROF_MAX_ENDPOINTS)
		return err_set(e, -EINVAL, "--pprof %s: at most %d profiles", name,
			       PPROF_MAX_ENDPOINTS);
	snprintf(ep->name, sizeof(ep->name), "%s", name);
	snprintf(ep->what, sizeof(ep->what), "%s", what);
	for (char *p = ep->what; *p; p++) /* one line */
		if (*p == '\n' || *p == '\t')
			*p = ' ';
	ep->sql = sql;
	ep->params = params;
	ep->nr_params = nr_params;
	dp->nr_ep++;
	return 0;
}

void debug_pprof__set_query(struct debug_pprof *dp, const struct query *tmpl) { dp->tmpl = *tmpl; }

bool debug_pprof__hold(struct debug_pprof *dp)
{
	bool busy = false;

	if (!dp)
		return true;
	pthread_mutex_lock(&dp->lock);
	busy = dp->nr_jobs > 0; /* running, or its answer being sent: the old server's */
	dp->held = !busy;
	pthread_mutex_unlock(&dp->lock);
	return !busy;
}

void debug_pprof__release(struct debug_pprof *dp)
{
	if (!dp)
		return;
	pthread_mutex_lock(&dp->lock);
	dp->held = false;
	pthread_mutex_unlock(&dp->lock);
}

/* ------------------------------------------------------------------ the collection */

/* (4) the client hung up, or serve stops */
static bool cancelled(struct job *j)
{
	struct pollfd p = { .fd = j->fd, .events = POLLRDHUP };
	bool stop;

	pthread_mutex_lock(&j->dp->lock);
	stop = j->dp->stopping;
	pthread_mutex_unlock(&j->dp->lock);
	return stop || session_stop ||
	       (j->fd >= 0 && poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)));
}

static int on_window(void *ctx, struct query *q, struct session *s, struct err *e)
{
	struct job *j = ctx;

	if (cancelled(j))
		return -ECANCELED;
	pprof__window(j->pp, s);
	for (int i = 0; i < q->nr_stmts; i++) {
		int rc;

		sqlite3_reset(q->stmts[i]);
		if ((rc = pprof__statement(j->pp, q->stmts[i])) == SQLITE_NOMEM)
			return err_set(e, -ENOMEM, "out of memory");
		if (rc != SQLITE_OK)
			return query__sql_err(q, s, sqlite3_errmsg(q->db), e);
	}
	return 0;
}

/* the engine's lines (lost events, mostly), each: what a profile lacks is said (at most one
 * a window and table: --pprof-max-seconds bounds them per request) */
static void on_notice(void *ctx, const char *line)
{
	struct job *j = ctx;

	say("serve: /debug/pprof/%s?seconds=%d: %s", j->ep->name, j->seconds, line);
}

static const struct query_ops collect_ops = { .window = on_window, .notice = on_notice };

static void answer_error(struct job *j, unsigned int status, const char *fmt, const char *what)
{
	j->status = status;
	snprintf(j->msg, sizeof(j->msg), fmt, j->ep->name, what);
}

/* the job's answer from the run's outcome */
static void answer(struct job *j, int ret, const struct err *e)
{
	size_t rows, samples;

	if (ret == -ECANCELED || session_stop) {
		answer_error(j, MHD_HTTP_SERVICE_UNAVAILABLE,
			     "/debug/pprof/%s: collection cancelled: %s\n",
			     "serve is stopping or the client left");
		return;
	}
	if (ret) { /* the error as the command line says it: the message; the hint */
		j->status = MHD_HTTP_INTERNAL_SERVER_ERROR;
		snprintf(j->msg, sizeof(j->msg), "/debug/pprof/%s: %s%s%s\n", j->ep->name, e->msg,
			 e->hint[0] ? "; " : "", e->hint);
		return;
	}
	pprof__counts(j->pp, &rows, &samples);
	if (rows && !samples) {
		answer_error(j, MHD_HTTP_INTERNAL_SERVER_ERROR, "/debug/pprof/%s: %s\n",
			     "no row of the result has a stack (select a table's stack column, or "
			     "GROUP BY stack: docs/pprof.md)");
		return;
	}
	if (pprof__encode(j->pp, &j->body, &j->len)) {
		answer_error(j, MHD_HTTP_INTERNAL_SERVER_ERROR, "/debug/pprof/%s: %s\n",
			     "out of memory");
		return;
	}
	j->status = MHD_HTTP_OK;
}

static void *collect(void *arg)
{
	struct job *j = arg;
	struct query q = j->dp->tmpl; /* the template's run fields are unset: never run */
	struct err e = { 0 };
	int ret = -ENOMEM;

	q.sql = j->ep->sql;
	q.nr_params = j->ep->nr_params;
	if (q.nr_params) /* the CPU profile's are NULL */
		memcpy(q.params, j->ep->params, (size_t)q.nr_params * sizeof(q.params[0]));
	q.so.interval_ms = PPROF_WINDOW_MS;
	q.so.duration_ms = j->seconds * 1000L;
	q.so.workload = NULL;
	q.so.tick = NULL;
	q.so.verbose = 0;
	q.plan_only = false;
	q.record_path = NULL;
	if ((j->pp = pprof__new()))
		ret = query__run(&q, &collect_ops, j, &e);
	answer(j, ret, &e);
	pprof__free(j->pp);
	j->pp = NULL;
	pthread_mutex_lock(&j->dp->lock);
	j->ep->running = NULL;
	pthread_mutex_unlock(&j->dp->lock);
	MHD_resume_connection(j->conn); /* (1): the job is libmicrohttpd's from here */
	return NULL;
}

/* ------------------------------------------------------------------------ serving */

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned int status, const char *body,
			     long retry_after)
{
	struct MHD_Response *r =
		MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ret;
	char s[24];

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	if (status >= 400) /* go tool pprof then prints the line as the server's error */
		MHD_add_response_header(r, "X-Go-Pprof", "1");
	if (retry_after > 0) {
		snprintf(s, sizeof(s), "%ld", retry_after);
		MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, s);
	}
	ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

/* (1) the listing */
static enum MHD_Result list(struct debug_pprof *dp, struct MHD_Connection *conn, unsigned status)
{
	char *page = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&page, &len);
	enum MHD_Result ret;

	if (!f)
		return MHD_NO;
	fprintf(f,
		"perf-sql serve: pprof profiles (docs/pprof.md), each collected on request for "
		"?seconds=N\n(default %d, at most %d), one at a time per profile:\n\n",
		dp->max_seconds < PPROF_DEFAULT_SECONDS ? dp->max_seconds : PPROF_DEFAULT_SECONDS,
		dp->max_seconds);
	for (int i = 0; i < dp->nr_ep; i++)
		fprintf(f, "/debug/pprof/%s\n    %s\n", dp->ep[i].name, dp->ep[i].what);
	if (fclose(f)) {
		free(page);
		return MHD_NO;
	}
	ret = reply(conn, status, page, 0);
	free(page);
	return ret;
}

/* (2) ?seconds=: 0 and *out set, or -EINVAL with msg */
static int parse_seconds(const struct debug_pprof *dp, const char *v, int *out, char *msg,
			 size_t len)
{
	size_t n = v ? strlen(v) : 0;
	long s;

	if (!v) {
		*out = dp->max_seconds < PPROF_DEFAULT_SECONDS ? dp->max_seconds
							       : PPROF_DEFAULT_SECONDS;
		return 0;
	}
	s = n && n <= 6 && strspn(v, "0123456789") == n ? strtol(v, NULL, 10) : -1;
	if (s >= 1 && s <= dp->max_seconds) {
		*out = (int)s;
		return 0;
	}
	snprintf(msg, len,
		 "seconds '%.32s': expected a whole number of seconds from 1 to %d "
		 "(perf-sql serve --pprof-max-seconds)\n",
		 v, dp->max_seconds);
	return -EINVAL;
}

static struct endpoint *endpoint_of(struct debug_pprof *dp, const char *name)
{
	for (int i = 0; i < dp->nr_ep; i++)
		if (!strcmp(dp->ep[i].name, name))
			return &dp->ep[i];
	return NULL;
}

/* under dp->lock: the endpoint is free (else the answer: 429, 503) and ep->running is j */
static enum MHD_Result take(struct debug_pprof *dp, struct endpoint *ep, struct job *j,
			    struct MHD_Connection *conn, bool *taken)
{
	char msg[200];
	uint64_t now = now_ns(CLOCK_MONOTONIC);

	*taken = false;
	if (dp->stopping || dp->held)
		return reply(conn, MHD_HTTP_SERVICE_UNAVAILABLE,
			     "serve is stopping or restarting its server; try again\n", 1);
	if (ep->running) {
		long left = ep->ends > now ? (long)((ep->ends - now + 999999999ull) / 1000000000ull)
					   : 1;

		snprintf(msg, sizeof(msg),
			 "/debug/pprof/%s: a profile is being collected (%ld s left); one at a "
			 "time: try again after it\n",
			 ep->name, left);
		return reply(conn, MHD_HTTP_TOO_MANY_REQUESTS, msg, left);
	}
	if (ep->joinable) /* the last collection's thread: past its resume, returning (1) */
		pthread_join(ep->thread, NULL);
	ep->joinable = false;
	ep->running = j;
	ep->ends = now + (uint64_t)j->seconds * 1000000000ull;
	dp->nr_jobs++; /* until debug_pprof__completed() */
	*taken = true;
	return MHD_YES;
}

/* (2), (3): the collection starts and the connection waits for it */
static enum MHD_Result start(struct debug_pprof *dp, struct endpoint *ep,
			     struct MHD_Connection *conn, int seconds, void **con_cls)
{
	const union MHD_ConnectionInfo *i =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	struct job *j = calloc(1, sizeof(*j));
	enum MHD_Result ret;
	bool taken;

	if (!j)
		return MHD_NO;
	*j = (struct job){
		.dp = dp, .ep = ep, .conn = conn, .fd = i ? i->connect_fd : -1, .seconds = seconds
	};
	pthread_mutex_lock(&dp->lock);
	ret = take(dp, ep, j, conn, &taken);
	if (taken) {
		*con_cls = j;
		MHD_suspend_connection(conn); /* before the thread can resume it */
		ep->joinable = !pthread_create(&ep->thread, NULL, collect, j);
		if (!ep->joinable) {
			ep->running = NULL;
			answer_error(j, MHD_HTTP_INTERNAL_SERVER_ERROR, "/debug/pprof/%s: %s\n",
				     "no thread could be started for the collection");
			MHD_resume_connection(conn);
		}
	}
	pthread_mutex_unlock(&dp->lock);
	if (!taken)
		free(j);
	return ret;
}

int debug_pprof__request(struct debug_pprof *dp, struct MHD_Connection *conn, const char *url,
			 const char *method, void **con_cls)
{
	const char *name = url + strlen("/debug/pprof");
	struct endpoint *ep;
	char msg[200];
	int seconds;

	if (*name == '/')
		name++;
	if (!dp || !dp->nr_ep || (url[12] && url[12] != '/'))
		return reply(conn, MHD_HTTP_NOT_FOUND, "not found: the metrics are at /metrics\n",
			     0);
	if (!*name)
		return list(dp, conn, MHD_HTTP_OK);
	if (!strcmp(name, "symbol")) /* (6) */
		return reply(conn, MHD_HTTP_OK, "num_symbols: 0\n", 0);
	if (!(ep = endpoint_of(dp, name)))
		return list(dp, conn, MHD_HTTP_NOT_FOUND);
	if (strcmp(method, MHD_HTTP_METHOD_GET))
		return reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
			     "only GET: each request collects a profile\n", 0);
	if (parse_seconds(dp, MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "seconds"),
			  &seconds, msg, sizeof(msg)))
		return reply(conn, MHD_HTTP_BAD_REQUEST, msg, 0);
	return start(dp, ep, conn, seconds, con_cls);
}

int debug_pprof__resumed(struct debug_pprof *dp, struct MHD_Connection *conn, void *job)
{
	struct job *j = job;
	struct MHD_Response *r;
	enum MHD_Result ret;
	char disp[120];

	if (j->status != MHD_HTTP_OK)
		return reply(conn, j->status, j->msg, 0);
	r = MHD_create_response_from_buffer(j->len, j->body, MHD_RESPMEM_MUST_FREE);
	if (!r)
		return MHD_NO;
	j->body = NULL; /* the response's now */
	snprintf(disp, sizeof(disp), "attachment; filename=\"%s\"", j->ep->name);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/octet-stream");
	MHD_add_response_header(r, "Content-Disposition", disp);
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	ret = MHD_queue_response(conn, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

void debug_pprof__completed(struct debug_pprof *dp, void *job)
{
	struct job *j = job;

	pthread_mutex_lock(&dp->lock);
	dp->nr_jobs--;
	pthread_cond_broadcast(&dp->answered);
	pthread_mutex_unlock(&dp->lock);
	free(j->body);
	free(j);
}
