/*
 * tests/unit/test_unwind.c - the CFI unwinder on this test's own stack, no privileges needed:
 * uw_a -> uw_b -> uw_c -> uw_snap take the registers and a copy of the stack as
 * PERF_SAMPLE_REGS_USER / STACK_USER would (this file is built -O2: no frame pointers), then
 * unwind__user() must name every frame up to _start; plus the DWARF expression cases CFI uses
 * (PLT entries), the chain splice of --call-graph auto, and empty or short copies.
 */
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <linux/perf_event.h>
#include "core/session.h"
#include "symbols/symbols.h"
#include "symbols/unwind.h"
#include "t.h"

/* UPROBE_REGS_MASK order: ax bx cx dx si di bp sp ip r8..r15 */
enum { S_BX = 1, S_BP = 6, S_SP = 7, S_IP = 8, S_R12 = 13, NR_SLOTS = 17 };

struct snap {
	uint64_t regs[NR_SLOTS];
	uint8_t stack[8192];
	size_t len;
};

static struct snap snap;

static uint64_t stack_end(uint64_t sp)
{
	unsigned long long lo, hi;
	char line[512];
	uint64_t end = sp;
	FILE *f = fopen("/proc/self/maps", "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx", &lo, &hi) == 2 && sp >= lo && sp < hi)
			end = hi;
	if (f)
		fclose(f);
	return end;
}

/* the stack as the kernel copies it, redzones and all (ASan must not check this read) */
__attribute__((no_sanitize_address, noinline)) static void raw_copy(uint8_t *dst,
								    const uint8_t *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = ((const volatile uint8_t *)src)[i];
}

/* The registers at label 1, then the stack from rsp up: what the kernel samples. Callee-saved
 * registers are read where they are live, so the CFI of uw_snap describes them exactly. */
__attribute__((noinline, noclone)) static void uw_snap(struct snap *s)
{
	uint64_t end;

	asm volatile("lea 1f(%%rip), %%rax\n\t"
		     "mov %%rax, 64(%0)\n\t"
		     "1:\n\t"
		     "mov %%rsp, 56(%0)\n\t"
		     "mov %%rbp, 48(%0)\n\t"
		     "mov %%rbx, 8(%0)\n\t"
		     "mov %%r12, 104(%0)\n\t"
		     "mov %%r13, 112(%0)\n\t"
		     "mov %%r14, 120(%0)\n\t"
		     "mov %%r15, 128(%0)\n\t"
		     :
		     : "r"(s->regs)
		     : "rax", "memory");
	end = stack_end(s->regs[S_SP]);
	s->len = end - s->regs[S_SP] < sizeof(s->stack) ? end - s->regs[S_SP] : sizeof(s->stack);
	raw_copy(s->stack, (const uint8_t *)s->regs[S_SP], s->len);
}

volatile int uw_sink;

__attribute__((noinline, noclone)) int uw_c(int x)
{
	volatile char pad[24] = { (char)x };

	uw_snap(&snap);
	return pad[0] + uw_sink;
}

__attribute__((noinline, noclone)) int uw_b(int x)
{
	volatile char pad[72] = { (char)x };
	int r = uw_c(x + pad[1]);

	return r + pad[2];
}

__attribute__((noinline, noclone)) int uw_a(int x)
{
	volatile char pad[300] = { (char)x };
	int r = uw_b(x + pad[3]);

	return r + pad[4];
}

static const char *name_of(struct symbols *sy, uint64_t addr, bool leaf)
{
	return symbols__resolve(sy, (uint32_t)getpid(), leaf ? addr : addr - 1, 0, NULL, NULL);
}

static void test_own_stack(void)
{
	static const char *const want[] = { "uw_snap", "uw_c", "uw_b", "uw_a", "test_own_stack" };
	struct symbols *sy = symbols__new();
	uint64_t out[64];
	size_t n;
	bool clean;

	uw_sink = uw_a(1);
	T(snap.len > 512, "a stack copy (%zu bytes)", snap.len);
	n = unwind__user(sy, (uint32_t)getpid(), snap.regs, snap.stack, snap.len, out, 64, &clean);
	for (size_t i = 0; i < 5; i++) {
		const char *got = i < n ? name_of(sy, out[i], i == 0) : NULL;

		T(got && !strcmp(got, want[i]), "frame %zu: %s (got %s)", i, want[i],
		  got ? got : "-");
	}
	T(n >= 8 && clean, "the walk ends cleanly at _start (%zu frames, clean %d)", n, clean);
	T(n && !strcmp(name_of(sy, out[n - 1], false) ?: "", "_start"), "outermost is _start (%s)",
	  n ? name_of(sy, out[n - 1], false) : "-");
	n = unwind__user(sy, (uint32_t)getpid(), snap.regs, snap.stack, 16, out, 64, &clean);
	T(n >= 1 && n < 4 && !clean, "a 16-byte copy stops early, not cleanly (%zu)", n);
	n = unwind__user(sy, (uint32_t)getpid(), snap.regs, snap.stack, snap.len, out, 3, &clean);
	T(n == 3 && !clean, "max frames is respected");
	T(unwind__user(sy, (uint32_t)getpid(), NULL, NULL, 0, out, 64, &clean) == 0,
	  "no registers (a kernel thread): no frames");
	symbols__free(sy);
}

