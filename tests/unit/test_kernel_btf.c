/*
 * tests/unit/test_kernel_btf.c - bpf/kernel_btf.c against libbpf's btf__*: on a handmade blob
 * with one type of every kind (sizes from kind and vlen), a bitfield struct and an anonymous
 * member; on that blob cut, mangled and lying about its lengths (-EINVAL, one line, no
 * crash); and on the running kernel's /sys/kernel/btf/vmlinux (skipped if it has none):
 * perf-sql's own questions, then a sweep of every 97th type and its members.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "bpf/kernel_btf.h"
#include "core/err.h"
#include "tests/unit/t.h"

/* the handmade blob: a header, then types and strings appended as 32-bit words */
static uint32_t blob[256];
static char strs[256];
static uint32_t nr_words, strs_len, blob_size;

static uint32_t str(const char *s)
{
	uint32_t off = strs_len;

	memcpy(strs + off, s, strlen(s) + 1);
	strs_len += (uint32_t)strlen(s) + 1;
	return off;
}

static void w(uint32_t word) { blob[sizeof(struct btf_header) / 4 + nr_words++] = word; }

static void type(const char *name, int kind, uint32_t vlen, bool kflag, uint32_t size_type)
{
	w(name ? str(name) : 0);
	w((uint32_t)kind << 24 | vlen | (uint32_t)kflag << 31);
	w(size_type);
}

/* ids: 1 int, 2 s (kflag: a bitfield, an anonymous union), 3 u (no kflag), 4 ptr, 5 array,
 * 6 enum, 7 fwd, 8 proto, 9 func, 10 var, 11 datasec, 12 float, 13 decl_tag, 14 type_tag,
 * 15 enum64, 16 const, 17 volatile, 18 restrict, 19 anon union, 20 typedef "last" */
static void build(void)
{
	struct btf_header h = { .magic = BTF_MAGIC, .version = BTF_VERSION, .hdr_len = sizeof(h) };

	nr_words = 0;
	strs_len = 1;
	strs[0] = '\0';
	type("int", BTF_KIND_INT, 0, 0, 4), w(32);
	type("s", BTF_KIND_STRUCT, 4, 1, 16);
	w(str("a")), w(1), w(0);             /* int a at bit 0 */
	w(str("b")), w(1), w(3u << 24 | 35); /* int b:3 at bit 35 */
	w(0), w(19), w(64);                  /* union { ... } at bit 64 */
	w(str("c")), w(1), w(96);            /* int c at bit 96 */
	type("u", BTF_KIND_STRUCT, 1, 0, 8), w(str("x")), w(1), w(32);
	type(NULL, BTF_KIND_PTR, 0, 0, 2);
	type(NULL, BTF_KIND_ARRAY, 0, 0, 0), w(1), w(1), w(4);
	type("e", BTF_KIND_ENUM, 2, 0, 4), w(str("E0")), w(0), w(str("E1")), w(1);
	type("f", BTF_KIND_FWD, 0, 0, 0);
	type(NULL, BTF_KIND_FUNC_PROTO, 2, 0, 1), w(str("p")), w(1), w(str("q")), w(4);
	type("fn", BTF_KIND_FUNC, 0, 0, 8);
	type("v", BTF_KIND_VAR, 0, 0, 1), w(1);
	type(".data", BTF_KIND_DATASEC, 1, 0, 4), w(10), w(0), w(4);
	type("double", BTF_KIND_FLOAT, 0, 0, 8);
	type("tag", BTF_KIND_DECL_TAG, 0, 0, 2), w(0xffffffff);
	type("ttag", BTF_KIND_TYPE_TAG, 0, 0, 1);
	type("e64", BTF_KIND_ENUM64, 1, 0, 8), w(str("BIG")), w(1), w(2);
	type(NULL, BTF_KIND_CONST, 0, 0, 1);
	type(NULL, BTF_KIND_VOLATILE, 0, 0, 1);
	type(NULL, BTF_KIND_RESTRICT, 0, 0, 4);
	type(NULL, BTF_KIND_UNION, 1, 0, 4), w(str("in_anon")), w(1), w(0);
	type("last", BTF_KIND_TYPEDEF, 0, 0, 2);
	h.type_len = nr_words * 4;
	h.str_off = h.type_len;
	h.str_len = strs_len;
	memcpy(blob, &h, sizeof(h));
	memcpy((char *)blob + h.hdr_len + h.str_off, strs, strs_len);
	blob_size = h.hdr_len + h.type_len + h.str_len;
}

static struct btf_header *hdr(void) { return (struct btf_header *)blob; }

