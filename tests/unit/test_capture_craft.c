/*
 * tests/unit/test_capture_craft.c - crafted captures (tests/unit/t_capture.h) against replay
 * (core/replay.c, core/capture.c, core/field.c):
 * (1) every field type decodes as written in a good capture;
 * (2) for every field, an offset or size that is negative, wraps in 32 bits, or lies past
 *     64 KiB is refused when the capture is opened, with one line naming the table, the field
 *     and the value; a dynamic field of under 4 bytes too;
 * (3) field decoding itself never reads outside the row, whatever the field says (rows sized
 *     exactly, so ASan sees a byte too far);
 * (4) a cut file reads up to its last whole block and says so; a damaged header or frame with
 *     more after it is an error naming the offset, read a block at a time or ahead;
 * (5) rows past --max-memory are counted lost per window, received + lost = recorded;
 * (6) a MAPS block naming a FIFO does not block the replay;
 * (7) every format of this machine's tracefs passes the strict check a capture's gets (so a
 *     capture recorded here replays), and texts libtraceevent 1.7.1 crashes on do not.
 *
 *   build/tests/test_capture_craft               the checks
 *   build/tests/test_capture_craft --write DIR [WINDOWS ROWS]
 *        writes the captures of (1), (2) and (6) into DIR, with DIR/expected ("FILE<tab>line
 *        after 'FILE: '"), and DIR/many.cap of WINDOWS windows of ROWS rows, DIR/one_window
 *        its size up to the end of its first window (tests/live/capture_crafted.sh)
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/field.h"
#include "core/format_check.h"
#include "core/record.h"
#include "tests/unit/t.h"
#include "tests/unit/t_capture.h"
#include "vtab/tp_table.h"

static char dir[] = "/tmp/perf-sql-craft-XXXXXX";

static const char *at(const char *name)
{
	static char path[4][256];
	static int k;

	k = (k + 1) % 4;
	snprintf(path[k], sizeof(path[k]), "%s/%s", dir, name);
	return path[k];
}

/* the bad values of (2): offset and size texts, and the line each gives after "table T: field F: " */
static const struct bad {
	const char *offset, *size, *why;
} bads[] = {
	{ "4294967040", "264", "offset 4294967040 is out of range" },
	{ "-8", NULL, "offset -8 is out of range" },
	{ "65536", NULL, "offset 65536 is out of range" },
	{ "18446744073709551615", NULL, "offset 18446744073709551615 is out of range" },
	{ "4294967288", NULL, "offset 4294967288 is out of range" },
	{ NULL, "4294967295", "size 4294967295 at offset %d is out of range" },
	{ NULL, "-1", "size -1 at offset %d is out of range" },
	{ NULL, "65537", "size 65537 at offset %d is out of range" },
	{ "65535", "2", "size 2 at offset 65535 is out of range" },
};
#define NR_BADS ((int)(sizeof(bads) / sizeof(bads[0])))

/* the one line (after "PATH: ") that bad case b of field f gives */
static void bad_line(const struct craft_field *f, const struct bad *b, char *buf, size_t len)
{
	char why[128];

	snprintf(why, sizeof(why), b->why, f->offset);
	snprintf(buf, len, "table " CRAFT_TABLE ": field %s: %s %s", f->name, why,
		 !strncmp(b->why, "offset", 6)
			 ? "(0 to 65535: a tracepoint record is at most 64 KiB)"
			 : "(a field ends within 64 KiB, a tracepoint record's most)");
}

struct seen {
	int windows, rows;
	uint64_t received, lost;
	bool values_ok;
};

