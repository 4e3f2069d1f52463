/*
 * tests/unit/test_bpf_facts.c - the offline compiler's pieces (numbers refer to their headers):
 * bpf/facts.c reading a file of kernel facts (2) and answering as the kernel's BTF would (1),
 * a bad line or a missing file one error naming it; bpf/syscall.c's table and record layout;
 * bpf/listing.c printing instructions as bpftool does, maps by name (2), BTF notes and a
 * varying immediate by its name; and the same listing whether the facts come from the file
 * or the running kernel the file was written on (tests/bpf/fixture, when this is that kernel).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/btf.h>
#include "bpf/facts.h"
#include "bpf/listing.h"
#include "bpf/syscall.h"
#include "core/err.h"
#include "tests/unit/t.h"

static char path[] = "/tmp/perf-sql-facts-XXXXXX";

static void write_facts(const char *text)
{
	FILE *f = fopen(path, "w");

	fputs(text, f);
	fclose(f);
}

static void test_file(void)
{
	struct err e = { 0 };
	struct bpf_facts *f;
	int size = 0;

	write_facts("# a comment\nrelease 6.18.0\nnr_cpu_ids 4\n\nperf_event_max_stack 64\n"
		    "btf_type typedef btf_trace_sys_enter 4242\n"
		    "btf_member pt_regs di 112 8\nbtf_member task_struct comm 1752 16\n");
	f = bpf_facts__open(path, &e);
	T(f != NULL, "a good file reads: %s", e.msg);
	if (!f)
		return;
	T(bpf_facts__nr_cpu_ids(f) == 4, "nr_cpu_ids");
	T(bpf_facts__max_stack(f) == 64, "perf_event_max_stack");
	T(bpf_facts__type_id(f, "btf_trace_sys_enter", BTF_KIND_TYPEDEF) == 4242, "a type's id");
	T(bpf_facts__type_id(f, "btf_trace_sys_enter", BTF_KIND_STRUCT) == -ENOENT,
	  "a type of another kind: none");
	T(bpf_facts__member(f, "pt_regs", "di", &size) == 112 && size == 8, "a member");
	T(bpf_facts__member(f, "task_struct", "comm", &size) == 1752 && size == 16, "char[16]");
	T(bpf_facts__member(f, "task_struct", "cpu", &size) == -ENOENT, "a member not listed");
	T(!strcmp(bpf_facts__origin(f), path), "the origin is the file");
	bpf_facts__free(f);
}

static void test_bad(void)
{
	struct err e = { 0 };

	write_facts("nr_cpu_ids 2\nbtf_member pt_regs di\n");
	T(!bpf_facts__open(path, &e) && e.code == -EINVAL, "a short member line is refused");
	T(strstr(e.msg, ":2: not a kernel fact: 'btf_member pt_regs di'") != NULL,
	  "the line is named: %s", e.msg);
	e = (struct err){ 0 };
	write_facts("nr_cpu_ids zero\n");
	T(!bpf_facts__open(path, &e) && strstr(e.msg, ":1: ") != NULL, "a bad count: %s", e.msg);
	e = (struct err){ 0 };
	T(!bpf_facts__open("/nonexistent/facts", &e) && e.code == -ENOENT && e.hint &&
		  strstr(e.hint, "scripts/kernel-facts.sh"),
	  "a missing file says how to write one");
}

static void test_syscalls(void)
{
	T(bpf_syscall__nr("write") == 1 && bpf_syscall__nr("exit_group") == 231, "numbers");
	T(bpf_syscall__nr("newfstat") == -1 && bpf_syscall__nr(NULL) == -1, "no such name");
	T(!strcmp(bpf_syscall__name(0), "read") && !bpf_syscall__name(-1) &&
		  !bpf_syscall__name(400) && !bpf_syscall__name(1 << 20),
	  "names, gaps and the table's end");
	T(bpf_syscall__field(true, 8, 4) == BPF_SYSF_NR, "__syscall_nr");
	T(bpf_syscall__field(true, 16, 8) == BPF_SYSF_ARG0, "args[0]");
	T(bpf_syscall__field(true, 56, 8) == BPF_SYSF_ARG0 + 5, "args[5]");
	T(bpf_syscall__field(true, 64, 8) == BPF_SYSF_NONE, "no args[6]");
	T(bpf_syscall__field(true, 20, 4) == BPF_SYSF_NONE, "not an argument's bytes");
	T(bpf_syscall__field(false, 16, 8) == BPF_SYSF_RET, "ret");
	T(bpf_syscall__field(false, 24, 8) == BPF_SYSF_NONE, "sys_exit has nothing past ret");
	T(!strcmp(bpf_syscall__arg_reg(3), "r10") && !bpf_syscall__arg_reg(6), "arg registers");
}

static void test_print(void)
{
	const struct bpf_map_name names[1] = { { 7, "ctl" } };
	struct basm a = { 0 };
	char *text = NULL;
	int out = basm__label(&a);

	basm__emit(&a, bi_mov64_reg(BPF_REG_6, BPF_REG_1));
	basm__ld_map_value(&a, BPF_REG_1, 7, 8);
	basm__note(&a, false, "pt_regs.di");
	basm__emit(&a, bi_ldx(BPF_DW, BPF_REG_2, BPF_REG_1, 112));
	basm__note(&a, true, "self_tid");
	basm__jmp32_imm(&a, BPF_JEQ, BPF_REG_0, 4321, out);
	basm__emit(&a, bi_stx(BPF_W, BPF_REG_10, BPF_REG_0, -28));
	basm__emit(&a, bi_call(BPF_FUNC_get_current_pid_tgid));
	basm__place(&a, out);
	basm__emit(&a, bi_exit());
	T(!basm__finish(&a) && !bpf_listing__insns(&a, "the", names, 1, &text) && text, "listed");
	T(text && !strcmp(text, "the program, 8 insns:\n"
				"     0: (bf) r6 = r1\n"
				"     1: (18) r1 = map[ctl][0]+8\n"
				"     3: (79) r2 = *(u64 *)(r1 +112)              ; pt_regs.di\n"
				"     4: (16) if w0 == self_tid goto pc+2\n"
				"     5: (63) *(u32 *)(r10 -28) = r0\n"
				"     6: (85) call bpf_get_current_pid_tgid#14\n"
				"     7: (95) exit\n"),
	  "as bpftool prints it:\n%s", text ? text : "");
	free(text);
	basm__free(&a);
}

/* the fixture's listing of a plan is the running kernel's when this is the fixture's kernel */
static void test_same(void)
{
	struct bpf_plan p = { .nr_keys = 1,
			      .where_root = -1,
			      .tree_fd = -1,
			      .nr_cpu_ids = 2,
			      .hook = BPF_HOOK_SYS_ENTER,
			      .syscall_nr = 1,
			      .max_groups = 64 };
	struct bpf_listing a, b;
	struct err e = { 0 };
	const struct bpf_facts *k = bpf_facts__kernel(NULL);
	struct bpf_facts *f = bpf_facts__open("tests/bpf/fixture/facts", &e);
	char release[128] = "", line[160];
	FILE *r = fopen("tests/bpf/fixture/facts", "r");

	while (r && fgets(line, sizeof(line), r))
		sscanf(line, "release %127s", release);
	if (r)
		fclose(r);
	p.keys[0] = (struct bpf_val){ .col = BCOL_FIELD, .off = 16, .size = 8 };
	T(f != NULL, "the fixture reads: %s", e.msg);
	if (f && !bpf_listing__plan(&p, 1, f, &a, &e)) {
		T(strstr(a.text, "; pt_regs.di") != NULL, "args[0] from pt_regs.di:\n%s", a.text);
		if (k && !bpf_listing__plan(&p, 1, k, &b, &e)) {
			FILE *u = popen("uname -r", "r");
			char now[128] = "";

			if (u && fgets(now, sizeof(now), u))
				now[strcspn(now, "\n")] = '\0';
			if (u)
				pclose(u);
			T(strcmp(now, release) || !strcmp(a.text, b.text),
			  "the fixture's kernel: the same listing");
			bpf_listing__free(&b);
		}
		bpf_listing__free(&a);
	} else {
		T(false, "the fixture lists a plan: %s", e.msg);
	}
	bpf_facts__free(f);
}

