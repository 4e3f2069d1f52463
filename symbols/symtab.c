/*
 * symbols/symtab.c - sorted symbol tables and their loaders (see symbols/symtab.h).
 *
 * (1) Names live in one pool; sym.name holds an offset until symtab__finish() turns it into
 *     a pointer, so the pool may grow while loading.
 * (2) Lookup is a binary search for the last start <= addr; a sized symbol must contain addr.
 * (3) kallsyms: text symbols (t/T/w/W); zero addresses (non-root view) load nothing.
 * (4) ELF: STT_FUNC (and STT_GNU_IFUNC) symbols with a value; .symtab wins over .dynsym.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "symbols/symtab.h"

int symtab__add(struct symtab *t, uint64_t start, uint64_t size, const char *name)
{
	size_t n = strlen(name) + 1;

	if (t->nr == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 1024;
		void *p = realloc(t->syms, ncap * sizeof(*t->syms));

		if (!p)
			return -ENOMEM;
		t->syms = p;
		t->cap = ncap;
	}
	if (t->pool_len + n > t->pool_cap) {
		size_t ncap = t->pool_cap ? t->pool_cap * 2 : 65536;
		char *p;

		while (ncap < t->pool_len + n)
			ncap *= 2;
		p = realloc(t->pool, ncap);
		if (!p)
			return -ENOMEM;
		t->pool = p;
		t->pool_cap = ncap;
	}
	memcpy(t->pool + t->pool_len, name, n);
	t->syms[t->nr++] = (struct sym){ start, size, (const char *)(uintptr_t)t->pool_len };
	t->pool_len += n;
	return 0;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

void symtab__finish(struct symtab *t)
{
	for (size_t i = 0; i < t->nr; i++)
		t->syms[i].name = t->pool + (uintptr_t)t->syms[i].name;
	qsort(t->syms, t->nr, sizeof(*t->syms), cmp_sym);
}

const struct sym *symtab__find(const struct symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (t->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	if (t->syms[lo - 1].size && addr >= t->syms[lo - 1].start + t->syms[lo - 1].size)
		return NULL;
	return &t->syms[lo - 1];
}

void symtab__free(struct symtab *t)
{
	free(t->syms);
	free(t->pool);
	memset(t, 0, sizeof(*t));
}

int kallsyms__load(struct symtab *t)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], name[256], mod[128], type;
	unsigned long long addr;
	int ret = 0;

	if (!f)
		return -errno;
	while (!ret && fgets(line, sizeof(line), f)) {
		int n = sscanf(line, "%llx %c %255s [%127[^]]]", &addr, &type, name, mod);

		if (n < 3 || !addr || !strchr("tTwW", type))
			continue;
		if (n == 4) {
			char full[400];

			snprintf(full, sizeof(full), "%s [%s]", name, mod);
			ret = symtab__add(t, addr, 0, full);
		} else {
			ret = symtab__add(t, addr, 0, name);
		}
	}
	fclose(f);
	symtab__finish(t);
	return ret;
}

static int load_section(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh, struct symtab *t)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	int ret = 0;

	for (size_t i = 0; data && !ret && i < n; i++) {
		GElf_Sym sym;
		const char *name;
		int type;

		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || !sym.st_value)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (name && *name)
			ret = symtab__add(t, sym.st_value, sym.st_size, name);
	}
	return ret;
}

int elf_syms__load(const char *path, struct symtab *t, int64_t *load_bias_out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = -EINVAL;
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	GElf_Shdr sh;
	size_t nph;
	Elf *elf;

	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		goto out;
	*load_bias_out = 0;
	if (!elf_getphdrnum(elf, &nph))
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
				*load_bias_out = (int64_t)(ph.p_vaddr - ph.p_offset);
				break;
			}
		}
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh)) {
			if (sh.sh_type == SHT_SYMTAB)
				symtab = scn;
			else if (sh.sh_type == SHT_DYNSYM)
				dynsym = scn;
		}
	ret = 0;
	if ((symtab || dynsym) && gelf_getshdr(symtab ? symtab : dynsym, &sh))
		ret = load_section(elf, symtab ? symtab : dynsym, &sh, t);
	symtab__finish(t);
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}