static bool decodes(const struct tp_event *ev, const struct wrow *r)
{
	static const int64_t ints[] = { 200, -56, 0xfffe, -2, 0xfffffffd, -2, -4, -5 };
	const uint8_t *p;
	size_t len;
	int64_t v;
	bool ok = true;

	for (int i = 0; i < 8; i++)
		ok &= field__int(field__find(ev, craft_fields[i].name), r, &v) && v == ints[i];
	ok &= field__bytes(field__find(ev, "f_str"), r, &p, &len) && len == 7 &&
	      !memcmp(p, "crafted", 7);
	ok &= field__bytes(field__find(ev, "f_arr"), r, &p, &len) && len == 16 && p[12] == 4;
	ok &= field__bytes(field__find(ev, "f_blob"), r, &p, &len) && len == 5 && p[4] == 5;
	ok &= field__bytes(field__find(ev, "f_dstr"), r, &p, &len) && len == 5 &&
	      !memcmp(p, "hello", 5);
	ok &= field__bytes(field__find(ev, "f_dblob"), r, &p, &len) && len == 3 && p[0] == 7;
	ok &= field__bytes(field__find(ev, "f_rstr"), r, &p, &len) && len == 3 &&
	      !memcmp(p, "rel", 3);
	ok &= field__bytes(field__find(ev, "f_pair"), r, &p, &len) && len == 12 && p[11] == 0x66;
	return ok;
}

static int on_window(void *ctx, struct session *s)
{
	struct seen *sn = ctx;
	struct source *src = s->src[0];
	const struct wrow *r;
	struct wscan sc;

	sn->windows++;
	sn->values_ok = true;
	T(wscan__init(&sc, src->win) == 0, "scan");
	while ((r = wscan__next(&sc))) {
		sn->values_ok &= decodes(src->ev, r);
		sn->rows++;
	}
	wscan__done(&sc);
	sn->received += src->received[0];
	sn->lost += src->lost[0];
	return 0;
}

/* replays path: every window's rows and counts into *sn; 0 or -errno (e set) */
static int replay(const char *path, size_t max_memory, long interval, struct seen *sn,
		  struct err *e)
{
	struct session_opts opts = { .max_memory = max_memory, .interval_ms = interval };
	struct session *s = session__new_replay(&opts, path, e);
	int ret;

	memset(sn, 0, sizeof(*sn));
	if (!s)
		return e->code;
	if (!session__source(s, catalog__find(s->cat, CRAFT_TABLE), e) || stack_hooks__install(s)) {
		session__close(s);
		return -EINVAL;
	}
	ret = session__run(s, on_window, sn, e);
	session__close(s);
	return ret;
}

static void test_good(void)
{
	struct err e = { 0 };
	struct seen sn;

	T(!craft_write(at("good.cap"), craft_format(NULL, NULL, NULL),
		       &(struct craft){ .windows = 2 }, &e),
	  "write good.cap: %s", e.msg);
	T(!replay(at("good.cap"), 0, 0, &sn, &e), "replay good.cap: %s", e.msg);
	T(sn.windows == 1 && sn.rows == 8 && sn.received == 8 && sn.lost == 0,
	  "one result of 8 rows: %d windows, %d rows, received %llu", sn.windows, sn.rows,
	  (unsigned long long)sn.received);
	T(sn.values_ok, "every field type decodes as written");
}

static void test_bad_formats(void)
{
	char path[300], want[512], name[64];
	struct err e = { 0 };
	struct seen sn;
	int n = 0;

	for (int i = 0; i < CRAFT_NR_FIELDS; i++)
		for (int k = 0; k < NR_BADS; k++) {
			const struct craft_field *f = &craft_fields[i];

			snprintf(name, sizeof(name), "bad-%s-%d.cap", f->name, k);
			snprintf(path, sizeof(path), "%s", at(name));
			T(!craft_write(path, craft_format(f->name, bads[k].offset, bads[k].size),
				       &(struct craft){ .windows = 1 }, &e),
			  "write %s", name);
			bad_line(f, &bads[k], want, sizeof(want) - 300);
			memmove(want + strlen(path) + 2, want, strlen(want) + 1);
			memcpy(want, path, strlen(path));
			memcpy(want + strlen(path), ": ", 2);
			T(replay(path, 0, 0, &sn, &e) == -EINVAL && !strcmp(e.msg, want),
			  "%s refused:\n  got:  %s\n  want: %s", name, e.msg, want);
			n++;
		}
	for (int i = 11; i < 14; i++) { /* __data_loc, __rel_loc: the u32 whole */
		snprintf(path, sizeof(path), "%s", at("short-loc.cap"));
		T(!craft_write(path, craft_format(craft_fields[i].name, NULL, "2"),
			       &(struct craft){ .windows = 1 }, &e),
		  "write short-loc.cap");
		snprintf(want, sizeof(want),
			 "%s: table " CRAFT_TABLE
			 ": field %s: a __data_loc or __rel_loc field of 2 "
			 "bytes",
			 path, craft_fields[i].name);
		T(replay(path, 0, 0, &sn, &e) == -EINVAL && !strcmp(e.msg, want),
		  "short __data_loc refused:\n  got:  %s\n  want: %s", e.msg, want);
	}
	T(n == CRAFT_NR_FIELDS * NR_BADS, "%d crafted formats", n);
}

