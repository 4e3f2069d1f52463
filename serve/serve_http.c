/*
 * serve/serve_http.c - /metrics over HTTP with libmicrohttpd (see serve/serve.h).
 *
 * HOW IT WORKS: the collection thread renders each window into a new snapshot (both formats)
 * and swaps it in under a mutex; a request takes a reference to the current snapshot under
 * the same mutex and is answered from its buffer, which libmicrohttpd sends without a copy;
 * the last reference frees it. So:
 * (1) a scrape sees one whole window, never a half-built one (the snapshot is complete
 *     before it is swapped in, and never changes after);
 * (2) collection never waits for a scraper: it holds the mutex only to swap a pointer, and
 *     sockets are libmicrohttpd's thread's business (non-blocking, one epoll loop);
 * (3) a slow or stopped scraper holds at most its snapshot, until the connection timeout
 *     (10 s without progress) closes it; at most 256 connections are open at once, at most
 *     --max-per-client (16) from one address, and a request must be whole within
 *     --request-deadline (5 s) of the connection's start or of the previous response: a
 *     watchdog thread shuts down the socket of one that is not (a client sending one header
 *     byte a second would otherwise hold its slot for good, the idle timeout restarting on
 *     every byte). The listening socket, the request clocks and the watchdog are
 *     serve/http_conn.c's.
 * (4) The signals perf-sql stops on (SIGINT, SIGTERM, SIGHUP) are blocked in the server's
 *     thread: they reach the collection thread, which ends the run.
 * (5) Only GET and HEAD of /metrics (and / with a pointer to it), and GET of /debug/pprof/
 *     (serve/debug_pprof.h: a profile's request is suspended while a thread of its own
 *     collects, so /metrics answers meanwhile; its request clock stays stopped until the
 *     answer is sent: (3) bounds a request's reception, not its answer), and POST of
 *     /debug/pprof/symbol, whose body is dropped; nothing a client sends is run or kept.
 * (7) --web.config.file (serve/web_config.h): TLS through libmicrohttpd's GnuTLS, a client
 *     certificate checked before anything is answered (a connection without one, or with one
 *     the CAs do not verify, is closed), then basic authentication (401 and
 *     WWW-Authenticate otherwise); every path is behind both. A changed file is read again
 *     at a window's end (http__reload()): a new server takes the listening socket over and
 *     the old one is stopped.
 * (6) The request path runs without a socket of ours too: http__start_unlistened() has no
 *     listening socket and no thread; a connected socket is handed in and served by
 *     http__run() (tests/fuzz/fuzz_http.c sends it any bytes through a socketpair).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <gnutls/gnutls.h>
#include <microhttpd.h>
#include "serve/debug_pprof.h"
#include "serve/http_int.h"
#include "serve/serve.h"
#include "serve/web_config.h"

#define HTTP_TIMEOUT_S 10
#define HTTP_PER_CLIENT 16
#define HTTP_DEADLINE_MS 5000

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct http *h = cls;

	if (*con_cls && *con_cls != h) /* a profile's collection (serve/debug_pprof.h) */
		debug_pprof__completed(h->dp, *con_cls);
	*con_cls = NULL;
	http_conn__clock(h, conn, http_conn__now()); /* the next request's deadline from here */
}

static const char index_page[] = "perf-sql serve: the metrics are at /metrics, the pprof "
				 "profiles listed at /debug/pprof/\n";

static void snapshot_put(struct http *h, struct snapshot *s)
{
	bool last;

	pthread_mutex_lock(&h->lock);
	last = --s->refs == 0;
	pthread_mutex_unlock(&h->lock);
	if (last) {
		mbuf__free(&s->text);
		mbuf__free(&s->om);
		free(s);
	}
}

struct release {
	struct http *h;
	struct snapshot *s;
};

static void on_sent(void *cls)
{
	struct release *r = cls;

	snapshot_put(r->h, r->s);
	free(r);
}

/* q of a media range "type/sub;a=b;q=0.5" (1 without one) */
static double media_q(const char *range, size_t n)
{
	const char *p = range;

	while ((p = memchr(p, ';', n - (size_t)(p - range)))) {
		p++;
		while (*p == ' ')
			p++;
		if ((p[0] == 'q' || p[0] == 'Q') && p[1] == '=')
			return strtod(p + 2, NULL);
	}
	return 1.0;
}

