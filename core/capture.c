/*
 * core/capture.c - capture files (see core/capture.h).
 *
 * Layout: "PSQLCAP1" | u32 version | u32 reserved, then blocks:
 *   u32 block magic 0x4b4c4250 ("PBLK") | u32 type | u32 frame size | u32 raw size | LZ4 frame
 * (1) Each block is a complete LZ4 frame (content checksum on), written as soon as it is made.
 * (2) A file cut short (a recording killed, a full disk) is read up to its last whole block,
 *     and the caller is told where the whole blocks end: the file ends inside a block's header
 *     or frame, its last block does not decompress, or its tail is all zeros (a crash left
 *     allocated, unwritten space).
 * (3) An unknown version, a foreign file, or a damaged block with more of the file after it
 *     (a header no writer makes, a frame that does not decompress) is one clear error.
 * (5) Only regular files are read (a FIFO or a directory is one line, never waited on); a
 *     first pass may read the headers only, stepping over frames (capture__next_of()).
 * (4) The file is made by core/outfile.h's rules (mode 0600, never through a link); a FIFO or
 *     /dev/stdout is written as it is, so a capture can be piped.
 * (6) Read-ahead (capture__read_ahead(), replay's second pass): the frames of the next blocks,
 *     up to a byte bound, are read in one go and decompressed on several threads (each block
 *     is a frame of its own), then handed out in file order as capture__next_of() hands them.
 *     A read-ahead ends at a window's end (WINDOW), so replay -i holds one window at a time.
 *     A block read ahead is one whose header and frame read whole and that is not the file's
 *     last: anything else (the end, a cut, a damaged header, a short read, the last block) is
 *     left to the one-block path, which says it as it always has.
 */
#include <errno.h>
#include <fcntl.h>
#include <lz4frame.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/capture.h"
#include "core/outfile.h"

#define BLOCK_MAGIC 0x4b4c4250u
#define MAX_BLOCK (256u << 20)
#define MAX_FRAME (MAX_BLOCK + 65536u) /* LZ4F_compressFrameBound(MAX_BLOCK) is below it */
#define HEADER_SIZE 16
#define BLOCK_HEADER 16

struct capture_writer {
	FILE *f;
	char *path;
	uint64_t raw, file;
};

/* (6): a block read ahead: its header, its frame, then its data once decompressed */
struct ahead {
	uint64_t off;
	uint32_t hdr[4];
	void *frame, *data;
	size_t frame_cap, len;
	int ret;
};

struct capture_reader {
	FILE *f;
	struct ahead *ahead;
	unsigned nr_ahead, next_ahead, threads; /* slots filled, the next to hand out */
	uint32_t ahead_want;                    /* the block types the slots were read for */
	size_t ahead_bytes;                     /* how much (raw) one read-ahead may hold */
	void *frame, *data;
	size_t frame_cap;
	uint64_t size;   /* of the file when it was opened */
	uint64_t off;    /* where the next block starts */
	uint64_t end;    /* no block is read past it: the size, or where a cut was found */
	uint64_t cut_at; /* where the whole blocks end in a file cut short (0: not cut) */
	char name[256];
};

struct capture_writer *capture__create(const char *path, struct err *e)
{
	struct capture_writer *w = calloc(1, sizeof(*w));
	uint32_t hdr[2] = { CAPTURE_VERSION, 0 };

	if (!w) {
		err_set(e, -ENOMEM, "out of memory");
		return NULL;
	}
	w->f = outfile__create(path, 0600, e);
	if (!w->f) {
		free(w);
		return NULL;
	}
	if (fwrite(CAPTURE_MAGIC, 8, 1, w->f) != 1 || fwrite(hdr, sizeof(hdr), 1, w->f) != 1) {
		err_set(e, -errno, "%s: %s", path, strerror(errno));
		fclose(w->f);
		free(w);
		return NULL;
	}
	w->file = 16;
	return w;
}

