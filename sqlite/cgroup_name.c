/*
 * cgroup_name(PATH) - scalar: what people call the service or container a cgroup v2 path is
 * (the path as /proc/PID/cgroup's "0::" line, or a _cgroup column, gives it).
 *
 *   SELECT cgroup_name('/system.slice/nginx.service')                        -- nginx.service
 *   SELECT cgroup_name('/system.slice/docker-0f1e2d3c4b5a...64 hex.scope')     -- 0f1e2d3c4b5a
 *   SELECT cgroup_name('/kubepods.slice/kubepods-burstable.slice/
 *                       kubepods-burstable-pod1b2c_33d4.slice')               -- pod 1b2c-33d4
 *
 * (1) A container, from its last element: docker-ID.scope, cri-containerd-ID.scope,
 *     crio-ID.scope, libpod-ID.scope (podman) under systemd, or a bare 64-hex ID under
 *     cgroupfs (docker/ID, kubepods/burstable/podUID/ID): the first 12 hex digits, as
 *     `docker ps` and `crictl ps` show an ID.
 * (2) A Kubernetes pod, when the last element is one: kubepods-...-podUID.slice (systemd,
 *     '_' in the UID for '-') or podUID (cgroupfs): "pod UID", with '-' as the API has it.
 * (3) Otherwise the last element: a systemd unit (nginx.service, session-3.scope,
 *     user@1000.service), a slice, or a cgroup's own name; "/" for the root.
 * (4) NULL gives NULL; a value that is not text is taken as text.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sqlite3.h>

#include "sqlite/functions.h"

static bool all_hex(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* (1): a container's ID in element e (n bytes), or NULL */
static const char *container_id(const char *e, size_t n)
{
	static const char *const prefixes[] = { "docker-", "cri-containerd-", "crio-", "libpod-" };

	if (n == 64 && all_hex(e, 64))
		return e;
	if (n < 6 + 64 || strncmp(e + n - 6, ".scope", 6))
		return NULL;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t p = strlen(prefixes[i]);

		if (n == p + 64 + 6 && !strncmp(e, prefixes[i], p) && all_hex(e + p, 64))
			return e + p;
	}
	return NULL;
}

/* (2): a pod's UID in element e, written to out with '-'; false if e is not a pod's */
static bool pod_uid(const char *e, size_t n, char *out, size_t len)
{
	const char *pod = NULL;
	size_t m = 0;

	if (n > 3 && !strncmp(e, "pod", 3)) { /* cgroupfs: podUID */
		pod = e + 3;
		m = n - 3;
	} else if (n > 6 && !strncmp(e, "kubepods", 8) && !strncmp(e + n - 6, ".slice", 6)) {
		const char *p = NULL;

		for (const char *q = e; q + 4 <= e + n; q++)
			if (!strncmp(q, "-pod", 4))
				p = q;
		if (p) {
			pod = p + 4;
			m = (size_t)(e + n - 6 - pod);
		}
	}
	if (!pod || !m || m + 5 > len)
		return false;
	memcpy(out, "pod ", 4);
	for (size_t i = 0; i < m; i++) {
		char c = pod[i] == '_' ? '-' : pod[i];

		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || c == '-'))
			return false;
		out[4 + i] = c;
	}
	out[4 + m] = '\0';
	return true;
}

void cgroup_name_func(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *path = (const char *)sqlite3_value_text(argv[0]), *e, *id;
	size_t n;
	char pod[96];

	if (!path)
		return;
	n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	e = path + n;
	while (e > path && e[-1] != '/')
		e--;
	n = (size_t)(path + n - e);
	if (!n) {
		sqlite3_result_text(ctx, "/", 1, SQLITE_STATIC);
	} else if ((id = container_id(e, n))) {
		sqlite3_result_text(ctx, id, 12, SQLITE_TRANSIENT);
	} else if (pod_uid(e, n, pod, sizeof(pod))) {
		sqlite3_result_text(ctx, pod, -1, SQLITE_TRANSIENT);
	} else {
		sqlite3_result_text(ctx, e, (int)n, SQLITE_TRANSIENT);
	}
}