bool http__wants_openmetrics(const char *accept)
{
	double q_om = 0, q_text = 0;

	while (accept && *accept) {
		size_t n = strcspn(accept, ","), t;
		const char *r = accept + strspn(accept, " \t");

		n -= (size_t)(r - accept);
		t = strcspn(r, ";, \t");
		if (t > n)
			t = n;
		if (t == 28 && !strncasecmp(r, "application/openmetrics-text", t)) {
			double q = media_q(r, n);

			q_om = q > q_om ? q : q_om;
		} else if ((t == 10 && !strncasecmp(r, "text/plain", t)) ||
			   (t == 6 && !strncasecmp(r, "text/*", t)) ||
			   (t == 3 && !strncmp(r, "*/*", t))) {
			double q = media_q(r, n);

			q_text = q > q_text ? q : q_text;
		}
		accept = r + n + (r[n] == ',');
	}
	return q_om > 0 && q_om >= q_text;
}

static enum MHD_Result reply_static(struct MHD_Connection *conn, unsigned int status,
				    const char *body)
{
	struct MHD_Response *r =
		MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

/* (7) a client certificate as client_auth_type wants it */
static bool client_cert_ok(struct MHD_Connection *conn, enum client_auth mode)
{
	const union MHD_ConnectionInfo *i;
	unsigned int status = 1, n = 0;
	gnutls_session_t tls;

	if (mode < CLIENT_REQUIRE_ANY && mode != CLIENT_VERIFY_IF_GIVEN)
		return true;
	if (!(i = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION)))
		return false;
	tls = (gnutls_session_t)i->tls_session;
	if (!gnutls_certificate_get_peers(tls, &n) || !n)
		return mode == CLIENT_VERIFY_IF_GIVEN;
	if (mode == CLIENT_REQUIRE_ANY)
		return true;
	return !gnutls_certificate_verify_peers2(tls, &status) && !status;
}

/* (7) MHD_YES: go on; else the connection is answered (401) or closed */
static enum MHD_Result guard(struct http *h, struct MHD_Connection *conn, bool *pass)
{
	char *pw = NULL, *user;
	struct MHD_Response *r;
	enum MHD_Result ret;
	bool tls_ok, auth_ok;

