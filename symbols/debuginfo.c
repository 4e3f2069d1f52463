/*
 * symbols/debuginfo.c - finding a binary's separate debug file (see symbols/debuginfo.h).
 *
 * HOW IT WORKS: the places gdb, perf and elfutils look, in this order:
 * (1) /usr/lib/debug/.build-id/xx/rest.debug, xx the first byte of the GNU build-id in hex
 *     (where Debian's -dbgsym packages install them);
 * (2) the name in .gnu_debuglink, in the binary's directory DIR, then DIR/.debug/, then
 *     /usr/lib/debug/DIR/ (DIR as the process sees it: without a /proc/PID/root prefix);
 * (3) the debuginfod client's cache, BUILDID/debuginfo under $DEBUGINFOD_CACHE_PATH, else
 *     $XDG_CACHE_HOME/debuginfod_client, else $HOME/.cache/debuginfod_client: files that
 *     debuginfod-find or gdb already fetched. perf-sql never downloads.
 * A candidate must be another file than the binary, and match it: the same build-id when the
 * binary has one, else the CRC32 of the whole file that .gnu_debuglink records.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <elfutils/libdwelf.h>
#include "symbols/debuginfo.h"
#include "symbols/dso.h"

#define MAX_ID 64

struct want {
	const uint8_t *id; /* the binary's build-id (NULL: none) */
	size_t id_len;
	bool has_crc;
	unsigned int crc; /* .gnu_debuglink's */
	dev_t dev;        /* the binary itself, never its own debug file */
	ino_t ino;
};

static unsigned int crc_table[256];

static void crc_table_init(void)
{
	for (unsigned int i = 0; i < 256; i++) {
		unsigned int c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

/* threads symbolize at once (perf-sql serve's /debug/pprof/ collections): the table is
 * made once, and each reader has its own buffer */
unsigned int debuginfo__crc32(unsigned int crc, const void *buf, size_t len)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	const unsigned int *table = crc_table;
	const uint8_t *p = buf;

	pthread_once(&once, crc_table_init);
	crc = ~crc;
	while (len--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

static bool crc_matches(int fd, unsigned int want)
{
	enum { CRC_BUF = 1 << 16 };
	uint8_t *buf = malloc(CRC_BUF);
	unsigned int crc = 0;
	ssize_t n = -1;

	while (buf && (n = read(fd, buf, CRC_BUF)) > 0)
		crc = debuginfo__crc32(crc, buf, (size_t)n);
	free(buf);
	return n == 0 && crc == want;
}

static bool matches(const char *path, const struct want *w)
{
	int fd = dso__open_file(path);
	bool ok = false;
	struct stat st;

	if (fd < 0)
		return false;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (st.st_dev == w->dev && st.st_ino == w->ino))
		goto out;
	if (w->id) {
		Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		const void *id = NULL;
		ssize_t n = elf ? dwelf_elf_gnu_build_id(elf, &id) : -1;

		ok = n == (ssize_t)w->id_len && !memcmp(id, w->id, w->id_len);
		if (elf)
			elf_end(elf);
	} else {
		ok = w->has_crc && crc_matches(fd, w->crc);
	}
out:
	close(fd);
	return ok;
}

static int found(const char *cand, const struct want *w, char *out, size_t len)
{
	if (!matches(cand, w))
		return -ENOENT;
	snprintf(out, len, "%s", cand);
	return 0;
}

static void hex(const uint8_t *id, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
}

static int by_build_id(const struct want *w, char *out, size_t len)
{
	char h[2 * MAX_ID + 1], cand[4096], *dir = getenv("DEBUGINFOD_CACHE_PATH");
	const char *base = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (!w->id)
		return -ENOENT;
	hex(w->id, w->id_len, h);
	snprintf(cand, sizeof(cand), "/usr/lib/debug/.build-id/%.2s/%s.debug", h, h + 2);
	if (!found(cand, w, out, len))
		return 0;
	if (dir && *dir)
		snprintf(cand, sizeof(cand), "%s/%s/debuginfo", dir, h);
	else if (base && *base)
		snprintf(cand, sizeof(cand), "%s/debuginfod_client/%s/debuginfo", base, h);
	else if (home && *home)
		snprintf(cand, sizeof(cand), "%s/.cache/debuginfod_client/%s/debuginfo", home, h);
	else
		return -ENOENT;
	return found(cand, w, out, len);
}

static int by_debuglink(const char *path, const char *name, const struct want *w, char *out,
			size_t len)
{
	const char *slash = strrchr(path, '/'), *logical = path, *root;
	char cand[4096];
	int dir_len = slash ? (int)(slash - path) : 0;

	if (!strncmp(path, "/proc/", 6) && (root = strstr(path, "/root/")))
		logical = root + 5; /* /proc/PID/root/usr/bin/x -> /usr/bin/x */
	slash = strrchr(logical, '/');
	snprintf(cand, sizeof(cand), "%.*s/%s", dir_len, path, name);
	if (!found(cand, w, out, len))
		return 0;
	snprintf(cand, sizeof(cand), "%.*s/.debug/%s", dir_len, path, name);
	if (!found(cand, w, out, len))
		return 0;
	snprintf(cand, sizeof(cand), "/usr/lib/debug%.*s/%s", slash ? (int)(slash - logical) : 0,
		 logical, name);
	return found(cand, w, out, len);
}

int debuginfo__find(Elf *elf, const char *path, char *out, size_t len)
{
	struct want w = { 0 };
	const char *link;
	GElf_Word crc = 0;
	const void *id = NULL;
	ssize_t n = dwelf_elf_gnu_build_id(elf, &id);
	struct stat st;

	if (stat(path, &st))
		return -ENOENT;
	w.dev = st.st_dev;
	w.ino = st.st_ino;
	if (n > 1 && n <= MAX_ID) {
		w.id = id;
		w.id_len = (size_t)n;
	}
	link = dwelf_elf_gnu_debuglink(elf, &crc);
	w.has_crc = link != NULL;
	w.crc = crc;
	if (!by_build_id(&w, out, len))
		return 0;
	if (link && *link && !strchr(link, '/') && !by_debuglink(path, link, &w, out, len))
		return 0;
	return -ENOENT;
}
