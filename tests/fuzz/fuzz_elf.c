/*
 * tests/fuzz/fuzz_elf.c - the ELF symbolizer (symbols/symtab.c, libelf) on in-memory images:
 * the input is an ELF file, handed to elf_syms__load() as /proc/self/fd/N of a memfd (the
 * loader takes a path, as it does for /proc/PID/root/...); then lookups of each symbol's start
 * and of addresses from the input's first bytes.
 * (1) Loading never crashes or over-reads, whatever the headers claim.
 * (2) Every loaded symbol is found at its own start (a symbol of the same start may win).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "symbols/symtab.h"
#include "fuzz.h"

int FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	struct symtab t = { 0 };
	struct fz f = { data, size };
	char path[64];
	int64_t bias = 0;
	int fd = memfd_create("fuzz-elf", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (elf_syms__load(path, &t, &bias) == 0) {
		for (size_t i = 0; i < t.nr; i++) {
			const struct sym *s = symtab__find(&t, t.syms[i].start);

			FUZZ_ASSERT(s && s->start == t.syms[i].start && s->name);
			(void)strlen(s->name);
		}
		for (int i = 0; i < 8; i++)
			symtab__find(&t, fz_u64(&f));
	}
	symtab__free(&t);
	close(fd);
	return 0;
}
