/*
 * tests/fuzz/fuzz_http.c - the HTTP request path of perf-sql serve (serve/serve_http.c): the
 * input is the bytes a client sends, whole, through a socketpair to the server as serve runs
 * it (libmicrohttpd's parsing, then on_request(): method, URL, Accept header, the snapshot's
 * references), with no listening socket and no thread (serve_http.c (6)).
 * (1) No crash, no leak, whatever the bytes: the snapshot a reply was made from is freed once
 *     (ASan), and every connection is closed by the server once the client has sent all.
 * (2) Whatever the server answers is an HTTP/1.x status line first.
 * (3) A reply of status 200 to a GET of /metrics carries one of the two renderings published.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>
#include "serve/serve.h"
#include "fuzz.h"

#define HTTP_TEXT "# TYPE perf_sql_x gauge\nperf_sql_x 1\n"
#define HTTP_OM "# TYPE perf_sql_x gauge\nperf_sql_x 1\n# EOF\n"

static struct http *http_server(void)
{
	static struct http *h;
	struct mbuf text = { 0 }, om = { 0 };
	struct err e = { 0 };

	if (h)
		return h;
	h = http__start_unlistened(&e);
	FUZZ_ASSERT(h != NULL);
	mbuf__put(&text, HTTP_TEXT, strlen(HTTP_TEXT));
	mbuf__put(&om, HTTP_OM, strlen(HTTP_OM));
	http__publish(h, &text, &om);
	return h;
}

/* (3): the body after the headers is one of the renderings */
static void check_metrics_reply(const char *reply, size_t n)
{
	const char *body = memmem(reply, n, "\r\n\r\n", 4);
	size_t len;

	FUZZ_ASSERT(body != NULL);
	body += 4;
	len = n - (size_t)(body - reply);
	FUZZ_ASSERT((len >= strlen(HTTP_TEXT) && !memcmp(body, HTTP_TEXT, strlen(HTTP_TEXT))) ||
		    (len >= strlen(HTTP_OM) && !memcmp(body, HTTP_OM, strlen(HTTP_OM))));
}

int FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	struct http *h = http_server();
	static char reply[1 << 16];
	size_t got = 0, sent = 0;
	int sv[2], open_conns = 1;

	FUZZ_ASSERT(!socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv));
	FUZZ_ASSERT(!http__add_connection(h, sv[1]));
	/* send all, serving as it goes (a request larger than the socket's buffer) */
	for (int i = 0; i < 100000 && (sent < size || open_conns); i++) {
		ssize_t n;

		if (sent < size && (n = write(sv[0], data + sent, size - sent)) > 0)
			sent += (size_t)n;
		if (sent == size)
			shutdown(sv[0], SHUT_WR); /* (1): all sent, the server sees the end */
		open_conns = http__run(h);
		while (got < sizeof(reply) &&
		       (n = read(sv[0], reply + got, sizeof(reply) - got)) > 0)
			got += (size_t)n;
		if (got == sizeof(reply)) /* a reply past 64 KiB: read on, keep the start */
			while (read(sv[0], (char[4096]){ 0 }, 4096) > 0)
				;
	}
	FUZZ_ASSERT(!open_conns); /* (1) */
	close(sv[0]);
	if (got) /* (2) */
		FUZZ_ASSERT(got >= 9 && !memcmp(reply, "HTTP/1.", 7));
	if (size >= 23 && !memcmp(data, "GET /metrics HTTP/1.1\r\n", 23) && got > 13 &&
	    !memcmp(reply + 8, " 200 ", 5) && memmem(data, size, "\r\n\r\n", 4))
		check_metrics_reply(reply, got < sizeof(reply) ? got : sizeof(reply));
	return 0;
}
