/*
 * core/tracefs.c - where tracefs is, and whole-file reads.
 *
 * (1) /sys/kernel/tracing first, then /sys/kernel/debug/tracing (older setups).
 * (2) Neither mounted: as root, mount tracefs at /sys/kernel/tracing; otherwise fail with the
 *     exact command to run.
 * (3) Mounted but unreadable (mode 0700 for non-root): say so, naming the path.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/tracefs.h"

static const char *const tracefs_dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

static bool has_events(const char *dir, int *errno_out)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/events", dir);
	if (access(path, R_OK | X_OK) == 0)
		return true;
	*errno_out = errno;
	return false;
}

int tracefs__find(char *dir_out, size_t len, struct err *e)
{
	int eno = ENOENT, first_eno = 0;

	for (size_t i = 0; i < sizeof(tracefs_dirs) / sizeof(tracefs_dirs[0]); i++) {
		if (has_events(tracefs_dirs[i], &eno)) {
			snprintf(dir_out, len, "%s", tracefs_dirs[i]);
			return 0;
		}
		if (!first_eno)
			first_eno = eno;
	}
	if (first_eno == EACCES || first_eno == EPERM) {
		err_set(e, -EACCES, "tracefs at %s: %s", tracefs_dirs[0], strerror(first_eno));
		return err_hint(e,
				"run as root; or give CAP_PERFMON, set the sysctl "
				"kernel.perf_event_paranoid=-1 and make %s readable "
				"('mount -o remount,mode=755 %s'; it is mode 0700)",
				tracefs_dirs[0], tracefs_dirs[0]);
	}
	if (geteuid() == 0 && mount("nodev", tracefs_dirs[0], "tracefs", 0, NULL) == 0 &&
	    has_events(tracefs_dirs[0], &eno)) {
		snprintf(dir_out, len, "%s", tracefs_dirs[0]);
		return 0;
	}
	err_set(e, -ENOENT, "tracefs is not mounted");
	return err_hint(e, "run: sudo mount -t tracefs nodev %s", tracefs_dirs[0]);
}

int read_file(const char *path, char **buf_out, size_t *len_out)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap), *nbuf;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;
	ssize_t n;

	if (fd < 0 || !buf) {
		ret = fd < 0 ? -errno : -ENOMEM;
		goto out;
	}
	while ((n = read(fd, buf + len, cap - len - 1)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			goto out;
		}
		len += (size_t)n;
		if (cap - len < 2) {
			nbuf = realloc(buf, cap * 2);
			if (!nbuf) {
				ret = -ENOMEM;
				goto out;
			}
			buf = nbuf;
			cap *= 2;
		}
	}
	buf[len] = '\0';
	*buf_out = buf;
	if (len_out)
		*len_out = len;
	buf = NULL;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return ret;
}

int mkdir_p(const char *dir)
{
	char path[4096];

	if (snprintf(path, sizeof(path), "%s", dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	for (char *p = path + 1;; p++) {
		char c = *p;

		if (c && c != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0700) && errno != EEXIST)
			return -errno;
		*p = c;
		if (!c)
			return 0;
	}
}
