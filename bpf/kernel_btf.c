/*
 * bpf/kernel_btf.c - a small reader of the kernel's raw BTF (see bpf/kernel_btf.h).
 *
 * HOW IT WORKS: a raw BTF blob is a struct btf_header, then a type section and a string
 * section at the offsets it gives. Each type is a struct btf_type followed by a part whose
 * size follows from its kind and vlen (an INT's encoding, an ARRAY's btf_array, a STRUCT's
 * vlen btf_members, ...). One walk checks every type lies inside the type section and that
 * its name is inside the string section, and records each type's start by id; a lookup then
 * scans those starts. The strings are NUL-terminated by check (the section ends in '\0'), so
 * any name offset below its length is a C string.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "bpf/kernel_btf.h"
#include "core/err.h"

#define VMLINUX_BTF "/sys/kernel/btf/vmlinux"

struct kernel_btf {
	const uint8_t *types; /* the type section */
	const char *strs;     /* the string section */
	uint32_t types_len, strs_len;
	uint32_t nr_types;
	uint32_t *start; /* start[id]: type id's byte offset in types, id 1..nr_types */
	void *map;       /* owned: the file's mapping (map_len bytes), or */
	size_t map_len;
	void *buf; /* owned: the file's bytes read */
};

/* bytes after the struct btf_type of a type of this info, or -1: an unknown kind */
static int64_t type_extra(uint32_t info)
{
	int64_t vlen = BTF_INFO_VLEN(info);

	switch (BTF_INFO_KIND(info)) {
	case BTF_KIND_INT: return sizeof(uint32_t);
	case BTF_KIND_ARRAY: return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: return vlen * (int64_t)sizeof(struct btf_member);
	case BTF_KIND_ENUM: return vlen * (int64_t)sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO: return vlen * (int64_t)sizeof(struct btf_param);
	case BTF_KIND_VAR: return sizeof(struct btf_var);
	case BTF_KIND_DATASEC: return vlen * (int64_t)sizeof(struct btf_var_secinfo);
	case BTF_KIND_DECL_TAG: return sizeof(struct btf_decl_tag);
	case BTF_KIND_ENUM64: return vlen * (int64_t)sizeof(struct btf_enum64);
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG: return 0;
	default: return -1;
	}
}

/* the header's sections into b, each checked to lie inside the blob */
static int check_header(struct kernel_btf *b, const uint8_t *d, size_t size, const char *what,
			struct err *e)
{
	struct btf_header h;
	uint64_t types_end, strs_end;

	if (size < sizeof(h))
		return err_set(e, -EINVAL, "%s: %zu bytes, shorter than a BTF header", what, size);
	memcpy(&h, d, sizeof(h));
	if (h.magic != BTF_MAGIC)
		return err_set(e, -EINVAL, "%s: not BTF (magic 0x%04x, not 0x%04x%s)", what,
			       h.magic, BTF_MAGIC, h.magic == 0x9feb ? ": other byte order" : "");
	if (h.version != BTF_VERSION)
		return err_set(e, -EINVAL, "%s: BTF version %u, not %u", what, h.version,
			       BTF_VERSION);
	types_end = (uint64_t)h.hdr_len + h.type_off + h.type_len;
	strs_end = (uint64_t)h.hdr_len + h.str_off + h.str_len;
	if (h.hdr_len < sizeof(h) || types_end > size || strs_end > size)
		return err_set(e, -EINVAL,
			       "%s: truncated: its header gives %llu bytes of types and strings, "
			       "the file has %zu",
			       what,
			       (unsigned long long)(types_end > strs_end ? types_end : strs_end),
			       size);
	b->types = d + h.hdr_len + h.type_off;
	b->strs = (const char *)d + h.hdr_len + h.str_off;
	b->types_len = h.type_len;
	b->strs_len = h.str_len;
	if (((uintptr_t)b->types & 3) || (h.type_len & 3))
		return err_set(e, -EINVAL, "%s: the type section is not 4-byte aligned", what);
	if (!h.str_len || b->strs[0] || b->strs[h.str_len - 1])
		return err_set(e, -EINVAL, "%s: the string section does not start and end in NUL",
			       what);
	return 0;
}