int capture__write(struct capture_writer *w, enum capture_block type, const void *data, size_t len)
{
	LZ4F_preferences_t prefs = { .frameInfo = { .contentChecksumFlag =
							    LZ4F_contentChecksumEnabled,
						    .contentSize = len } };
	size_t cap = LZ4F_compressFrameBound(len, &prefs), n;
	uint32_t hdr[4];
	void *buf;
	int ret = 0;

	if (len > MAX_BLOCK)
		return -EFBIG;
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	n = LZ4F_compressFrame(buf, cap, data, len, &prefs);
	if (LZ4F_isError(n)) {
		free(buf);
		return -EINVAL;
	}
	hdr[0] = BLOCK_MAGIC;
	hdr[1] = type;
	hdr[2] = (uint32_t)n;
	hdr[3] = (uint32_t)len;
	if (fwrite(hdr, sizeof(hdr), 1, w->f) != 1 || fwrite(buf, n, 1, w->f) != 1 || fflush(w->f))
		ret = -errno;
	free(buf);
	w->raw += len;
	w->file += sizeof(hdr) + n;
	return ret;
}

void capture__sizes(const struct capture_writer *w, uint64_t *raw_out, uint64_t *file_out)
{
	*raw_out = w->raw;
	*file_out = w->file;
}

int capture__close(struct capture_writer *w, struct err *e)
{
	int ret = 0;

	if (!w)
		return 0;
	if (fflush(w->f) || (fsync(fileno(w->f)) && errno != EINVAL)) /* EINVAL: a FIFO */
		ret = err_set(e, -errno, "capture: %s", strerror(errno));
	if (fclose(w->f) && !ret)
		ret = err_set(e, -errno, "capture: %s", strerror(errno));
	free(w);
	return ret;
}

/* one line for a file -r cannot read as a capture: what it is, and what -r takes */
static int not_a_file(const char *path, mode_t mode, struct err *e)
{
	const char *what = S_ISDIR(mode)    ? "a directory"
			   : S_ISFIFO(mode) ? "a FIFO"
			   : S_ISSOCK(mode) ? "a socket"
					    : "a device";

	err_set(e, -EINVAL, "%s: %s, not a capture file", path, what);
	err_hint(e, "name the file perf-sql record -o FILE wrote (a piped capture: save it to a "
		    "file first)");
	return -EINVAL;
}

struct capture_reader *capture__open(const char *path, struct err *e)
{
	struct capture_reader *r = calloc(1, sizeof(*r));
	char magic[8];
	uint32_t hdr[2];
	struct stat st;
	int fd;

	if (!r) {
		err_set(e, -ENOMEM, "out of memory");
		return NULL;
	}
	snprintf(r->name, sizeof(r->name), "%s", path);
	/* O_NONBLOCK: a FIFO given as FILE is refused below, not waited on */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		err_set(e, -errno, "%s: %s", path, strerror(errno));
		goto fail;
	}
	if (fstat(fd, &st) || (S_ISREG(st.st_mode) && !(r->f = fdopen(fd, "rb")))) {
		err_set(e, -errno, "%s: %s", path, strerror(errno));
		close(fd);
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		not_a_file(path, st.st_mode, e);
		close(fd);
		goto fail;
	}
	r->size = r->end = (uint64_t)st.st_size;
	if (fread(magic, 8, 1, r->f) != 1 || memcmp(magic, CAPTURE_MAGIC, 8)) {
		err_set(e, -EINVAL, "%s: not a perf-sql capture", path);
		err_hint(e, "make one with: perf-sql record -o FILE TABLE -d 5s");
		goto fail;
	}
	if (fread(hdr, sizeof(hdr), 1, r->f) != 1) {
		err_set(e, -EINVAL, "%s: cut short in its header (%llu bytes): no block to read",
			path, (unsigned long long)r->size);
		goto fail;
	}
	if (hdr[0] != CAPTURE_VERSION) {
		err_set(e, -EINVAL, "%s: capture version %u, this perf-sql reads version %d", path,
			hdr[0], CAPTURE_VERSION);
		goto fail;
	}
	r->off = HEADER_SIZE;
	return r;