/* a row of raw_size bytes of raw record and nothing after it: ASan sees any byte beyond */
static struct wrow *tight_row(uint32_t raw_size)
{
	struct wrow *r = malloc(sizeof(*r) + raw_size);

	memset(r, 0, sizeof(*r) + raw_size);
	r->raw_size = raw_size;
	memset(r->data, 0x41, raw_size);
	return r;
}

static void test_decode_bounds(void)
{
	struct wrow *r = tight_row(20);
	const uint8_t *p;
	size_t len;
	int64_t v;
	struct tp_field f = { .name = "x" };
	uint32_t loc;

	f = (struct tp_field){ .kind = FIELD_STR, .offset = -256, .size = 264 };
	T(!field__bytes(&f, r, &p, &len), "char[]: offset -256 size 264 (wraps to 8 in 32 bits)");
	f = (struct tp_field){ .kind = FIELD_INT, .offset = -8, .size = 8 };
	T(!field__int(&f, r, &v), "integer at offset -8");
	f = (struct tp_field){ .kind = FIELD_INT, .offset = 16, .size = 8 };
	T(!field__int(&f, r, &v), "integer of 8 bytes at 16 of 20");
	f = (struct tp_field){ .kind = FIELD_INT, .offset = 12, .size = 16 };
	T(!field__int(&f, r, &v), "integer of 16 bytes");
	f = (struct tp_field){ .kind = FIELD_BLOB, .offset = 0x7fffffff, .size = 0x7fffffff };
	T(!field__bytes(&f, r, &p, &len), "array at INT_MAX of INT_MAX bytes");
	f = (struct tp_field){ .kind = FIELD_DYN_STR, .offset = 19, .size = 1 };
	T(!field__bytes(&f, r, &p, &len), "__data_loc of 1 byte at the last byte");
	loc = 16u | 8u << 16; /* 8 bytes at 16 of 20 */
	memcpy(r->data, &loc, 4);
	f = (struct tp_field){ .kind = FIELD_DYN_BLOB, .offset = 0, .size = 4 };
	T(!field__bytes(&f, r, &p, &len), "__data_loc past the record");
	loc = 0xffffu | 0xffffu << 16;
	memcpy(r->data, &loc, 4);
	f = (struct tp_field){ .kind = FIELD_DYN_STR, .offset = 0, .size = 4, .is_relative = true };
	T(!field__bytes(&f, r, &p, &len), "__rel_loc past the record");
	f = (struct tp_field){
		.kind = FIELD_DYN_STR, .offset = 0x7ffffffe, .size = 4, .is_relative = true
	};
	T(!field__bytes(&f, r, &p, &len), "__rel_loc whose end overflows an int");
	loc = 4u | 16u << 16; /* 16 bytes at 4: the record's last byte */
	memcpy(r->data, &loc, 4);
	f = (struct tp_field){ .kind = FIELD_DYN_BLOB, .offset = 0, .size = 4 };
	T(field__bytes(&f, r, &p, &len) && len == 16 && p == r->data + 4,
	  "__data_loc ending at the record's last byte");
	free(r);
}

