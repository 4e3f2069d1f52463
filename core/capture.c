/*
 * core/capture.c - capture files (see core/capture.h).
 *
 * Layout: "PSQLCAP1" | u32 version | u32 reserved, then blocks:
 *   u32 block magic 0x4b4c4250 ("PBLK") | u32 type | u32 frame size | u32 raw size | LZ4 frame
 * (1) Each block is a complete LZ4 frame (content checksum on), written as soon as it is made.
 * (2) Reading stops cleanly at a short or damaged tail: everything before it is kept, and the
 *     caller is told the file was cut.
 * (3) An unknown version, a foreign file or a corrupt block in the middle is one clear error.
 * (4) The file is made by core/outfile.h's rules (mode 0600, never through a link); a FIFO or
 *     /dev/stdout is written as it is, so a capture can be piped.
 */
#include <errno.h>
#include <fcntl.h>
#include <lz4frame.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/capture.h"
#include "core/outfile.h"

#define BLOCK_MAGIC 0x4b4c4250u
#define MAX_BLOCK (256u << 20)

struct capture_writer {
	FILE *f;
	char *path;
	uint64_t raw, file;
};

struct capture_reader {
	FILE *f;
	void *frame, *data;
	size_t frame_cap;
	const char *path;
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

struct capture_reader *capture__open(const char *path, struct err *e)
{
	struct capture_reader *r = calloc(1, sizeof(*r));
	char magic[8];
	uint32_t hdr[2];

	if (!r) {
		err_set(e, -ENOMEM, "out of memory");
		return NULL;
	}
	snprintf(r->name, sizeof(r->name), "%s", path);
	r->f = fopen(path, "rb");
	if (!r->f) {
		err_set(e, -errno, "%s: %s", path, strerror(errno));
		goto fail;
	}
	if (fread(magic, 8, 1, r->f) != 1 || memcmp(magic, CAPTURE_MAGIC, 8)) {
		err_set(e, -EINVAL, "%s: not a perf-sql capture", path);
		err_hint(e, "make one with: perf-sql record -o FILE TABLE -d 5");
		goto fail;
	}
	if (fread(hdr, sizeof(hdr), 1, r->f) != 1 || hdr[0] != CAPTURE_VERSION) {
		err_set(e, -EINVAL, "%s: capture version %u, this perf-sql reads version %d", path,
			hdr[0], CAPTURE_VERSION);
		goto fail;
	}
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

int capture__next(struct capture_reader *r, uint32_t *type_out, const void **data_out,
		  size_t *len_out, int *truncated_out, struct err *e)
{
	uint32_t hdr[4];
	size_t n;

	*truncated_out = 0;
	free(r->data);
	r->data = NULL;
	n = fread(hdr, 1, sizeof(hdr), r->f);
	if (n == 0 && feof(r->f))
		return 0;
	if (n != sizeof(hdr) || hdr[0] != BLOCK_MAGIC || hdr[2] > MAX_BLOCK + 65536) {
		*truncated_out = 1; /* a cut (or damaged) tail: keep what came before */
		return 0;
	}
	if (hdr[2] > r->frame_cap) {
		void *p = realloc(r->frame, hdr[2]);

		if (!p)
			return err_set(e, -ENOMEM, "out of memory");
		r->frame = p;
		r->frame_cap = hdr[2];
	}
	if (fread(r->frame, 1, hdr[2], r->f) != hdr[2]) {
		*truncated_out = 1;
		return 0;
	}
	if (capture__decode(r->frame, hdr[2], &r->data, len_out) || *len_out != hdr[3]) {
		/* a damaged block at the very end is a cut; in the middle it is corruption */
		if (fgetc(r->f) == EOF) {
			*truncated_out = 1;
			return 0;
		}
		return err_set(e, -EINVAL, "%s: corrupt block at offset %ld", r->name,
			       ftell(r->f) - (long)hdr[2] - 17);
	}
	*type_out = hdr[1];
	*data_out = r->data;
	return 1;
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
	free(r->frame);
	free(r->data);
	free(r);
}
