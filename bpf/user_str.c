/*
 * bpf/user_str.c - copying the user strings of system calls with a BPF program (see
 * bpf/user_str.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <perf/evsel.h>
#include "bpf/insn.h"
#include "bpf/listing.h"
#include "bpf/tree.h"
#include "bpf/user_str.h"
#include "core/perf_glue.h"
#include "core/session.h"

#define FP BPF_REG_10

struct user_strs {
	struct user_str_prog *progs;
	int nr;
};

/* a byte buffer with its length (write's buf, count; mq_timedsend's u_msg_ptr, msg_len), not a
 * string: the next argument is count or a *len */
static bool is_buffer(const struct tp_event *ev, const struct tp_field *f)
{
	const struct tp_field *next = f + 1;
	size_t n;

	if (next >= ev->fields + ev->nr_fields)
		return false;
	n = strlen(next->name);
	return !strcmp(next->name, "count") || (n >= 3 && !strcmp(next->name + n - 3, "len"));
}

bool user_str__field(const struct tp_event *ev, const struct tp_field *f)
{
	char t[32];
	size_t n = 0;

	if (ev->kind != EV_TRACEPOINT || strcmp(ev->system, "syscalls") ||
	    strncmp(ev->name, "sys_enter_", 10) || f->size != 8 || (f->offset % 8) ||
	    f->kind != FIELD_INT)
		return false;
	for (const char *p = f->type; *p && n < sizeof(t) - 1; p++)
		if (*p != ' ')
			t[n++] = *p;
	t[n] = '\0';
	return !strcmp(t, "constchar*") && !is_buffer(ev, f);
}

int user_str__index(const struct tp_event *ev, const struct tp_field *f)
{
	int k = 0;

	for (int i = 0; i < ev->nr_fields && k < USER_STR_FIELDS; i++) {
		if (!user_str__field(ev, &ev->fields[i]))
			continue;
		if (&ev->fields[i] == f)
			return k;
		k++;
	}
	return -1;
}

/* the record's size as the tracepoint writes it, rounded up to 8 (the strings follow) */
static int record_size(const struct tp_event *ev)
{
	int end = 16;

	for (int i = 0; i < ev->nr_fields; i++)
		if (ev->fields[i].offset + ev->fields[i].size > end)
			end = ev->fields[i].offset + ev->fields[i].size;
	return (end + 7) & ~7;
}

bool user_str__get(const struct tp_event *ev, int k, const void *raw, size_t raw_size,
		   const char **out, size_t *len_out)
{
	size_t off = (size_t)record_size(ev) + (size_t)k * USER_STR_SLOT;
	int64_t ret;

	if (k < 0 || off + USER_STR_SLOT > raw_size)
		return false;
	memcpy(&ret, (const uint8_t *)raw + off, 8);
	if (ret <= 0 || ret > USER_STR_MAX + 1)
		return false;
	*out = (const char *)raw + off + 8;
	*len_out = (size_t)ret - 1; /* the helper counts the NUL */
	return true;
}

/* r8 = the per-CPU scratch value; out if the lookup fails */
static void scratch(struct basm *a, int map, int out)
{
	basm__emit(a, bi_st(BPF_W, FP, -4, 0));
	basm__ld_map(a, BPF_REG_1, map);
	basm__emit(a, bi_mov64_reg(BPF_REG_2, FP));
	basm__emit(a, bi_alu64_imm(BPF_ADD, BPF_REG_2, -4));
	basm__emit(a, bi_call(BPF_FUNC_map_lookup_elem));
	basm__jmp_imm(a, BPF_JEQ, BPF_REG_0, 0, out);
	basm__emit(a, bi_mov64_reg(BPF_REG_8, BPF_REG_0));
}

/* the record: common_type and common_pid (the ctx's first 8 bytes are the kernel's pt_regs
 * pointer for system calls), __syscall_nr, then the arguments as the ctx holds them */
static void record(struct basm *a, const struct tp_event *ev, int rec)
{
	basm__emit(a, bi_mov64_reg(BPF_REG_1, BPF_REG_7));
	basm__emit(a, bi_alu64_imm(BPF_LSH, BPF_REG_1, 32));
	basm__emit(a, bi_alu64_imm(BPF_OR, BPF_REG_1, ev->id & 0xffff));
	basm__emit(a, bi_stx(BPF_DW, BPF_REG_8, BPF_REG_1, 0));
	basm__emit(a, bi_ldx(BPF_W, BPF_REG_1, BPF_REG_6, 8));
	basm__emit(a, bi_stx(BPF_DW, BPF_REG_8, BPF_REG_1, 8));
	for (int off = 16; off < rec; off += 8) {
		basm__emit(a, bi_ldx(BPF_DW, BPF_REG_1, BPF_REG_6, (int16_t)off));
		basm__emit(a, bi_stx(BPF_DW, BPF_REG_8, BPF_REG_1, (int16_t)off));
	}
}