/* the one walk: every type's start into b->start, its bounds and name checked */
static int index_types(struct kernel_btf *b, const char *what, struct err *e)
{
	uint32_t cap = b->types_len / sizeof(struct btf_type) + 2, off = 0, *grown;

	if (!(b->start = malloc(cap * sizeof(*b->start))))
		return err_set(e, -ENOMEM, "%s: out of memory for its type index", what);
	while (off < b->types_len) {
		const struct btf_type *t = (const void *)(b->types + off);
		uint32_t id = b->nr_types + 1;
		int64_t extra;

		if (b->types_len - off < sizeof(*t))
			return err_set(e, -EINVAL,
				       "%s: truncated: type %u at byte %u of the type "
				       "section has no room for its header",
				       what, id, off);
		if ((extra = type_extra(t->info)) < 0 || BTF_INFO_KIND(t->info) == BTF_KIND_UNKN)
			return err_set(e, -EINVAL, "%s: type %u has unknown kind %u", what, id,
				       BTF_INFO_KIND(t->info));
		if ((uint64_t)off + sizeof(*t) + (uint64_t)extra > b->types_len)
			return err_set(e, -EINVAL,
				       "%s: truncated: type %u at byte %u runs past "
				       "the type section's %u bytes",
				       what, id, off, b->types_len);
		if (t->name_off >= b->strs_len)
			return err_set(e, -EINVAL,
				       "%s: type %u's name at %u is past the strings' "
				       "%u bytes",
				       what, id, t->name_off, b->strs_len);
		b->start[id] = off;
		b->nr_types = id;
		off += (uint32_t)(sizeof(*t) + (uint64_t)extra);
	}
	if ((grown = realloc(b->start, (b->nr_types + 1) * sizeof(*b->start))))
		b->start = grown;
	return 0;
}

static struct kernel_btf *parse_named(const void *data, size_t size, const char *what,
				      struct err *e)
{
	struct kernel_btf *b = calloc(1, sizeof(*b));

	if (!b) {
		err_set(e, -ENOMEM, "%s: out of memory", what);
		return NULL;
	}
	if (check_header(b, data, size, what, e) || index_types(b, what, e)) {
		kernel_btf__free(b);
		return NULL;
	}
	return b;
}

struct kernel_btf *kernel_btf__parse(const void *data, size_t size, struct err *e)
{
	return parse_named(data, size, "BTF blob", e);
}

/* the whole of fd (size bytes by fstat) into a new buffer; 0 or -errno */
static int read_all(int fd, size_t size, void **buf_out, size_t *len_out)
{
	uint8_t *buf = malloc(size ? size : 1);
	size_t n = 0;
	ssize_t r;

	if (!buf)
		return -ENOMEM;
	while (n < size && (r = read(fd, buf + n, size - n)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			r = -errno;
			free(buf);
			return (int)r;
		}
		n += (size_t)r; /* sysfs hands out a page per read */
	}
	*buf_out = buf;
	*len_out = n;
	return 0;
}

struct kernel_btf *kernel_btf__open(const char *path, struct err *e)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;
	struct kernel_btf *b = NULL;
	void *map = MAP_FAILED, *buf = NULL;
	size_t len = 0;
	struct stat st;

	if (fd < 0 || fstat(fd, &st)) {
		ret = -errno; /* err_set() may change errno */
		err_set(e, ret, "%s: %s", path, strerror(-ret));
		if (ret == -ENOENT)
			err_hint(e, "the kernel has no BTF: it needs CONFIG_DEBUG_INFO_BTF=y");
		goto out;
	}
	len = (size_t)st.st_size;
	/* the kernel maps its own BTF read-only since 6.16: no copy of ~6 MB */
	if (len)
		map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED && (ret = read_all(fd, len, &buf, &len))) {
		err_set(e, ret, "%s: %s", path, strerror(-ret));
		goto out;
	}
	if (!(b = parse_named(map != MAP_FAILED ? map : buf, len, path, e)))
		goto out;
	if (map != MAP_FAILED) {
		b->map = map;
		b->map_len = len;
	}
	b->buf = buf;
	map = MAP_FAILED;
	buf = NULL;
