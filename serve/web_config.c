/*
 * serve/web_config.c - --web.config.file: the exporter-toolkit YAML read with libyaml, passwords
 * checked with libcrypt (see serve/web_config.h).
 */
#include <crypt.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <yaml.h>
#include "serve/web_config.h"

#define MAX_PEM (1 << 20)

/* a scalar node's text, or NULL */
static const char *scalar(yaml_document_t *d, int id)
{
	yaml_node_t *n = yaml_document_get_node(d, id);

	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* FILE's text, relative to the config's directory, into *out (1) */
static int read_pem(const struct web_config *c, const char *key, const char *name, char **out,
		    struct err *e)
{
	char path[4096];
	const char *slash = strrchr(c->path, '/');
	FILE *f;
	long n;

	free(*out); /* a key given twice: the last one counts */
	*out = NULL;
	if (name[0] == '/' || !slash)
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - c->path), c->path, name);
	if (!(f = fopen(path, "re")))
		return err_set(e, -errno, "%s: %s: %s: %s", c->path, key, path, strerror(errno));
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || n > MAX_PEM || fseek(f, 0, SEEK_SET) ||
	    !(*out = calloc(1, (size_t)n + 1)) || fread(*out, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		return err_set(e, -EINVAL, "%s: %s: %s: not a readable PEM file of at most 1 MiB",
			       c->path, key, path);
	}
	fclose(f);
	if (!strstr(*out, "-----BEGIN "))
		return err_set(e, -EINVAL, "%s: %s: %s: no PEM block in it", c->path, key, path);
	return 0;
}

static int client_auth_of(const char *v, enum client_auth *out)
{
	static const char *const names[] = { "NoClientCert", "RequestClientCert",
					     "RequireAnyClientCert", "VerifyClientCertIfGiven",
					     "RequireAndVerifyClientCert" };

	for (int i = 0; i < 5; i++)
		if (!strcmp(v, names[i])) {
			*out = (enum client_auth)i;
			return 0;
		}
	return -EINVAL;
}

/* the certificate and key as GnuTLS will take them: a bad pair is the file's fault (1) */
static int check_pair(const struct web_config *c, struct err *e)
{
	gnutls_certificate_credentials_t cred;
	gnutls_datum_t cert = { (unsigned char *)c->cert, (unsigned)strlen(c->cert) };
	gnutls_datum_t key = { (unsigned char *)c->key, (unsigned)strlen(c->key) };
	int rc;

	if (gnutls_certificate_allocate_credentials(&cred))
		return err_set(e, -ENOMEM, "out of memory");
	rc = gnutls_certificate_set_x509_key_mem(cred, &cert, &key, GNUTLS_X509_FMT_PEM);
	gnutls_certificate_free_credentials(cred);
	if (rc < 0)
		return err_set(e, -EINVAL, "%s: tls_server_config: cert_file and key_file: %s",
			       c->path, gnutls_strerror(rc));
	return 0;
}