/* unwind__chain: the kernel part kept, user frames unwound; with the fp walk present (auto),
 * the CFI walk wins when it reaches _start */
static void test_chain(void)
{
	struct symbols *sy = symbols__new();
	uint64_t cc[6] = { (uint64_t)PERF_CONTEXT_KERNEL,
			   0xffffffff81000010ull,
			   (uint64_t)PERF_CONTEXT_USER,
			   snap.regs[S_IP],
			   0x2,
			   0x3 };
	struct sample smp = { .pid = (uint32_t)getpid(),
			      .stack = cc,
			      .nr_stack = 6,
			      .regs = snap.regs,
			      .nr_regs = NR_SLOTS,
			      .user_stack = snap.stack,
			      .user_stack_size = snap.len };
	uint64_t out[64];
	size_t n = unwind__chain(sy, &smp, out, 64);
	struct unwind_stats st;

	T(n >= 11 && out[0] == (uint64_t)PERF_CONTEXT_KERNEL && out[1] == cc[1] &&
		  out[2] == (uint64_t)PERF_CONTEXT_USER && out[3] == snap.regs[S_IP],
	  "kernel part, marker, then the unwound user frames (%zu)", n);
	T(n >= 5 && out[4] != 0x2, "the CFI walk, not the fp chain's garbage");
	smp.user_stack_size = 0;
	smp.user_stack = NULL;
	n = unwind__chain(sy, &smp, out, 64);
	/* uw_snap leaves rbp alone, so the step to 0x2 holds; 0x2 is in no mapping: cut there */
	T(n == 5 && out[3] == snap.regs[S_IP] && out[4] == 0x2,
	  "no copy: the fp chain is cut after the first frame it cannot vouch for (%zu)", n);
	symbols__unwind_stats(sy, &st);
	T(st.samples == 2 && st.clean == 1, "stats: 2 samples, 1 clean (%llu, %llu)",
	  (unsigned long long)st.samples, (unsigned long long)st.clean);
	symbols__free(sy);
}

/* __vdso_clock_gettime's run-time address in this process, from the vDSO image's .dynsym */
static uint64_t vdso_func(void)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	Elf *elf;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	uint64_t addr = 0;

	elf_version(EV_CURRENT);
	elf = base ? elf_memory((char *)base, 1 << 16) : NULL;
	while (elf && !addr && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *d = elf_getdata(scn, NULL);

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !d)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;

			if (gelf_getsym(d, (int)i, &sym) &&
			    (n = elf_strptr(elf, sh.sh_link, sym.st_name)) &&
			    !strcmp(n, "__vdso_clock_gettime"))
				addr = base + sym.st_value;
		}
	}
	if (elf)
		elf_end(elf);
	return addr;
}

/* [vdso] mappings are named from perf-sql's own vDSO image (symbols.c vdso_file) */
static void test_vdso(void)
{
	struct symbols *sy = symbols__new();
	uint64_t addr = vdso_func(), off = 0;
	const char *dso = NULL, *name;

	if (!getauxval(AT_SYSINFO_EHDR)) { /* valgrind maps no vDSO: nothing to name */
		printf("skip: no vDSO in this process (valgrind?)\n");
		symbols__free(sy);
		return;
	}
	T(addr != 0, "this process has a vDSO with __vdso_clock_gettime");
	name = symbols__resolve(sy, (uint32_t)getpid(), addr + 4, 0, &off, &dso);
	T(name && !strcmp(name, "__vdso_clock_gettime") && off == 4 && dso &&
		  !strcmp(dso, "[vdso]"),
	  "a vDSO address is named: %s+%llu (%s)", name ? name : "-", (unsigned long long)off,
	  dso ? dso : "-");
	symbols__free(sy);
}

int main(void)
{
	RUN(test_own_stack);
	RUN(test_vdso);
	RUN(test_chain);
	return t_done("unwind");
}