/* slot = bpf_probe_read_user_str(slot + 8, USER_STR_MAX + 1, pointer at ctx + field) */
static void copy_str(struct basm *a, int slot, int field_off)
{
	basm__emit(a, bi_mov64_reg(BPF_REG_1, BPF_REG_8));
	basm__emit(a, bi_alu64_imm(BPF_ADD, BPF_REG_1, slot + 8));
	basm__emit(a, bi_mov64_imm(BPF_REG_2, USER_STR_MAX + 1));
	basm__emit(a, bi_ldx(BPF_DW, BPF_REG_3, BPF_REG_6, (int16_t)field_off));
	basm__emit(a, bi_call(BPF_FUNC_probe_read_user_str));
	basm__emit(a, bi_stx(BPF_DW, BPF_REG_8, BPF_REG_0, (int16_t)slot));
}

static void program(struct basm *a, const struct user_str_prog *p, const struct tp_event *ev,
		    uint32_t self)
{
	int out = basm__label(a), rec = record_size(ev), k = 0;

	basm__emit(a, bi_mov64_reg(BPF_REG_6, BPF_REG_1));
	basm__emit(a, bi_call(BPF_FUNC_get_current_pid_tgid));
	basm__emit(a, bi_mov64_reg(BPF_REG_7, BPF_REG_0));
	basm__emit(a, bi_alu64_imm(BPF_RSH, BPF_REG_0, 32));
	basm__note(a, true, "self_pid");
	basm__jmp_imm(a, BPF_JEQ, BPF_REG_0, (int32_t)self, out); /* perf-sql itself */
	scratch(a, p->scratch_fd, out);
	record(a, ev, rec);
	for (int i = 0; i < ev->nr_fields && k < USER_STR_FIELDS; i++)
		if (user_str__field(ev, &ev->fields[i]))
			copy_str(a, rec + USER_STR_SLOT * k++, ev->fields[i].offset);
	basm__emit(a, bi_mov64_reg(BPF_REG_1, BPF_REG_6));
	basm__ld_map(a, BPF_REG_2, p->array_fd);
	basm__ld_imm64(a, BPF_REG_3, 0xffffffffull); /* BPF_F_CURRENT_CPU */
	basm__emit(a, bi_mov64_reg(BPF_REG_4, BPF_REG_8));
	basm__emit(a, bi_mov64_imm(BPF_REG_5, p->size));
	basm__emit(a, bi_call(BPF_FUNC_perf_event_output));
	basm__place(a, out);
	basm__emit(a, bi_mov64_imm(BPF_REG_0, 1)); /* every other perf user sees the event */
	basm__emit(a, bi_exit());
}

/* its strings and the size of its output (1), (4) */
static void size_of(struct user_str_prog *p)
{
	const struct tp_event *ev = p->src->ev;

	for (int i = 0; i < ev->nr_fields; i++)
		p->nr_strs += user_str__field(ev, &ev->fields[i]);
	if (p->nr_strs > USER_STR_FIELDS)
		p->nr_strs = USER_STR_FIELDS;
	p->size = record_size(ev) + p->nr_strs * USER_STR_SLOT;
}

static void close_fd(int fd)
{
	if (fd >= 0)
		close(fd);
}

static void prog_close(struct user_str_prog *p)
{
	close_fd(p->perf_fd); /* detaches the program */
	close_fd(p->prog_fd);
	close_fd(p->array_fd);
	close_fd(p->scratch_fd);
	free(p->listing);
}

static struct user_strs *strs_of(struct session *s)
{
	struct user_strs *u = session__source_data(s, &user_str_source);

	if (u)
		return u;
	if (!(u = calloc(1, sizeof(*u))))
		return NULL;
	if (session__add_event_source(s, &user_str_source, u)) {
		free(u);
		return NULL;
	}
	return u;
}

/* p's program in a, its listing (bpf/listing.h) into p->listing when asked */
static int build(struct user_str_prog *p, uint32_t self, bool list, struct basm *a, struct err *e)
{
	const struct bpf_map_name names[2] = { { p->array_fd, "ustr_out" },
					       { p->scratch_fd, "ustr_buf" } };

	program(a, p, p->src->ev, self);
	if (basm__finish(a) || (list && bpf_listing__insns(a, "the", names, 2, &p->listing))) {
		basm__free(a);
		return err_set(e, -ENOMEM, "out of memory");
	}
	p->nr_insns = a->nr;
	return 0;
}

int user_str__list(struct source *src, uint32_t self, char **listing_out, int *nr_insns,
		   struct err *e)
{
	struct user_str_prog p = { .src = src, .array_fd = 1001, .scratch_fd = 1002 };
	struct basm a = { 0 };

