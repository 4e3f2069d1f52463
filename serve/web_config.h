/*
 * serve/web_config.h - perf-sql serve --web.config.file FILE: TLS and basic authentication in
 * the exporter-toolkit's YAML format, which Prometheus, node_exporter and ebpf_exporter read
 * (docs/prometheus.md#tls-and-authentication):
 *
 *   tls_server_config:
 *     cert_file: server.crt            # PEM; paths relative to FILE's directory
 *     key_file: server.key
 *     client_auth_type: RequireAndVerifyClientCert   # or NoClientCert (the default),
 *                                      # RequestClientCert, RequireAnyClientCert,
 *                                      # VerifyClientCertIfGiven
 *     client_ca_file: ca.crt           # the CAs a client certificate is verified against
 *     min_version: TLS12               # TLS10 .. TLS13 (default TLS12)
 *   basic_auth_users:
 *     alice: $2y$10$...                # bcrypt hashes (htpasswd -nBC 10 alice)
 *
 * (1) A key perf-sql does not know, a value it cannot use, a file it cannot read: the file is
 *     refused with one line naming the key (web_config__load()). An empty file, or one that
 *     sets neither, serves plain HTTP without authentication, as exporter-toolkit does.
 * (2) A password is checked with crypt_r() (libcrypt: bcrypt $2a$, $2b$, $2y$) and the result
 *     compared in constant time; a user:password pair that passed is remembered (a keyed hash
 *     of it, never the password) so a scrape every few seconds does not pay bcrypt's 50 ms
 *     each time. An unknown user costs the same bcrypt as a known one.
 * (3) The file is read again when its modification time or size changes (a certificate
 *     rotated): serve/serve_http.c restarts its server on the same socket with the new one; a
 *     file that no longer loads keeps the old one, said once.
 */
#ifndef PERF_SQL_WEB_CONFIG_H
#define PERF_SQL_WEB_CONFIG_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "core/err.h"

enum client_auth {
	CLIENT_NONE,            /* NoClientCert */
	CLIENT_REQUEST,         /* RequestClientCert: asked for, not checked */
	CLIENT_REQUIRE_ANY,     /* RequireAnyClientCert: one needed, not verified */
	CLIENT_VERIFY_IF_GIVEN, /* VerifyClientCertIfGiven */
	CLIENT_REQUIRE_VERIFY,  /* RequireAndVerifyClientCert */
};

#define WEB_MAX_USERS 64
#define WEB_CACHE 16

struct web_user {
	char name[64];
	char hash[128]; /* bcrypt */
};

struct web_config {
	char path[4096];
	struct timespec mtime; /* of the file when read (3) */
	off_t size;
	bool tls;
	char *cert, *key, *ca; /* PEM text, NUL-terminated (malloc) */
	enum client_auth client_auth;
	int min_version; /* 10 .. 13 */
	struct web_user users[WEB_MAX_USERS];
	int nr_users;
	/* (2) pairs that passed: a keyed hash of user, ':' and password */
	uint8_t cache_key[32];
	uint8_t cache[WEB_CACHE][32];
	int nr_cache, next_cache;
};

/* Reads path into c (which it clears); 0, or -errno with e naming the key or file (1). */
int web_config__load(struct web_config *c, const char *path, struct err *e);
void web_config__free(struct web_config *c);
/* Has the file changed since it was read (3)? */
bool web_config__changed(const struct web_config *c);
/* May user with password in (2)? Without basic_auth_users, anyone may. */
bool web_config__allows(struct web_config *c, const char *user, const char *password);
/* "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2" for min_version: GnuTLS's priorities */
const char *web_config__priorities(const struct web_config *c);
#endif