static void test_blob(void)
{
	struct kernel_btf_member m;
	struct err e = { 0 };
	struct kernel_btf *b;
	struct btf *lb;

	build();
	b = kernel_btf__parse(blob, blob_size, &e);
	T(b, "parse the handmade blob: %s", e.msg);
	lb = btf__new(blob, blob_size);
	T(lb, "libbpf takes the handmade blob too: %s", strerror(errno));
	if (!b || !lb)
		return;
	T(kernel_btf__nr_types(b) == 20 && btf__type_cnt(lb) == 21, "20 types, as libbpf counts");
	static const struct {
		const char *name;
		int kind;
	} q[] = {
		{ "int", BTF_KIND_INT },      { "s", BTF_KIND_STRUCT },
		{ "e", BTF_KIND_ENUM },       { "fn", BTF_KIND_FUNC },
		{ "v", BTF_KIND_VAR },        { ".data", BTF_KIND_DATASEC },
		{ "tag", BTF_KIND_DECL_TAG }, { "e64", BTF_KIND_ENUM64 },
		{ "last", BTF_KIND_TYPEDEF }, { "s", BTF_KIND_UNION },
		{ "nope", BTF_KIND_STRUCT },  { "double", BTF_KIND_FLOAT },
	};
	for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
		int want = btf__find_by_name_kind(lb, q[i].name, q[i].kind);

		T(kernel_btf__find(b, q[i].name, q[i].kind) == (want > 0 ? want : -ENOENT),
		  "find %s kind %d: libbpf says %d", q[i].name, q[i].kind, want);
	}
	T(kernel_btf__find(b, "last", BTF_KIND_TYPEDEF) == 20, "the type after every kind is 20");
	T(!kernel_btf__member(b, BTF_KIND_STRUCT, "s", "b", &m) && m.bit_off == 35 &&
		  m.bitfield_size == 3 && m.type == 1,
	  "kflag bitfield b: bit 35, 3 bits");
	T(!kernel_btf__member(b, BTF_KIND_STRUCT, "s", "c", &m) && m.bit_off == 96 &&
		  !m.bitfield_size,
	  "c after the anonymous union: bit 96");
	T(!kernel_btf__member(b, BTF_KIND_STRUCT, "u", "x", &m) && m.bit_off == 32 &&
		  !m.bitfield_size,
	  "no kflag: the offset is all bits");
	T(kernel_btf__member(b, BTF_KIND_STRUCT, "s", "in_anon", &m) == -ENOENT,
	  "anonymous members are not descended into");
	T(kernel_btf__member(b, BTF_KIND_STRUCT, "s", "zz", &m) == -ENOENT, "no member zz");
	T(kernel_btf__member(b, BTF_KIND_TYPEDEF, "last", "a", &m) == -ENOENT, "a typedef: none");
	btf__free(lb);
	kernel_btf__free(b);
}

/* the blob after mangle() fails to parse with -EINVAL and a message with want in it */
static void bad(void (*mangle)(void), uint32_t size, const char *want)
{
	struct err e = { 0 };
	struct kernel_btf *b;

	build();
	if (mangle)
		mangle();
	b = kernel_btf__parse(blob, size ? size : blob_size, &e);
	T(!b && e.code == -EINVAL && strstr(e.msg, want) && !strchr(e.msg, '\n'),
	  "expected -EINVAL '%s', got %d '%s'", want, e.code, e.msg);
	kernel_btf__free(b);
}

static void magic(void) { hdr()->magic = 0x9feb; }
static void version(void) { hdr()->version = 2; }
static void wrap(void) { hdr()->type_off = 0xfffffff0u; } /* 32-bit wrap-around */
static void cut_type(void) { hdr()->type_len -= 4; }      /* the typedef "last" cut short */
static void cut_vlen(void) { blob[6 + 4 + 1] |= 0xff; }   /* s claims 255 members */
static void no_nul(void) { ((char *)blob)[blob_size - 1] = 'x'; }
static void name_past(void) { blob[6] = 0x10000; }
static void kind_99(void) { blob[6 + 1] = 31u << 24; }

static void test_hostile(void)
{
	build();
	for (uint32_t n = 0; n < blob_size; n++) {
		struct err e = { 0 };
		struct kernel_btf *b = kernel_btf__parse(blob, n, &e);

		T(!b && e.code == -EINVAL && e.msg[0], "cut at %u bytes: -EINVAL, a message", n);
		kernel_btf__free(b);
	}
	bad(NULL, 10, "shorter than a BTF header");
	bad(magic, 0, "other byte order");
	bad(version, 0, "BTF version 2");
	bad(wrap, 0, "truncated");
	bad(cut_type, 0, "truncated: type 20 at byte 380");
	bad(cut_vlen, 0, "runs past the type section");
	bad(no_nul, 0, "does not start and end in NUL");
	bad(name_past, 0, "past the strings");
	bad(kind_99, 0, "unknown kind 31");
}