/* the offsets of the blocks of a capture file, from their headers */
static int blocks_of(const char *path, long *offs, int max)
{
	FILE *f = fopen(path, "rb");
	uint32_t hdr[4];
	long off = 16;
	int n = 0;

	while (f && n < max && !fseek(f, off, SEEK_SET) && fread(hdr, 16, 1, f) == 1) {
		offs[n++] = off;
		off += 16 + hdr[2];
	}
	if (f)
		fclose(f);
	return n;
}

static void copy_cut(const char *from, const char *to, long len, const char *patch, long at)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	char buf[1 << 16];
	size_t n = in ? fread(buf, 1, sizeof(buf), in) : 0;

	if (len >= 0 && (size_t)len < n)
		n = (size_t)len;
	if (patch && at >= 0 && (size_t)at + strlen(patch) <= n)
		memcpy(buf + at, patch, strlen(patch));
	if (out)
		fwrite(buf, 1, n, out);
	if (in)
		fclose(in);
	if (out)
		fclose(out);
}

static void test_cut_and_corrupt(void)
{
	char good[300];
	long offs[16], size;
	struct err e = { 0 };
	struct stat st;
	struct seen sn;
	char want[600];
	int n, fd;

	snprintf(good, sizeof(good), "%s", at("cc.cap"));
	T(!craft_write(good, craft_format(NULL, NULL, NULL), &(struct craft){ .windows = 3 }, &e),
	  "write cc.cap");
	n = blocks_of(good, offs, 16);
	stat(good, &st);
	size = st.st_size;
	T(n == 9, "META TABLE 3x(RECORDS WINDOW) COMMS: %d blocks", n);
	/* cut inside the last window's RECORDS: the first two windows */
	copy_cut(good, at("cut.cap"), offs[6] + 30, NULL, -1);
	T(!replay(at("cut.cap"), 0, 1, &sn, &e) && sn.windows == 2 && sn.rows == 8,
	  "cut in window 3: 2 windows of 4 rows: %d, %d (%s)", sn.windows, sn.rows, e.msg);
	/* cut in a header: 8 bytes of the 16 */
	copy_cut(good, at("cut2.cap"), offs[8] + 8, NULL, -1);
	T(!replay(at("cut2.cap"), 0, 1, &sn, &e) && sn.windows == 3, "cut in COMMS' header");
	/* the tail a crash leaves: zeros */
	copy_cut(good, at("zeros.cap"), -1, NULL, -1);
	fd = open(at("zeros.cap"), O_WRONLY);
	T(fd >= 0 && !ftruncate(fd, size + 4096), "4 KiB of zeros after the last block");
	close(fd);
	T(!replay(at("zeros.cap"), 0, 1, &sn, &e) && sn.windows == 3, "zero tail: %s", e.msg);
	/* a header no writer makes, blocks after it */
	copy_cut(good, at("badhdr.cap"), -1, "XXXX", offs[4]);
	snprintf(want, sizeof(want),
		 "%s: corrupt block header at offset %ld (no block starts there): the capture is "
		 "damaged",
		 at("badhdr.cap"), offs[4]);
	T(replay(at("badhdr.cap"), 0, 1, &sn, &e) == -EINVAL && !strcmp(e.msg, want),
	  "damaged header mid-file:\n  got:  %s\n  want: %s", e.msg, want);
	/* a frame that does not decompress, in window 2's rows: found by the second pass */
	copy_cut(good, at("badframe.cap"), -1, "\xff\xff\xff\xff", offs[4] + 40);
	snprintf(want, sizeof(want), "%s: corrupt block at offset %ld", at("badframe.cap"),
		 offs[4]);
	T(replay(at("badframe.cap"), 0, 1, &sn, &e) == -EINVAL && !strcmp(e.msg, want) &&
		  sn.windows == 1,
	  "damaged frame mid-file after 1 window:\n  got:  %s (%d)\n  want: %s", e.msg, sn.windows,
	  want);
	/* the same without -i: read ahead with the blocks around it, the same line (core/capture.c
	 * (6)) */
	T(replay(at("badframe.cap"), 0, 0, &sn, &e) == -EINVAL && !strcmp(e.msg, want),
	  "damaged frame mid-file, one result:\n  got:  %s\n  want: %s", e.msg, want);
	/* the last block damaged: a cut */
	copy_cut(good, at("badlast.cap"), -1, "\xff\xff\xff\xff", offs[8] + 24);
	T(!replay(at("badlast.cap"), 0, 1, &sn, &e) && sn.windows == 3, "damaged last block");
}

