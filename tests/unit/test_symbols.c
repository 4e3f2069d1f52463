/*
 * tests/unit/test_symbols.c - symbol lookup on fixture ELFs the tests build (the static
 * workloads): .symtab functions, file offsets for uprobes, objects for breakpoints, and a
 * process's mappings (this test's own) resolving its own functions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "symbols/stack.h"
#include "symbols/symbols.h"
#include "symbols/symtab.h"
#include "t.h"

static char burn[512], target[512];

__attribute__((noinline)) int test_symbols_marker(int x) { return x * 3 + 1; }

static void test_elf_symtab(void)
{
	struct symtab t = { 0 };
	int64_t bias = 0;
	uint64_t a = symbols__elf_address(burn, "burn_a", NULL), size = 0;
	const struct sym *s;

	T(elf_syms__load(burn, &t, &bias) == 0, "load %s", burn);
	T(t.nr > 100, "a static binary has many functions (%zu)", t.nr);
	T(a != 0, "burn_a has an address");
	s = symtab__find(&t, a + 1);
	T(s && !strcmp(s->name, "burn_a"), "burn_a+1 -> burn_a (%s)", s ? s->name : "NULL");
	s = symtab__find(&t, symbols__elf_address(burn, "main", &size) + size - 1);
	T(s && !strcmp(s->name, "main"), "the last byte of main is main");
	T(symtab__find(&t, 1) == NULL, "address 1 is nobody's");
	symtab__free(&t);
}

static void test_offsets(void)
{
	uint64_t off = symbols__elf_file_offset(target, "target_fn");
	uint64_t addr = symbols__elf_address(target, "target_fn", NULL);

	T(off != 0 && addr != 0, "target_fn: offset %#llx, address %#llx", (unsigned long long)off,
	  (unsigned long long)addr);
	T(addr - off == 0x400000, "static non-PIE: vaddr - offset is the 0x400000 base");
	T(symbols__elf_file_offset(target, "no_such_function") == 0, "unknown function: 0");
	T(symbols__elf_address("/nonexistent", "main", NULL) == 0, "missing file: 0");
}

static void test_own_process(void)
{
	struct symbols *sy = symbols__new();
	uint64_t off = 99;
	const char *dso = NULL;
	const char *name;

	symbols__note_pid(sy, (uint32_t)getpid());
	name = symbols__resolve(sy, (uint32_t)getpid(),
				(uint64_t)(uintptr_t)test_symbols_marker + 2, 0, &off, &dso);
	T(name && !strcmp(name, "test_symbols_marker") && off == 2,
	  "own function through /proc/self/maps (%s+%llu)", name ? name : "NULL",
	  (unsigned long long)off);
	T(dso && !strcmp(dso, "test_symbols"), "its file (%s)", dso ? dso : "NULL");
	symbols__free(sy);
}

static void test_stack_blob(void)
{
	uint64_t frames[] = { (uint64_t)-128 /* PERF_CONTEXT_KERNEL */,
			      0xffffffff81000010ull,
			      0xffffffff81000020ull,
			      (uint64_t)-512 /* PERF_CONTEXT_USER */,
			      0x401000,
			      0x402000 };
	struct stack_frame out[8];
	struct stack_view v;
	size_t len, n;
	void *b = stack_blob__new(7, 8, "burn", frames, 6, &len);

	T(b && stack_blob__view(b, len, &v) && v.pid == 7 && v.tid == 8 && v.nr == 6 &&
		  !strcmp(v.comm, "burn"),
	  "blob");
	n = stack_frames(&v, out, 8);
	T(n == 4, "4 frames without the markers (%zu)", n);
	T(out[0].addr == 0x402000 && !out[0].kernel, "outermost first: user's outer frame");
	T(out[1].addr == 0x401000 && out[1].leaf, "the user leaf");
	T(out[3].addr == 0xffffffff81000010ull && out[3].kernel && out[3].leaf, "kernel leaf last");
	T(!stack_blob__view("PSQLSTK0xxxxxxxxxxxxxxxxxxxxxxx", 32, &v), "wrong magic");
	free(b);
}

int main(void)
{
	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";

	snprintf(burn, sizeof(burn), "%s/workloads/burn", build);
	snprintf(target, sizeof(target), "%s/workloads/uprobe_target", build);
	if (access(burn, R_OK) || access(target, R_OK)) {
		printf("unit symbols: 0 passed, 0 failed (fixtures not built: make %s)\n", burn);
		return 0;
	}
	RUN(test_elf_symtab);
	RUN(test_offsets);
	RUN(test_own_process);
	RUN(test_stack_blob);
	return t_done("symbols");
}