out:
	if (map != MAP_FAILED)
		munmap(map, len);
	free(buf);
	if (fd >= 0)
		close(fd);
	return b;
}

void kernel_btf__free(struct kernel_btf *b)
{
	if (!b)
		return;
	if (b->map)
		munmap(b->map, b->map_len);
	free(b->buf);
	free(b->start);
	free(b);
}

/*
 * The kernel's BTF does not change while we run and is the same for every session, so it is
 * read once per process: the one piece of process-wide state besides the registries.
 */
static struct {
	pthread_once_t once;
	struct kernel_btf *btf;
	struct err err;
} vmlinux = { .once = PTHREAD_ONCE_INIT };

static void vmlinux_open(void) { vmlinux.btf = kernel_btf__open(VMLINUX_BTF, &vmlinux.err); }

const struct kernel_btf *kernel_btf__vmlinux(struct err *e)
{
	pthread_once(&vmlinux.once, vmlinux_open);
	if (!vmlinux.btf && e)
		*e = vmlinux.err;
	return vmlinux.btf;
}

uint32_t kernel_btf__nr_types(const struct kernel_btf *b) { return b->nr_types; }

static const struct btf_type *type_of(const struct kernel_btf *b, uint32_t id)
{
	return (const void *)(b->types + b->start[id]);
}

int kernel_btf__find(const struct kernel_btf *b, const char *name, int kind)
{
	for (uint32_t id = 1; id <= b->nr_types; id++) {
		const struct btf_type *t = type_of(b, id);

		if ((int)BTF_INFO_KIND(t->info) == kind && !strcmp(b->strs + t->name_off, name))
			return (int)id;
	}
	return -ENOENT;
}

int kernel_btf__member(const struct kernel_btf *b, int kind, const char *type, const char *name,
		       struct kernel_btf_member *m_out)
{
	int id = kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION ? kernel_btf__find(b, type, kind)
								   : -ENOENT;
	const struct btf_type *t = id > 0 ? type_of(b, (uint32_t)id) : NULL;
	const struct btf_member *m = t ? (const void *)(t + 1) : NULL;
	bool kflag = t && BTF_INFO_KFLAG(t->info);

	for (uint32_t i = 0; t && i < BTF_INFO_VLEN(t->info); i++, m++) {
		/* unnamed: an anonymous struct or union, not descended into (see the header) */
		if (!m->name_off || m->name_off >= b->strs_len ||
		    strcmp(b->strs + m->name_off, name))
			continue;
		/* kflag: bitfield size in the top 8 bits; without it the int type says, and the
		 * size reads as 0 here as in libbpf's btf_member_bitfield_size() */
		m_out->bit_off = kflag ? BTF_MEMBER_BIT_OFFSET(m->offset) : m->offset;
		m_out->bitfield_size = kflag ? BTF_MEMBER_BITFIELD_SIZE(m->offset) : 0;
		m_out->type = m->type;
		return 0;
	}
	return -ENOENT;
}

int kernel_btf__size(const struct kernel_btf *b, uint32_t id)
{
	for (int depth = 0; depth < 32 && id >= 1 && id <= b->nr_types; depth++) {
		const struct btf_type *t = type_of(b, id);
		const struct btf_array *arr = (const void *)(t + 1);
		int elem;

		switch (BTF_INFO_KIND(t->info)) {
		case BTF_KIND_INT:
		case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64:
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
		case BTF_KIND_FLOAT: return t->size <= INT32_MAX ? (int)t->size : -EINVAL;
		case BTF_KIND_PTR: return 8;
		case BTF_KIND_ARRAY:
			elem = kernel_btf__size(b, arr->type);
			return elem < 0 || arr->nelems > (uint32_t)(INT32_MAX / (elem ? elem : 1))
				       ? -EINVAL
				       : elem * (int)arr->nelems;
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_CONST:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG: id = t->type; break;
		default: return -EINVAL;
		}
	}
	return -EINVAL;
}