static void test_max_memory(void)
{
	size_t row = sizeof(struct wrow) + ((CRAFT_RAW + 7) & ~7u);
	struct err e = { 0 };
	struct seen sn;

	T(!craft_write(at("mem.cap"), craft_format(NULL, NULL, NULL),
		       &(struct craft){ .windows = 3, .rows = 10 }, &e),
	  "write mem.cap");
	/* -i: each window keeps 4 rows of its 10, as recorded */
	T(!replay(at("mem.cap"), 4 * row + 8, 1, &sn, &e), "replay -i: %s", e.msg);
	T(sn.windows == 3 && sn.rows == 12 && sn.received == 12 && sn.lost == 18,
	  "-i: 3 windows, 12 rows kept, received 12, lost 18: %d %d %llu %llu", sn.windows, sn.rows,
	  (unsigned long long)sn.received, (unsigned long long)sn.lost);
	/* one result: 4 rows of the 30 */
	T(!replay(at("mem.cap"), 4 * row + 8, 0, &sn, &e), "replay: %s", e.msg);
	T(sn.windows == 1 && sn.rows == 4 && sn.received == 4 && sn.lost == 26,
	  "one window: 4 kept, 26 lost: %d %d %llu %llu", sn.windows, sn.rows,
	  (unsigned long long)sn.received, (unsigned long long)sn.lost);
}

static void on_alarm(int sig) { _exit(3); }

static void test_fifo(void)
{
	struct err e = { 0 };
	struct seen sn;

	T(!mkfifo(at("fifo"), 0600), "mkfifo");
	T(!craft_write(at("fifo.cap"), craft_format(NULL, NULL, NULL),
		       &(struct craft){ .windows = 1, .map_path = at("fifo") }, &e),
	  "write fifo.cap");
	signal(SIGALRM, on_alarm); /* blocked in the FIFO's open: fail, not hang */
	alarm(20);
	T(!replay(at("fifo.cap"), 0, 0, &sn, &e) && sn.rows == 4, "a FIFO in MAPS: %s", e.msg);
	alarm(0);
}

