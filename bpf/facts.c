/*
 * bpf/facts.c - the kernel facts the compiler asks for (see bpf/facts.h).
 *
 * HOW IT WORKS: a provider is either the running kernel's parsed BTF (struct kernel_btf,
 * bpf/kernel_btf.c), asked each time, or the lines of a file of facts, kept as they are and
 * looked up by name. Both answer the same two questions the compiler has (a type's id, a
 * member's offset and size) with the same rules, so a listing made from a file of facts is
 * the one made on the kernel the file was written on.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/btf.h>
#include "bpf/facts.h"
#include "bpf/kernel_btf.h"
#include "bpf/sched_btf.h"
#include "bpf/table.h"
#include "core/err.h"
#include "core/tracefs.h"

#define MAX_FACTS 256

struct bpf_fact {
	char kind[12]; /* "typedef", ..., or "member" */
	char type[48], name[48];
	int a, b; /* type: id; member: offset, size */
};

struct bpf_facts {
	const struct kernel_btf *btf; /* the running kernel's, or */
	struct bpf_fact *facts;       /* a file's */
	int nr_facts;
	int max_stack, nr_cpu_ids;
	char origin[256];
};

static const char *const kinds[] = {
	[BTF_KIND_INT] = "int",       [BTF_KIND_PTR] = "ptr",         [BTF_KIND_ARRAY] = "array",
	[BTF_KIND_STRUCT] = "struct", [BTF_KIND_UNION] = "union",     [BTF_KIND_ENUM] = "enum",
	[BTF_KIND_FWD] = "fwd",       [BTF_KIND_TYPEDEF] = "typedef", [BTF_KIND_FUNC] = "func",
};

static const char *kind_name(int kind)
{
	return kind > 0 && kind < (int)(sizeof(kinds) / sizeof(kinds[0])) && kinds[kind]
		       ? kinds[kind]
		       : "?";
}

static struct {
	pthread_once_t once;
	struct bpf_facts facts;
	struct err err;
} kernel = { .once = PTHREAD_ONCE_INIT };

static void kernel_open(void)
{
	kernel.facts.btf = kernel_btf__vmlinux(&kernel.err);
	kernel.facts.max_stack = bpf_stack__max_depth(); /* bpf/stack.c reads it */
	snprintf(kernel.facts.origin, sizeof(kernel.facts.origin), "/sys/kernel/btf/vmlinux");
}

const struct bpf_facts *bpf_facts__kernel(struct err *e)
{
	pthread_once(&kernel.once, kernel_open);
	if (!kernel.facts.btf && e)
		*e = kernel.err;
	return kernel.facts.btf ? &kernel.facts : NULL;
}

/* one line of the file into f; 0, or -EINVAL */
static int parse_line(struct bpf_facts *f, const char *line)
{
	struct bpf_fact *x = &f->facts[f->nr_facts];
	char word[32];
	int n = 0;

	if (sscanf(line, "%31s%n", word, &n) != 1 || word[0] == '#')
		return 0;
	if (!strcmp(word, "release"))
		return 0;
	if (!strcmp(word, "nr_cpu_ids"))
		return sscanf(line + n, "%d", &f->nr_cpu_ids) == 1 && f->nr_cpu_ids > 0 ? 0
											: -EINVAL;
	if (!strcmp(word, "perf_event_max_stack"))
		return sscanf(line + n, "%d", &f->max_stack) == 1 && f->max_stack > 0 ? 0 : -EINVAL;
	if (f->nr_facts == MAX_FACTS)
		return -E2BIG;
	if (!strcmp(word, "btf_type") &&
	    sscanf(line + n, "%11s %47s %d", x->kind, x->name, &x->a) == 3) {
		f->nr_facts++;
		return 0;
	}
	if (!strcmp(word, "btf_member") &&
	    sscanf(line + n, "%47s %47s %d %d", x->type, x->name, &x->a, &x->b) == 4) {
		snprintf(x->kind, sizeof(x->kind), "member");
		f->nr_facts++;
		return 0;
	}
	return -EINVAL;
}

struct bpf_facts *bpf_facts__parse(const char *text, const char *origin, struct err *e)
{
	struct bpf_facts *f = calloc(1, sizeof(*f));
	char *buf = strdup(text), *line, *end;
	int ret, nr = 0;

	if (!f || !buf || !(f->facts = calloc(MAX_FACTS, sizeof(*f->facts)))) {
		err_set(e, -ENOMEM, "out of memory");
		goto fail;
	}
	f->max_stack = 127;
	snprintf(f->origin, sizeof(f->origin), "%s", origin);
	for (line = buf; line && *line; line = end) {
		if ((end = strchr(line, '\n')))
			*end++ = '\0';
		nr++;
		if ((ret = parse_line(f, line))) {
			err_set(e, ret, "%s:%d: %s: '%.60s'", origin, nr,
				ret == -E2BIG ? "more than 256 facts" : "not a kernel fact", line);
			goto fail;
		}
	}
	free(buf);
	return f;
fail:
	free(buf);
	bpf_facts__free(f);
	return NULL;
}

