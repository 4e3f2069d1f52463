/*
 * serve/http_conn.c - perf-sql serve's connections (serve/serve_http.c (3)): the listening
 * socket, and each connection's request clock, which a watchdog thread reads to end the
 * connections whose request is not whole within --request-deadline.
 *
 * HOW IT WORKS: libmicrohttpd tells of each connection's start and end
 * (http_conn__notify()); a clock per connection is linked in h->conns under h->lock, running
 * from the connection's start. The request handler stops it once a request is whole (it is
 * being answered: a profile's collection of /debug/pprof/ may take its N seconds), and the
 * request's end restarts it for the next request of the connection. Every tenth of the
 * deadline, the watchdog shuts down the socket of each connection whose clock ran past it;
 * libmicrohttpd's thread then sees the socket end and closes the connection (the clock is
 * unlinked before libmicrohttpd closes the fd: the watchdog never shuts down a reused fd).
 * So a client trickling a header byte at a time holds its slot for the deadline, not for good
 * (the idle timeout alone restarts on every byte).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "serve/http_int.h"

uint64_t http_conn__now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct conn_clock *clock_of(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *i =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return i ? i->socket_context : NULL;
}

/* (3) a request clock starts (at the connection's start, after a response) or stops */
void http_conn__clock(struct http *h, struct MHD_Connection *conn, uint64_t since)
{
	struct conn_clock *c = clock_of(conn);

	pthread_mutex_lock(&h->lock);
	if (c)
		c->since = since;
	pthread_mutex_unlock(&h->lock);
}

void http_conn__notify(void *cls, struct MHD_Connection *conn, void **socket_context,
		       enum MHD_ConnectionNotificationCode toe)
{
	struct http *h = cls;
	struct conn_clock *c = *socket_context;
	const union MHD_ConnectionInfo *i;

	pthread_mutex_lock(&h->lock);
	if (toe == MHD_CONNECTION_NOTIFY_STARTED &&
	    (i = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD)) &&
	    (c = calloc(1, sizeof(*c)))) {
		c->fd = i->connect_fd;
		c->since = http_conn__now();
		c->next = h->conns;
		c->pprev = &h->conns;
		if (h->conns)
			h->conns->pprev = &c->next;
		h->conns = c;
		*socket_context = c;
	} else if (toe == MHD_CONNECTION_NOTIFY_CLOSED && c) { /* before libmicrohttpd closes
								 * the fd: never shut down after */
		*c->pprev = c->next;
		if (c->next)
			c->next->pprev = c->pprev;
		free(c);
		*socket_context = NULL;
	}
	pthread_mutex_unlock(&h->lock);
}

/* (3) the watchdog: every tenth of the deadline, connections past it are shut down (the
 * server thread then sees the socket end and closes it) */
void *http_conn__watch(void *arg)
{
	struct http *h = arg;
	uint64_t deadline = (uint64_t)h->lim.deadline_ms * 1000000ull;

	pthread_mutex_lock(&h->lock);
	while (!h->stopping) {
		struct timespec until;
		uint64_t now = http_conn__now(), t;

		for (struct conn_clock *c = h->conns; c; c = c->next)
			if (c->since && now - c->since > deadline) {
				shutdown(c->fd, SHUT_RDWR);
				c->since = 0;
			}
		clock_gettime(CLOCK_MONOTONIC, &until);
		t = (uint64_t)until.tv_nsec + deadline / 10;
		until.tv_sec += (time_t)(t / 1000000000ull);
		until.tv_nsec = (long)(t % 1000000000ull);
		pthread_cond_timedwait(&h->wake, &h->lock, &until);
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

/* ADDR:PORT or [ADDR]:PORT, numeric only, bound and listening; the fd or -errno */
int http_conn__listen(const char *spec, char *bound, size_t len, struct err *e)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE },
			*ai = NULL;
	const char *colon = strrchr(spec, ':'), *given = spec;
	char host[INET6_ADDRSTRLEN + 2], port[8];
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	size_t hl;
	int fd, one = 1, rc;

	if (!colon || colon == spec || strlen(colon + 1) == 0 || strlen(colon + 1) > 5 ||
	    strspn(colon + 1, "0123456789") != strlen(colon + 1) || atoi(colon + 1) > 65535)
		goto bad;
	hl = (size_t)(colon - spec);
	if (spec[0] == '[' && spec[hl - 1] == ']')
		spec++, hl -= 2;
	if (hl >= sizeof(host))
		goto bad;
	memcpy(host, spec, hl);
	host[hl] = '\0';
	snprintf(port, sizeof(port), "%s", colon + 1);
	if ((rc = getaddrinfo(host, port, &hints, &ai)))
		goto bad;
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 128) ||
	    getsockname(fd, (struct sockaddr *)&ss, &sl)) {
		rc = -errno;
		if (fd >= 0)
			close(fd);
		freeaddrinfo(ai);
		err_set(e, rc, "--listen %s: %s", given, strerror(-rc));
		if (rc == -EADDRINUSE)
			err_hint(e,
				 "another program listens there; pick another port with --listen "
				 "ADDR:PORT");
		return rc;
	}
	freeaddrinfo(ai);
	getnameinfo((struct sockaddr *)&ss, sl, host, sizeof(host), port, sizeof(port),
		    NI_NUMERICHOST | NI_NUMERICSERV);
	snprintf(bound, len, strchr(host, ':') ? "[%s]:%s" : "%s:%s", host, port);
	return fd;
bad:
	err_set(e, -EINVAL,
		"--listen '%s': expected ADDR:PORT, a numeric address and a port "
		"0..65535 (127.0.0.1:9464, 0.0.0.0:9464, [::1]:9464)",
		given);
	return err_usage(e);
}