fail:
	capture__free(r);
	return NULL;
}

int capture__decode(const void *frame, size_t len, void **out, size_t *len_out)
{
	LZ4F_dctx *dctx;
	LZ4F_frameInfo_t info;
	size_t src = len, dst, used, ret;
	uint8_t *buf = NULL;

	if (LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION)))
		return -ENOMEM;
	ret = LZ4F_getFrameInfo(dctx, &info, frame, &src);
	if (LZ4F_isError(ret) || info.contentSize > MAX_BLOCK)
		goto bad;
	dst = (size_t)info.contentSize;
	buf = malloc(dst + 1);
	if (!buf)
		goto bad;
	used = src;
	src = len - used;
	ret = LZ4F_decompress(dctx, buf, &dst, (const uint8_t *)frame + used, &src, NULL);
	if (ret != 0 || dst != info.contentSize)
		goto bad;
	LZ4F_freeDecompressionContext(dctx);
	*out = buf;
	*len_out = dst;
	return 0;
bad:
	free(buf);
	LZ4F_freeDecompressionContext(dctx);
	return -EINVAL;
}

/* whether every byte from off to the end of the file is 0: a tail the filesystem zero-filled
 * after a crash (allocated, never written), which is a cut, not a damaged block */
static bool zero_tail(struct capture_reader *r, uint64_t off)
{
	uint8_t buf[4096];
	size_t n;

	if (fseeko(r->f, (off_t)off, SEEK_SET))
		return false;
	while ((n = fread(buf, 1, sizeof(buf), r->f)) > 0)
		for (size_t i = 0; i < n; i++)
			if (buf[i])
				return false;
	return true;
}

/* the file ends inside the block at r->off: read no further, say where (2) */
static int cut_here(struct capture_reader *r, int *cut_out)
{
	r->cut_at = r->off;
	r->end = r->off;
	*cut_out = 1;
	return 0;
}

/* the header of the block at r->off into hdr: 1, 0 (the end, or a cut), or -EINVAL */
static int read_header(struct capture_reader *r, uint32_t hdr[4], int *cut_out, struct err *e)
{
	uint64_t left = r->end - r->off;

	if (r->off >= r->end) {
		*cut_out = r->cut_at != 0;
		return 0;
	}
	if (left < BLOCK_HEADER)
		return cut_here(r, cut_out);
	if (fseeko(r->f, (off_t)r->off, SEEK_SET) || fread(hdr, BLOCK_HEADER, 1, r->f) != 1)
		return err_set(e, -EIO, "%s: the block at offset %llu: %s", r->name,
			       (unsigned long long)r->off,
			       ferror(r->f) ? strerror(errno) : "the file got shorter");
	if (hdr[0] != BLOCK_MAGIC && zero_tail(r, r->off))
		return cut_here(r, cut_out);
	/* no writer makes these: a damaged header, not one cut short (3) */
	if (hdr[0] != BLOCK_MAGIC || hdr[2] > MAX_FRAME || hdr[3] > MAX_BLOCK)
		return err_set(e, -EINVAL,
			       "%s: corrupt block header at offset %llu (%s): the capture is "
			       "damaged",
			       r->name, (unsigned long long)r->off,
			       hdr[0] != BLOCK_MAGIC ? "no block starts there"
						     : "its sizes are out of range");
	if (hdr[2] > left - BLOCK_HEADER)
		return cut_here(r, cut_out);
	return 1;
}