struct bpf_facts *bpf_facts__open(const char *path, struct err *e)
{
	struct bpf_facts *f;
	char *buf = NULL;
	int ret;

	if ((ret = read_file(path, &buf, NULL))) {
		err_set(e, ret, "%s: %s", path, strerror(-ret));
		err_hint(e, "write one with scripts/kernel-facts.sh DIR (as root, on the kernel)");
		return NULL;
	}
	f = bpf_facts__parse(buf, path, e);
	free(buf);
	return f;
}

/* what bpf/regs.c and bpf/sched_btf.c ask (scripts/kernel-facts.sh asks the same): the raw
 * tracepoints of the system calls, then bpf_sched_btf__names()' */
static const char *const wanted_types[] = { "sys_enter", "sys_exit" };
static const struct {
	const char *type, *member;
} wanted_members[] = {
	{ "pt_regs", "di" },
	{ "pt_regs", "si" },
	{ "pt_regs", "dx" },
	{ "pt_regs", "r10" },
	{ "pt_regs", "r8" },
	{ "pt_regs", "r9" },
	{ "pt_regs", "orig_ax" },
	{ "task_struct", "thread_info" },
	{ "task_struct", "comm" },
	{ "task_struct", "pid" },
	{ "task_struct", "prio" },
	{ "task_struct", "cpu" },
	{ "thread_info", "status" },
	{ "thread_info", "cpu" },
	{ "task_struct", "exit_state" },
};

int bpf_facts__write(const struct bpf_facts *f, int nr_cpu_ids, FILE *out)
{
	const char *types[64] = { wanted_types[0], wanted_types[1] };
	int nr_types = 2 + bpf_sched_btf__names(types + 2, 62);
	char name[64];
	int id, off, size;

	fprintf(out, "# kernel facts for perf-sql's BPF compiler (bpf/facts.h), from %s\n",
		f->origin);
	fprintf(out, "nr_cpu_ids %d\nperf_event_max_stack %d\n", nr_cpu_ids, f->max_stack);
	for (int i = 0; i < nr_types; i++) {
		snprintf(name, sizeof(name), "btf_trace_%s", types[i]);
		if ((id = bpf_facts__type_id(f, name, BTF_KIND_TYPEDEF)) > 0)
			fprintf(out, "btf_type typedef %s %d\n", name, id);
	}
	for (size_t i = 0; i < sizeof(wanted_members) / sizeof(wanted_members[0]); i++)
		if ((off = bpf_facts__member(f, wanted_members[i].type, wanted_members[i].member,
					     &size)) >= 0)
			fprintf(out, "btf_member %s %s %d %d\n", wanted_members[i].type,
				wanted_members[i].member, off, size);
	return ferror(out) ? -EIO : 0;
}

void bpf_facts__free(struct bpf_facts *f)
{
	if (!f || f == &kernel.facts)
		return;
	free(f->facts);
	free(f);
}

int bpf_facts__type_id(const struct bpf_facts *f, const char *name, int kind)
{
	if (f->btf)
		return kernel_btf__find(f->btf, name, kind);
	for (int i = 0; i < f->nr_facts; i++)
		if (!strcmp(f->facts[i].kind, kind_name(kind)) && !strcmp(f->facts[i].name, name))
			return f->facts[i].a;
	return -ENOENT;
}

int bpf_facts__member(const struct bpf_facts *f, const char *type, const char *name, int *size_out)
{
	struct kernel_btf_member m;

	if (f->btf) {
		if (kernel_btf__member(f->btf, BTF_KIND_STRUCT, type, name, &m) ||
		    m.bitfield_size || m.bit_off % 8)
			return -ENOENT;
		*size_out = kernel_btf__size(f->btf, m.type);
		return (int)(m.bit_off / 8);
	}
	for (int i = 0; i < f->nr_facts; i++)
		if (!strcmp(f->facts[i].kind, "member") && !strcmp(f->facts[i].type, type) &&
		    !strcmp(f->facts[i].name, name)) {
			*size_out = f->facts[i].b;
			return f->facts[i].a;
		}
	return -ENOENT;
}

int bpf_facts__max_stack(const struct bpf_facts *f) { return f->max_stack; }
int bpf_facts__nr_cpu_ids(const struct bpf_facts *f) { return f->nr_cpu_ids; }
const char *bpf_facts__origin(const struct bpf_facts *f) { return f->origin; }