/* tls_server_config's pairs */
static int tls_pairs(struct web_config *c, yaml_document_t *d, yaml_node_t *map, struct err *e)
{
	const char *ca = NULL;
	int ret = 0;

	for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top && !ret; p++) {
		const char *k = scalar(d, p->key), *v = scalar(d, p->value);

		if (!k || !v)
			ret = err_set(e, -EINVAL,
				      "%s: tls_server_config: expected KEY: VALUE pairs", c->path);
		else if (!strcmp(k, "cert_file"))
			ret = read_pem(c, "tls_server_config.cert_file", v, &c->cert, e);
		else if (!strcmp(k, "key_file"))
			ret = read_pem(c, "tls_server_config.key_file", v, &c->key, e);
		else if (!strcmp(k, "client_ca_file"))
			ca = v;
		else if (!strcmp(k, "client_auth_type") && client_auth_of(v, &c->client_auth))
			ret = err_set(e, -EINVAL,
				      "%s: tls_server_config.client_auth_type '%s': expected "
				      "NoClientCert, RequestClientCert, RequireAnyClientCert, "
				      "VerifyClientCertIfGiven or RequireAndVerifyClientCert",
				      c->path, v);
		else if (!strcmp(k, "min_version") &&
			 (strncmp(v, "TLS1", 4) || v[4] < '0' || v[4] > '3' || v[5]))
			ret = err_set(
				e, -EINVAL,
				"%s: tls_server_config.min_version '%s': expected TLS10, TLS11, "
				"TLS12 or TLS13",
				c->path, v);
		else if (!strcmp(k, "min_version"))
			c->min_version = 10 + (v[4] - '0');
		else if (strcmp(k, "client_auth_type"))
			ret = err_set(
				e, -EINVAL,
				"%s: tls_server_config.%s: not a key perf-sql reads (cert_file, "
				"key_file, client_auth_type, client_ca_file, min_version)",
				c->path, k);
	}
	if (!ret && ca)
		ret = read_pem(c, "tls_server_config.client_ca_file", ca, &c->ca, e);
	if (!ret && (!c->cert || !c->key))
		ret = err_set(e, -EINVAL,
			      "%s: tls_server_config: needs both cert_file and key_file", c->path);
	if (!ret)
		ret = check_pair(c, e);
	if (!ret && c->client_auth != CLIENT_NONE && !c->ca) /* GnuTLS asks for a certificate
								     * only with CAs to name */
		ret = err_set(
			e, -EINVAL,
			"%s: tls_server_config.client_auth_type asks for client certificates: "
			"give client_ca_file",
			c->path);
	c->tls = !ret;
	return ret;
}

/* basic_auth_users' pairs: NAME: BCRYPT */
static int user_pairs(struct web_config *c, yaml_document_t *d, yaml_node_t *map, struct err *e)
{
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		const char *k = scalar(d, p->key), *v = scalar(d, p->value);
		struct web_user *u = &c->users[c->nr_users];

		if (!k || !v || strlen(k) >= sizeof(u->name) || strlen(v) >= sizeof(u->hash) ||
		    strchr(k, ':'))
			return err_set(e, -EINVAL,
				       "%s: basic_auth_users: expected NAME: BCRYPT-HASH pairs "
				       "(a name without ':')",
				       c->path);
		if (strncmp(v, "$2a$", 4) && strncmp(v, "$2b$", 4) && strncmp(v, "$2y$", 4))
			return err_set(e, -EINVAL,
				       "%s: basic_auth_users.%s: not a bcrypt hash ($2y$...); make "
				       "one with: htpasswd -nBC 10 %s",
				       c->path, k, k);
		if (c->nr_users == WEB_MAX_USERS)
			return err_set(e, -E2BIG, "%s: basic_auth_users: at most %d users", c->path,
				       WEB_MAX_USERS);
		snprintf(u->name, sizeof(u->name), "%s", k);
		snprintf(u->hash, sizeof(u->hash), "%s", v);
		c->nr_users++;
	}
	return 0;
}

static int top_pairs(struct web_config *c, yaml_document_t *d, struct err *e)
{
	yaml_node_t *root = yaml_document_get_root_node(d);
	int ret = 0;

	if (!root || (root->type == YAML_SCALAR_NODE && !root->data.scalar.length))
		return 0; /* an empty file (1) */
	if (root->type != YAML_MAPPING_NODE)
		return err_set(e, -EINVAL,
			       "%s: expected a mapping of tls_server_config and "
			       "basic_auth_users",
			       c->path);
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start;
	     p < root->data.mapping.pairs.top && !ret; p++) {
		const char *k = scalar(d, p->key);
		yaml_node_t *v = yaml_document_get_node(d, p->value);
		bool empty = v && v->type == YAML_SCALAR_NODE && !v->data.scalar.length;

		if (k && strcmp(k, "tls_server_config") && strcmp(k, "basic_auth_users"))
			ret = err_set(e, -EINVAL,
				      "%s: %s: not a key perf-sql reads (tls_server_config, "
				      "basic_auth_users)",
				      c->path, k);
		else if (!k || !v || (!empty && v->type != YAML_MAPPING_NODE))
			ret = err_set(e, -EINVAL, "%s: %s: expected a mapping", c->path,
				      k ? k : "a key");
		else if (empty)
			continue;
		else if (!strcmp(k, "tls_server_config"))
			ret = tls_pairs(c, d, v, e);
		else
			ret = user_pairs(c, d, v, e);
	}
	return ret;
}