/* a file: mapped (or read) and parsed; a missing one says what it needs */
static void test_open(void)
{
	char path[] = "/tmp/perf-sql-btf-XXXXXX";
	struct err e = { 0 };
	struct kernel_btf *b;
	int fd = mkstemp(path);

	build();
	T(fd >= 0 && write(fd, blob, blob_size) == (ssize_t)blob_size, "write %s", path);
	b = kernel_btf__open(path, &e);
	T(b && kernel_btf__find(b, "last", BTF_KIND_TYPEDEF) == 20, "open a blob file: %s", e.msg);
	kernel_btf__free(b);
	T(!ftruncate(fd, blob_size - 3), "truncate");
	b = kernel_btf__open(path, &e);
	T(!b && e.code == -EINVAL && strstr(e.msg, path), "a truncated file: %s", e.msg);
	close(fd);
	unlink(path);
	b = kernel_btf__open(path, &e);
	T(!b && e.code == -ENOENT && strstr(e.hint, "CONFIG_DEBUG_INFO_BTF"), "no file: %s", e.msg);
}

/* every named member of struct/union id: the same bit offset and bitfield size as libbpf's */
static void same_members(const struct kernel_btf *b, const struct btf *lb, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(lb, id);
	const struct btf_member *lm = btf_members(t);
	const char *tname = btf__name_by_offset(lb, t->name_off);

	for (int i = 0; i < btf_vlen(t); i++, lm++) {
		const char *mname = btf__name_by_offset(lb, lm->name_off);
		struct kernel_btf_member m;
		int first = -1;

		if (!*mname)
			continue;
		for (int j = 0; j <= i && first < 0; j++) /* a repeated name: the first wins */
			if (!strcmp(btf__name_by_offset(lb, btf_members(t)[j].name_off), mname))
				first = j;
		if (first != i)
			continue;
		T(!kernel_btf__member(b, btf_kind(t), tname, mname, &m) &&
			  m.bit_off == btf_member_bit_offset(t, (uint32_t)i) &&
			  m.bitfield_size == btf_member_bitfield_size(t, (uint32_t)i),
		  "%s.%s: bit %u/%u, libbpf %u/%u", tname, mname, m.bit_off, m.bitfield_size,
		  btf_member_bit_offset(t, (uint32_t)i), btf_member_bitfield_size(t, (uint32_t)i));
	}
}

static void test_vmlinux(void)
{
	static const char *const members[][2] = {
		{ "pt_regs", "di" },         { "pt_regs", "si" },
		{ "pt_regs", "dx" },         { "pt_regs", "r10" },
		{ "pt_regs", "r8" },         { "pt_regs", "r9" },
		{ "pt_regs", "orig_ax" },    { "task_struct", "thread_info" },
		{ "thread_info", "status" }, { "task_struct", "comm" },
		{ "task_struct", "pid" },
	};
	struct err e = { 0 };
	const struct kernel_btf *b;
	struct btf *lb;
	uint32_t nr;

	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		printf("vmlinux checks skipped: no /sys/kernel/btf/vmlinux\n");
		return;
	}
	b = kernel_btf__vmlinux(&e);
	lb = btf__load_vmlinux_btf();
	T(b && lb, "read vmlinux BTF: %s", e.msg);
	if (!b || !lb)
		return;
	T(kernel_btf__vmlinux(NULL) == b, "read once: the same reader again");
	nr = kernel_btf__nr_types(b);
	T(nr + 1 == btf__type_cnt(lb), "%u types, libbpf %u", nr, btf__type_cnt(lb) - 1);
	T(kernel_btf__find(b, "btf_trace_sys_enter", BTF_KIND_TYPEDEF) ==
		  btf__find_by_name_kind(lb, "btf_trace_sys_enter", BTF_KIND_TYPEDEF),
	  "btf_trace_sys_enter");
	T(kernel_btf__find(b, "btf_trace_sys_exit", BTF_KIND_TYPEDEF) ==
		  btf__find_by_name_kind(lb, "btf_trace_sys_exit", BTF_KIND_TYPEDEF),
	  "btf_trace_sys_exit");
	for (size_t i = 0; i < sizeof(members) / sizeof(members[0]); i++)
		same_members(b, lb,
			     (uint32_t)btf__find_by_name_kind(lb, members[i][0], BTF_KIND_STRUCT));
	for (uint32_t id = 1; id <= nr && id < btf__type_cnt(lb); id += 97) {
		const struct btf_type *t = btf__type_by_id(lb, id);
		const char *name = btf__name_by_offset(lb, t->name_off);
		int want;

		if (!*name)
			continue;
		want = btf__find_by_name_kind(lb, name, btf_kind(t));
		T(kernel_btf__find(b, name, btf_kind(t)) == want, "%s kind %d: libbpf %d", name,
		  btf_kind(t), want);
		if ((btf_is_struct(t) || btf_is_union(t)) && want == (int)id)
			same_members(b, lb, id);
	}
	btf__free(lb);
}

int main(void)
{
	RUN(test_blob);
	RUN(test_hostile);
	RUN(test_open);
	RUN(test_vmlinux);
	return t_done("kernel_btf");
}