	size_of(&p);
	if (build(&p, self, true, &a, e))
		return e->code;
	basm__free(&a);
	*listing_out = p.listing;
	*nr_insns = p.nr_insns;
	return 0;
}

static int load(struct user_str_prog *p, struct session *s, bool list, struct err *e)
{
	struct bpf_prog_info info = { 0 };
	uint32_t info_len = sizeof(info);
	struct basm a = { 0 };

	p->array_fd = bpf_map_create(BPF_MAP_TYPE_PERF_EVENT_ARRAY, "psql_ustr_out", 4, 4,
				     (uint32_t)s->nr_cpu_ids, NULL);
	p->scratch_fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "psql_ustr_buf", 4,
				       (uint32_t)p->size, 1, NULL);
	if ((p->array_fd < 0 || p->scratch_fd < 0) && (errno == EPERM || errno == EACCES))
		return err_set(e, -errno, "not permitted to create a BPF map (CAP_BPF, or root)");
	if (p->array_fd < 0 || p->scratch_fd < 0)
		return err_set(e, -errno, "cannot create a BPF map: %s", strerror(errno));
	if (build(p, s->self, list, &a, e))
		return e->code;
	p->prog_fd = bpf_prog_load(BPF_PROG_TYPE_TRACEPOINT, "perf_sql_ustr", "GPL", a.insn,
				   (size_t)a.nr, NULL);
	basm__free(&a);
	if (p->prog_fd < 0 && (errno == EPERM || errno == EACCES))
		return err_set(e, -errno,
			       "not permitted to load a BPF program (CAP_BPF and CAP_PERFMON, "
			       "or root)");
	if (p->prog_fd < 0)
		return err_set(e, -errno, "the kernel refused the BPF program (%d insns): %s",
			       p->nr_insns, strerror(errno));
	if (!bpf_obj_get_info_by_fd(p->prog_fd, &info, &info_len))
		p->prog_id = info.id;
	return 0;
}

int user_str__load(struct session *s, struct source *src, bool attach, struct err *e)
{
	struct user_strs *u = strs_of(s);
	struct user_str_prog *p;
	int ret;

	if (!u || !(p = realloc(u->progs, (size_t)(u->nr + 1) * sizeof(*p))))
		return err_set(e, -ENOMEM, "out of memory");
	u->progs = p;
	p = &u->progs[u->nr++];
	*p = (struct user_str_prog){
		.src = src, .array_fd = -1, .scratch_fd = -1, .prog_fd = -1, .perf_fd = -1
	};
	size_of(p);
	if (!(ret = load(p, s, !attach, e)) && attach &&
	    (p->perf_fd = bpf_attach_tracepoint(src->ev->id, s->cpu_num[0], p->prog_fd)) < 0)
		ret = err_set(e, p->perf_fd, "cannot attach the BPF program to %s: %s",
			      src->ev->full, strerror(-p->perf_fd));
	if (ret) { /* not this table's source then */
		prog_close(p);
		u->nr--;
	}
	return ret;
}

const struct user_str_prog *user_str__of(const struct session *s, const struct source *src)
{
	const struct user_strs *u = session__source_data(s, &user_str_source);

	for (int i = 0; u && i < u->nr; i++)
		if (u->progs[i].src == src)
			return &u->progs[i];
	return NULL;
}

/* after the rings opened: each CPU's output event goes in the program's array */
static int ustr_open(struct session *s, struct err *e)
{
	struct user_strs *u = session__source_data(s, &user_str_source);

	for (int i = 0; u && i < u->nr; i++) {
		struct user_str_prog *p = &u->progs[i];

		if (!p->src->evsel)
			continue;
		for (int c = 0; c < s->nr_cpus; c++) {
			uint32_t cpu = (uint32_t)s->cpu_num[c];
			int fd = evsel__fd(p->src->evsel, c, 0);

			if (bpf_map_update_elem(p->array_fd, &cpu, &fd, BPF_ANY))
				return err_set(e, -errno,
					       "%s: cannot put CPU %u's output event in the BPF "
					       "map: %s",
					       p->src->ev->full, cpu, strerror(errno));
		}
	}
	return 0;
}

static void ustr_close(struct session *s)
{
	struct user_strs *u = session__source_data(s, &user_str_source);

	for (int i = 0; u && i < u->nr; i++)
		prog_close(&u->progs[i]);
	if (u)
		free(u->progs);
	free(u);
	session__set_source_data(s, &user_str_source, NULL);
}

static void ustr_nothing(struct session *s) {}

const struct event_source_ops user_str_source = {
	.name = "user strings",
	.open = ustr_open,
	.enable = ustr_nothing,
	.disable = ustr_nothing,
	.drain = ustr_nothing,
	.read_counts = ustr_nothing,
	.close = ustr_close,
};