/* the BTF facts a capture records (bpf_facts__write) read back, and on the fixture's kernel are
 * the fixture's: scripts/kernel-facts.sh and bpf/facts.c ask the same questions */
static void test_write(void)
{
	const struct bpf_facts *k = bpf_facts__kernel(NULL);
	char *buf = NULL, line[160], release[128] = "", now[128] = "";
	struct bpf_facts *back = NULL;
	struct err e = { 0 };
	size_t len = 0;
	FILE *o, *r, *u;
	int n = 0;

	if (!k)
		return; /* no BTF here: nothing to write */
	o = open_memstream(&buf, &len);
	T(o && !bpf_facts__write(k, 2, o) && !fclose(o), "written");
	if (buf)
		back = bpf_facts__parse(buf, "written", &e);
	T(back && bpf_facts__nr_cpu_ids(back) == 2 &&
		  bpf_facts__max_stack(back) == bpf_facts__max_stack(k),
	  "what is written reads back: %s", e.msg);
	bpf_facts__free(back);
	if ((u = popen("uname -r", "r"))) {
		if (fgets(now, sizeof(now), u))
			now[strcspn(now, "\n")] = '\0';
		pclose(u);
	}
	r = fopen("tests/bpf/fixture/facts", "r");
	while (r && buf && fgets(line, sizeof(line), r)) {
		sscanf(line, "release %127s", release); /* before the btf_ lines */
		if (!strncmp(line, "btf_", 4) && !strcmp(release, now) && ++n)
			T(strstr(buf, line) != NULL, "the fixture's %.*s is written too",
			  (int)strcspn(line, "\n"), line);
	}
	if (r)
		fclose(r);
	T(n == 0 || n >= 10, "the fixture's kernel: %d BTF facts compared", n);
	free(buf);
}

int main(void)
{
	int fd = mkstemp(path);

	if (fd >= 0)
		close(fd);
	RUN(test_file);
	RUN(test_bad);
	RUN(test_syscalls);
	RUN(test_print);
	RUN(test_same);
	RUN(test_write);
	unlink(path);
	return t_done("bpf_facts");
}