	*pass = true;
	if (!h->web)
		return MHD_YES;
	user = MHD_basic_auth_get_username_password(conn, &pw);
	pthread_mutex_lock(&h->web_lock);
	tls_ok = !h->web->tls || client_cert_ok(conn, h->web->client_auth);
	auth_ok = tls_ok && web_config__allows(h->web, user, pw);
	pthread_mutex_unlock(&h->web_lock);
	if (pw)
		MHD_free(pw);
	if (user)
		MHD_free(user);
	*pass = tls_ok && auth_ok;
	if (!tls_ok)
		return MHD_NO; /* no (verified) client certificate: closed, as a failed handshake */
	if (auth_ok)
		return MHD_YES;
	r = MHD_create_response_from_buffer(13, (void *)"unauthorized\n", MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	ret = MHD_queue_basic_auth_fail_response(conn, "perf-sql", r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_len, void **con_cls)
{
	struct http *h = cls;
	struct release *rel;
	struct MHD_Response *r;
	enum MHD_Result ret;
	bool om;

	http_conn__clock(h, conn, 0); /* the request is whole: answering (3) */
	if (!*con_cls) {
		bool pass;
		enum MHD_Result g = guard(h, conn, &pass);

		if (!pass)
			return g;
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD) &&
	    (strcmp(method, MHD_HTTP_METHOD_POST) || strcmp(url, "/debug/pprof/symbol")))
		return reply_static(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n");
	if (!*con_cls) { /* the headers: answer on the next call, once the request is whole, so
			    * the connection may stay open for the next scrape */
		*con_cls = h;
		return MHD_YES;
	}
	if (*upload_len) { /* a body: read and dropped */
		*upload_len = 0;
		return MHD_YES;
	}
	if (*con_cls != h) /* a profile's connection, resumed: its answer */
		return debug_pprof__resumed(h->dp, conn, *con_cls);
	if (!strncmp(url, "/debug/pprof", 12))
		return debug_pprof__request(h->dp, conn, url, method, con_cls);
	if (!strcmp(url, "/"))
		return reply_static(conn, MHD_HTTP_OK, index_page);
	if (strcmp(url, "/metrics"))
		return reply_static(conn, MHD_HTTP_NOT_FOUND,
				    "not found: the metrics are at /metrics\n");
	om = http__wants_openmetrics(
		MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT));
	if (!(rel = malloc(sizeof(*rel))))
		return MHD_NO;
	pthread_mutex_lock(&h->lock);
	rel->h = h;
	rel->s = h->cur;
	rel->s->refs++;
	pthread_mutex_unlock(&h->lock);
	r = MHD_create_response_from_buffer_with_free_callback_cls(
		om ? rel->s->om.len : rel->s->text.len, om ? rel->s->om.p : rel->s->text.p, on_sent,
		rel);
	if (!r) {
		on_sent(rel);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				om ? METRICS_CT_OPENMETRICS : METRICS_CT_TEXT);
	ret = MHD_queue_response(conn, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

static struct http *http_new(const struct http_limits *lim, struct err *e)
{
	struct http *h = calloc(1, sizeof(*h));

	if (h) {
		h->fd = -1;
		h->lim.per_client = lim && lim->per_client ? lim->per_client : HTTP_PER_CLIENT;
		h->lim.deadline_ms = lim && lim->deadline_ms ? lim->deadline_ms : HTTP_DEADLINE_MS;
	}
	if (!h || !(h->cur = calloc(1, sizeof(*h->cur)))) {
		free(h);
		err_set(e, -ENOMEM, "out of memory");
		return NULL;
	}
	h->cur->refs = 1;
	pthread_mutex_init(&h->lock, NULL);
	pthread_mutex_init(&h->web_lock, NULL);
	pthread_condattr_t ca;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&h->wake, &ca);
	pthread_condattr_destroy(&ca);
	return h;
}

/* the daemon: its own thread on h->fd, or (flags MHD_USE_NO_LISTEN_SOCKET) none, for (6) */
static int http_daemon(struct http *h, unsigned int flags)
{
	bool listening = !(flags & MHD_USE_NO_LISTEN_SOCKET);
	struct MHD_OptionItem opts[] = {
		{ MHD_OPTION_CONNECTION_LIMIT, HTTP_MAX_CONNECTIONS, NULL },
		{ MHD_OPTION_PER_IP_CONNECTION_LIMIT, h->lim.per_client, NULL },
		{ MHD_OPTION_CONNECTION_TIMEOUT, HTTP_TIMEOUT_S, NULL },
		{ MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)http_conn__notify, h },
		{ MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)on_completed, h },
		{ listening ? MHD_OPTION_LISTEN_SOCKET : MHD_OPTION_END, h->fd, NULL },
		{ MHD_OPTION_END, 0, NULL }, /* (7): the TLS options, when set */
		{ MHD_OPTION_END, 0, NULL },
		{ MHD_OPTION_END, 0, NULL },
		{ MHD_OPTION_END, 0, NULL },
		{ MHD_OPTION_END, 0, NULL },
	};
	const struct web_config *w = h->web;

	if (listening && w && w->tls) {
		int k = 6;

		opts[k++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0, w->key };
		opts[k++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0, w->cert };
		opts[k++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_PRIORITIES, 0,
						     (void *)web_config__priorities(w) };
		if (w->ca && w->client_auth != CLIENT_NONE)
			opts[k++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_TRUST, 0, w->ca };
		flags |= MHD_USE_TLS;
	}
	sigset_t block, old;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &block, &old); /* (4): the server's thread inherits it */
	h->d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, h, MHD_OPTION_ARRAY, opts,
				MHD_OPTION_END);
	if (h->d && listening && !h->watching)
		h->watching = !pthread_create(&h->watchdog, NULL, http_conn__watch, h);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (h->d)
		h->fd = -1; /* the daemon's now: MHD_stop_daemon() closes it */
	return h->d ? 0 : -EIO;
}

struct http *http__start(const char *listen, const struct http_limits *lim, struct web_config *web,
			 struct debug_pprof *dp, char *bound, size_t len, struct err *e)
{
	struct http *h = http_new(lim, e);

	if (!h)
		return NULL;
	h->web = web;
	h->dp = dp;
	if ((h->fd = http_conn__listen(listen, bound, len, e)) < 0) {
		http__stop(h);
		return NULL;
	}
	if (http_daemon(h, MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ITC | MHD_ALLOW_SUSPEND_RESUME)) {
		err_set(e, -EIO, "--listen %s: libmicrohttpd could not start its server thread",
			bound);
		http__stop(h);
		return NULL;
	}
	return h;
}

struct http *http__start_unlistened(struct err *e)
{
	struct http *h = http_new(NULL, e);