/* the frame of the block whose header is hdr: decompressed into r->data, or -EINVAL */
static int read_frame(struct capture_reader *r, const uint32_t hdr[4], size_t *len_out)
{
	if (hdr[2] > r->frame_cap) {
		void *p = realloc(r->frame, hdr[2]);

		if (!p)
			return -ENOMEM;
		r->frame = p;
		r->frame_cap = hdr[2];
	}
	if (fread(r->frame, 1, hdr[2], r->f) != hdr[2])
		return -EIO;
	if (capture__decode(r->frame, hdr[2], &r->data, len_out) || *len_out != hdr[3]) {
		free(r->data);
		r->data = NULL;
		return -EINVAL;
	}
	return 0;
}

#define MAX_AHEAD 64u
#define MAX_THREADS 4u

static bool wanted(uint32_t want, uint32_t type) { return type < 32 && (want >> type) & 1; }

static void drop_ahead(struct capture_reader *r)
{
	for (unsigned i = 0; i < r->nr_ahead; i++) {
		free(r->ahead[i].data);
		r->ahead[i].data = NULL;
	}
	r->nr_ahead = r->next_ahead = 0;
}

/* (6): the next blocks' headers and frames, read as long as they read whole; returns how many */
static unsigned fill_ahead(struct capture_reader *r, uint32_t want)
{
	size_t bytes = 0;
	unsigned n = 0;
	struct err scratch;
	int cut;

	while (n < MAX_AHEAD && (!n || bytes < r->ahead_bytes)) {
		struct ahead *a = &r->ahead[n];
		uint64_t next;

		if (read_header(r, a->hdr, &cut, &scratch) != 1)
			break; /* the end, a cut, a damaged header: the one-block path says it */
		next = r->off + BLOCK_HEADER + a->hdr[2];
		if (next == r->size)
			break; /* the last block: damaged, it is a cut (capture__next_of) */
		if (wanted(want, a->hdr[1])) {
			if (a->hdr[2] > a->frame_cap) {
				void *p = realloc(a->frame, a->hdr[2]);

				if (!p)
					break;
				a->frame = p;
				a->frame_cap = a->hdr[2];
			}
			if (fread(a->frame, 1, a->hdr[2], r->f) != a->hdr[2])
				break;
			bytes += a->hdr[3];
		}
		a->off = r->off;
		a->ret = 0;
		r->off = next;
		n++;
		if (a->hdr[1] == CAP_WINDOW)
			break; /* a window ends: the next one's blocks are not read with it */
	}
	return n;
}

struct decoder {
	struct capture_reader *r;
	unsigned next; /* the next slot to take, shared by the threads */
};

static void *decode_ahead(void *arg)
{
	struct decoder *d = arg;
	unsigned i;

	while ((i = __atomic_fetch_add(&d->next, 1, __ATOMIC_RELAXED)) < d->r->nr_ahead) {
		struct ahead *a = &d->r->ahead[i];

		if (!wanted(d->r->ahead_want, a->hdr[1]))
			continue;
		a->ret = capture__decode(a->frame, a->hdr[2], &a->data, &a->len);
		if (!a->ret && a->len != a->hdr[3])
			a->ret = -EINVAL;
	}
	return NULL;
}

/* (6): read ahead and decompress on up to r->threads threads (this one among them) */
static void read_ahead(struct capture_reader *r, uint32_t want)
{
	struct decoder d = { r, 0 };
	pthread_t t[MAX_THREADS];
	unsigned nt = 0;

	drop_ahead(r);
	r->ahead_want = want;
	r->nr_ahead = fill_ahead(r, want);
	while (nt + 1 < r->threads && nt + 1 < r->nr_ahead &&
	       !pthread_create(&t[nt], NULL, decode_ahead, &d))
		nt++;
	decode_ahead(&d);
	while (nt)
		pthread_join(t[--nt], NULL);
}

int capture__read_ahead(struct capture_reader *r, unsigned threads, size_t bytes)
{
	if (threads > MAX_THREADS)
		threads = MAX_THREADS;
	if (threads > 1 && !r->ahead && !(r->ahead = calloc(MAX_AHEAD, sizeof(*r->ahead))))
		return -ENOMEM;
	drop_ahead(r);
	r->threads = threads;
	r->ahead_bytes = bytes;
	return 0;
}