static void test_tracefs_shapes(void)
{
	static char text[1 << 17];
	struct err e = { 0 };
	glob_t g;
	int bad = 0;

	if (glob("/sys/kernel/tracing/events/*/*/format", 0, NULL, &g) || g.gl_pathc < 100) {
		printf("skip tracefs shapes: /sys/kernel/tracing is not readable\n");
		return;
	}
	for (size_t i = 0; i < g.gl_pathc; i++) {
		FILE *f = fopen(g.gl_pathv[i], "r");
		size_t n = f ? fread(text, 1, sizeof(text), f) : 0;

		if (f)
			fclose(f);
		if (n && format__check(g.gl_pathv[i], text, n, true, &e) && bad++ < 5)
			T(0, "%s", e.msg);
	}
	T(!bad, "%zu formats of tracefs, %d refused", g.gl_pathc, bad);
	globfree(&g);
	/* cut inside an argument of its print fmt: libtraceevent 1.7.1 reads past its tokens */
	snprintf(text, sizeof(text), "%s", craft_format(NULL, NULL, NULL));
	*strstr(text, "__get_str(") = '\0';
	strcat(text, "__print_flags(REC->f_u8, \"|\", { 1, \"A\" }");
	T(format__check("t:cut", text, strlen(text), true, &e) == -EINVAL &&
		  !strcmp(e.msg,
			  "table t:cut: its print fmt does not close its quotes or brackets, "
			  "names a field it does not have, or divides by something else "
			  "than sizeof, a field or a number: the capture is damaged or "
			  "crafted"),
	  "a print fmt cut inside an argument: %s", e.msg);
	T(format__check("t:cut", text, strlen(text), false, &e) == 0,
	  "tracefs' are not checked so");
	snprintf(text, sizeof(text), "%s", craft_format(NULL, NULL, NULL));
	memcpy(strstr(text, "REC->f_u8"), "REC->f_u9", 9);
	T(format__check("t:name", text, strlen(text), true, &e) == -EINVAL,
	  "a print fmt naming a field the format lacks");
	snprintf(text, sizeof(text), "%s", craft_format(NULL, NULL, NULL));
	memcpy(strstr(text, "REC->f_u8"), "0x8%0000 ", 9);
	T(format__check("t:div", text, strlen(text), true, &e) == -EINVAL,
	  "a print fmt dividing by a constant 0");
	snprintf(text, sizeof(text), "%s", craft_format(NULL, NULL, NULL));
	memcpy(strstr(text, "\tfield:u16 f_u16;"), "\tfield:u16 f-u16;", 17);
	T(format__check("t:junk", text, strlen(text), true, &e) == -EINVAL &&
		  strstr(e.msg, "line 11 of its format is not a tracepoint format's "),
	  "a field line of another shape: %s", e.msg);
}

/* --write DIR [WINDOWS ROWS]: the files of tests/live/capture_crafted.sh */
static int write_all(const char *to, int windows, int rows)
{
	char name[64], line[512];
	FILE *exp;
	uint64_t one = 0;
	struct err e = { 0 };
	int ret = 0;

	snprintf(dir, sizeof(dir), "%s", to);
	if (!(exp = fopen(at("expected"), "w")))
		return 1;
	ret |= craft_write(at("good.cap"), craft_format(NULL, NULL, NULL),
			   &(struct craft){ .windows = 2 }, &e);
	for (int i = 0; i < CRAFT_NR_FIELDS; i++)
		for (int k = 0; k < NR_BADS; k++) {
			snprintf(name, sizeof(name), "bad-%s-%d.cap", craft_fields[i].name, k);
			ret |= craft_write(
				at(name),
				craft_format(craft_fields[i].name, bads[k].offset, bads[k].size),
				&(struct craft){ .windows = 1 }, &e);
			bad_line(&craft_fields[i], &bads[k], line, sizeof(line));
			fprintf(exp, "%s\t%s\n", name, line);
		}
	ret |= mkfifo(at("fifo"), 0600) && errno != EEXIST;
	ret |= craft_write(at("fifo.cap"), craft_format(NULL, NULL, NULL),
			   &(struct craft){ .windows = 1, .map_path = at("fifo") }, &e);
	ret |= craft_write(
		at("many.cap"), craft_format(NULL, NULL, NULL),
		&(struct craft){ .windows = windows, .rows = rows, .first_window_end_out = &one },
		&e);
	fclose(exp);
	if (!(exp = fopen(at("one_window"), "w")))
		return 1;
	fprintf(exp, "%llu\n", (unsigned long long)one);
	fclose(exp);
	if (ret)
		fprintf(stderr, "test_capture_craft: writing in %s failed: %s\n", to, e.msg);
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	int ret;

	if (argc >= 3 && !strcmp(argv[1], "--write"))
		return write_all(argv[2], argc > 3 ? atoi(argv[3]) : 20,
				 argc > 4 ? atoi(argv[4]) : 20000);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN(test_good);
	RUN(test_bad_formats);
	RUN(test_decode_bounds);
	RUN(test_cut_and_corrupt);
	RUN(test_max_memory);
	RUN(test_fifo);
	RUN(test_tracefs_shapes);
	ret = t_done("capture_craft");
	if (system(NULL)) {
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd)) {
		}
	}
	return ret;
}