int web_config__load(struct web_config *c, const char *path, struct err *e)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	struct stat st;
	FILE *f;
	int ret;

	memset(c, 0, sizeof(*c));
	c->min_version = 12;
	snprintf(c->path, sizeof(c->path), "%s", path);
	if (!(f = fopen(path, "re")) || fstat(fileno(f), &st)) {
		ret = err_set(e, -errno, "--web.config.file %s: %s", path, strerror(errno));
		if (f)
			fclose(f);
		return ret;
	}
	c->mtime = st.st_mtim;
	c->size = st.st_size;
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_file(&parser, f);
	if (!yaml_parser_load(&parser, &doc)) {
		ret = err_set(e, -EINVAL, "%s: line %zu: %s", path, parser.problem_mark.line + 1,
			      parser.problem ? parser.problem : "not YAML");
	} else {
		ret = top_pairs(c, &doc, e);
		yaml_document_delete(&doc);
	}
	yaml_parser_delete(&parser);
	fclose(f);
	if (!ret && getrandom(c->cache_key, sizeof(c->cache_key), 0) != sizeof(c->cache_key))
		ret = err_set(e, -EIO, "getrandom: %s", strerror(errno));
	if (ret)
		web_config__free(c);
	return ret;
}

void web_config__free(struct web_config *c)
{
	free(c->cert);
	free(c->key);
	free(c->ca);
	c->cert = c->key = c->ca = NULL;
	c->tls = false;
}

bool web_config__changed(const struct web_config *c)
{
	struct stat st;

	if (!c->path[0] || stat(c->path, &st))
		return false; /* gone for now: keep what was read */
	return st.st_mtim.tv_sec != c->mtime.tv_sec || st.st_mtim.tv_nsec != c->mtime.tv_nsec ||
	       st.st_size != c->size;
}

/* constant time: every byte compared */
static bool same(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;
	unsigned char d = 0;

	for (size_t i = 0; i < n; i++)
		d |= x[i] ^ y[i];
	return d == 0;
}

bool web_config__allows(struct web_config *c, const char *user, const char *password)
{
	/* an unknown user is checked against this, so it costs what a known one does (2) */
	static const char decoy[] = "$2b$10$UBsfHAIaZ9NrnQQ7uaGAV..rF1ZLB3/v0wmKdUpXu8a7iRxq3Mtsa";
	struct crypt_data *cd;
	const char *hash = decoy, *h;
	uint8_t mac[32];
	char *text;
	bool ok = false;

	if (!c->nr_users)
		return true;
	if (!user || !password)
		return false;
	for (int i = 0; i < c->nr_users; i++)
		if (!strcmp(c->users[i].name, user))
			hash = c->users[i].hash;
	if (asprintf(&text, "%s:%s", user, password) < 0)
		return false;
	if (gnutls_hmac_fast(GNUTLS_MAC_SHA256, c->cache_key, sizeof(c->cache_key), text,
			     strlen(text), mac))
		memset(mac, 0, sizeof(mac));
	free(text);
	for (int i = 0; i < c->nr_cache; i++)
		ok |= same(c->cache[i], mac, sizeof(mac));
	if (ok)
		return true;
	if (!(cd = calloc(1, sizeof(*cd))))
		return false;
	h = crypt_r(password, hash, cd);
	ok = h && hash != decoy && strlen(h) == strlen(hash) && same(h, hash, strlen(hash));
	free(cd);
	if (ok) {
		memcpy(c->cache[c->next_cache], mac, sizeof(mac));
		c->next_cache = (c->next_cache + 1) % WEB_CACHE;
		c->nr_cache += c->nr_cache < WEB_CACHE;
	}
	return ok;
}

const char *web_config__priorities(const struct web_config *c)
{
	static const char *const p[] = {
		"NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:+VERS-TLS1.1:+VERS-TLS1.0",
		"NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:+VERS-TLS1.1",
		"NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2",
		"NORMAL:-VERS-ALL:+VERS-TLS1.3",
	};

	return p[c->min_version - 10];
}