	if (h && http_daemon(h, MHD_USE_NO_LISTEN_SOCKET)) {
		err_set(e, -EIO, "libmicrohttpd could not start a server");
		http__stop(h);
		return NULL;
	}
	return h;
}

int http__add_connection(struct http *h, int fd)
{
	struct sockaddr_in peer = { .sin_family = AF_INET,
				    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };

	return MHD_add_connection(h->d, fd, (struct sockaddr *)&peer, sizeof(peer)) == MHD_YES
		       ? 0
		       : -errno;
}

int http__run(struct http *h)
{
	const union MHD_DaemonInfo *i;

	MHD_run(h->d);
	i = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
	return i ? (int)i->num_connections : 0;
}

void http__publish(struct http *h, struct mbuf *text, struct mbuf *om)
{
	struct snapshot *s = calloc(1, sizeof(*s)), *old;

	if (!s)
		return; /* scrapes keep the previous window */
	s->refs = 1;
	s->text = *text;
	s->om = *om;
	*text = (struct mbuf){ 0 };
	*om = (struct mbuf){ 0 };
	pthread_mutex_lock(&h->lock);
	old = h->cur;
	h->cur = s;
	pthread_mutex_unlock(&h->lock);
	snapshot_put(h, old);
}

/* (7) h->web becomes *c; what it was, returned, is freed by the caller once no server reads it */
static struct web_config swap_web(struct http *h, const struct web_config *c)
{
	struct web_config was;

	pthread_mutex_lock(&h->web_lock);
	was = *h->web;
	*h->web = *c;
	pthread_mutex_unlock(&h->web_lock);
	return was;
}

static int reload(struct http *h, struct err *e);

int http__reload(struct http *h, struct err *e)
{
	int ret;

	if (!h->web || !web_config__changed(h->web))
		return 0;
	if (!debug_pprof__hold(h->dp))
		return 0; /* a profile's connection is suspended on the old server: after it */
	ret = reload(h, e);
	debug_pprof__release(h->dp);
	return ret;
}

/* http__reload(), no profile being collected */
static int reload(struct http *h, struct err *e)
{
	struct web_config *fresh, was;
	struct MHD_Daemon *old = h->d;
	int ret;

	if (!(fresh = malloc(sizeof(*fresh))))
		return err_set(e, -ENOMEM, "out of memory");
	if ((ret = web_config__load(fresh, h->web->path, e))) {
		struct stat st;

		free(fresh);
		if (!stat(h->web->path, &st)) { /* said once: not again until it changes */
			h->web->mtime = st.st_mtim;
			h->web->size = st.st_size;
		}
		return ret;
	}
	h->fd = MHD_quiesce_daemon(old); /* the socket, ours until a new server takes it */
	if (h->fd == MHD_INVALID_SOCKET) {
		h->fd = -1;
		web_config__free(fresh);
		free(fresh);
		return err_set(e, -EIO, "%s: the server could not hand its socket over",
			       h->web->path);
	}
	was = swap_web(h, fresh); /* the new server reads the new certificate */
	free(fresh);
	ret = http_daemon(h, MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ITC | MHD_ALLOW_SUSPEND_RESUME);
	if (ret) { /* the old configuration on the same socket, then */
		struct web_config bad = swap_web(h, &was);

		web_config__free(&bad);
		if (http_daemon(h, MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ITC |
					   MHD_ALLOW_SUSPEND_RESUME)) {
			h->d = old; /* serves its open connections; none is accepted */
			return err_set(e, -EIO,
				       "%s: no server could start, with it or with the old one",
				       h->web->path);
		}
		MHD_stop_daemon(old);
		return err_set(e, -EIO, "%s: no server could start with it", h->web->path);
	}
	MHD_stop_daemon(old);
	web_config__free(&was); /* no server reads it now */
	return 1;
}

void http__stop(struct http *h)
{
	if (!h)
		return;
	if (h->watching) {
		pthread_mutex_lock(&h->lock);
		h->stopping = true;
		pthread_cond_signal(&h->wake);
		pthread_mutex_unlock(&h->lock);
		pthread_join(h->watchdog, NULL);
	}
	debug_pprof__stop(h->dp); /* no connection suspended: libmicrohttpd requires it */
	if (h->d)
		MHD_stop_daemon(h->d);
	if (h->fd >= 0)
		close(h->fd);
	if (h->cur)
		snapshot_put(h, h->cur);
	pthread_mutex_destroy(&h->lock);
	pthread_mutex_destroy(&h->web_lock);
	pthread_cond_destroy(&h->wake);
	free(h);
}