/* the next block read ahead, handed out as the one-block path hands it out */
static int next_ahead(struct capture_reader *r, uint32_t *type_out, const void **data_out,
		      size_t *len_out, struct err *e)
{
	struct ahead *a = &r->ahead[r->next_ahead++];

	*type_out = a->hdr[1];
	*data_out = NULL;
	*len_out = a->hdr[3];
	if (a->ret == -ENOMEM)
		return err_set(e, a->ret, "%s: out of memory", r->name);
	if (a->ret)
		return err_set(e, a->ret, "%s: corrupt block at offset %llu", r->name,
			       (unsigned long long)a->off);
	if (wanted(r->ahead_want, a->hdr[1])) {
		r->data = a->data;
		a->data = NULL;
		*data_out = r->data;
		*len_out = a->len;
	}
	return 1;
}

int capture__next_of(struct capture_reader *r, uint32_t want, uint32_t *type_out,
		     const void **data_out, size_t *len_out, int *cut_out, struct err *e)
{
	uint32_t hdr[4];
	uint64_t next;
	bool last;
	int ret;

	*cut_out = 0;
	free(r->data);
	r->data = NULL;
	if (r->threads > 1 && (r->next_ahead == r->nr_ahead || r->ahead_want != want)) {
		if (r->next_ahead < r->nr_ahead) /* another kind of pass: from the next block on */
			r->off = r->ahead[r->next_ahead].off;
		read_ahead(r, want);
	}
	if (r->next_ahead < r->nr_ahead)
		return next_ahead(r, type_out, data_out, len_out, e);
	if ((ret = read_header(r, hdr, cut_out, e)) <= 0)
		return ret;
	next = r->off + BLOCK_HEADER + hdr[2];
	last = next == r->size;
	*type_out = hdr[1];
	*data_out = NULL;
	*len_out = hdr[3];
	/* the last block is read whatever its type: damaged, it is a cut, and the first pass
	 * (which reads the others' headers only) must know where the whole blocks end */
	if (wanted(want, hdr[1]) || last) {
		ret = read_frame(r, hdr, len_out);
		if (ret == -EINVAL && last)
			return cut_here(r, cut_out);
		if (ret == -ENOMEM)
			return err_set(e, ret, "%s: out of memory", r->name);
		if (ret == -EIO)
			return err_set(e, ret, "%s: the block at offset %llu: %s", r->name,
				       (unsigned long long)r->off,
				       ferror(r->f) ? strerror(errno) : "the file got shorter");
		if (ret)
			return err_set(e, ret, "%s: corrupt block at offset %llu", r->name,
				       (unsigned long long)r->off);
		if (wanted(want, hdr[1]))
			*data_out = r->data;
	}
	r->off = next;
	return 1;
}

int capture__next(struct capture_reader *r, uint32_t *type_out, const void **data_out,
		  size_t *len_out, int *truncated_out, struct err *e)
{
	return capture__next_of(r, ~0u, type_out, data_out, len_out, truncated_out, e);
}

void capture__rewind(struct capture_reader *r)
{
	free(r->data);
	r->data = NULL;
	drop_ahead(r);
	r->off = HEADER_SIZE;
}

uint64_t capture__cut_at(const struct capture_reader *r, uint64_t *size_out)
{
	if (size_out)
		*size_out = r->size;
	return r->cut_at;
}

void *capture__take(struct capture_reader *r)
{
	void *d = r->data;

	r->data = NULL;
	return d;
}

void capture__free(struct capture_reader *r)
{
	if (!r)
		return;
	if (r->f)
		fclose(r->f);
	drop_ahead(r);
	for (unsigned i = 0; r->ahead && i < MAX_AHEAD; i++)
		free(r->ahead[i].frame);
	free(r->ahead);
	free(r->frame);
	free(r->data);
	free(r);
}
