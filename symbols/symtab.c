/*
 * symbols/symtab.c - sorted symbol tables and their loaders (see symbols/symtab.h).
 *
 * (1) Names live in one pool; sym.name holds an offset until symtab__finish() turns it into
 *     a pointer, so the pool may grow while loading.
 * (2) Lookup is a binary search for the last start <= addr; a sized symbol must contain addr.
 *     Of aliases, the name perf would print is last (cmp_sym).
 * (3) kallsyms: text symbols (t/T/w/W); zero addresses (non-root view) load nothing.
 * (4) ELF: STT_FUNC (and STT_GNU_IFUNC) symbols with a value; .symtab wins, then the
 *     separate debug file's (build-id, .gnu_debuglink, debuginfod cache: symbols/debuginfo.c),
 *     then MiniDebugInfo (.gnu_debugdata, xz) with .dynsym, then .dynsym alone. C++ (and
 *     legacy Rust) names are demangled.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <gelf.h>
#include <libelf.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "symbols/debuginfo.h"
#include "symbols/dso.h"
#include "symbols/symtab.h"

int symtab__add(struct symtab *t, uint64_t start, uint64_t size, const char *name)
{
	return symtab__add_elf(t, start, size, name, SYM_GLOBAL);
}

int symtab__add_elf(struct symtab *t, uint64_t start, uint64_t size, const char *name, int bind)
{
	const char *at = name[0] ? strchr(name + 1, '@') : NULL;
	size_t n = (at ? (size_t)(at - name) : strlen(name)) + 1;

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
	memcpy(t->pool + t->pool_len, name, n - 1);
	t->pool[t->pool_len + n - 1] = '\0';
	t->syms[t->nr++] = (struct sym){ start, size, (const char *)(uintptr_t)t->pool_len, bind };
	t->pool_len += n;
	return 0;
}

static int underscores(const char *name)
{
	int n = 0;

	while (name[n] == '_')
		n++;
	return n;
}

/* by address; of aliases (one address, several names), the one to print sorts last, as perf
 * picks it: global before local before weak, fewer leading underscores, the longer name */
static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	int ux, uy;
	size_t lx, ly;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->bind != y->bind)
		return x->bind > y->bind ? -1 : 1;
	ux = underscores(x->name);
	uy = underscores(y->name);
	if (ux != uy)
		return ux > uy ? -1 : 1;
	lx = strlen(x->name);
	ly = strlen(y->name);
	if (lx != ly)
		return lx < ly ? -1 : 1;
	return strcmp(x->name, y->name);
}

void symtab__finish(struct symtab *t)
{
	if (!t->nr)
		return;
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
	if (t->syms[lo - 1].size && addr - t->syms[lo - 1].start >= t->syms[lo - 1].size)
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
		int bind = type == 't' ? SYM_LOCAL : type == 'T' ? SYM_GLOBAL : SYM_WEAK;

		if (n < 3 || !addr || !strchr("tTwW", type))
			continue;
		if (n == 4) {
			char full[400];

			snprintf(full, sizeof(full), "%s [%s]", name, mod);
			ret = symtab__add_elf(t, addr, 0, full, bind);
		} else {
			ret = symtab__add_elf(t, addr, 0, name, bind);
		}
	}
	fclose(f);
	symtab__finish(t);
	return ret;
}

/* libstdc++'s demangler, opened at a section's first mangled name: most runs name no C++
 * function, and linking libstdc++ cost every run ~4,300 relocations at load. RTLD_NODELETE
 * keeps it loaded, so each later section's dlopen() only counts a reference. */
typedef char *(*demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

struct demangler {
	void *lib;
	demangle_fn fn;
	bool tried;
};

static const char *demangled(struct demangler *d, const char *name, char **to_free);

static int load_section(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh, struct symtab *t)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	struct demangler d = { 0 };
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
		if (name && *name) {
			char *dm;

			int bind = GELF_ST_BIND(sym.st_info);

			ret = symtab__add_elf(t, sym.st_value, sym.st_size,
					      demangled(&d, name, &dm),
					      bind == STB_WEAK    ? SYM_WEAK
					      : bind == STB_LOCAL ? SYM_LOCAL
								  : SYM_GLOBAL);
			free(dm);
		}
	}
	if (d.lib)
		dlclose(d.lib);
	return ret;
}

/* C++ and Rust (legacy mangling is Itanium's) names, through libstdc++'s demangler; mangled
 * as they are if libstdc++ is not installed */
static const char *demangled(struct demangler *d, const char *name, char **to_free)
{
	int status = -1;

	*to_free = NULL;
	if (strncmp(name, "_Z", 2))
		return name;
	if (!d->tried) {
		d->tried = true;
		d->lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL | RTLD_NODELETE);
		d->fn = d->lib ? (demangle_fn)dlsym(d->lib, "__cxa_demangle") : NULL;
	}
	if (!d->fn)
		return name;
	*to_free = d->fn(name, NULL, NULL, &status);
	return status == 0 && *to_free ? *to_free : name;
}

struct elf_scns {
	Elf_Scn *symtab, *dynsym, *debugdata;
};

static void find_sections(Elf *elf, struct elf_scns *out)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	memset(out, 0, sizeof(*out));
	if (elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (sh.sh_type == SHT_SYMTAB)
			out->symtab = scn;
		else if (sh.sh_type == SHT_DYNSYM)
			out->dynsym = scn;
		else if (name && !strcmp(name, ".gnu_debugdata"))
			out->debugdata = scn;
	}
}

static int load_scn(Elf *elf, Elf_Scn *scn, struct symtab *t)
{
	GElf_Shdr sh;

	return scn && gelf_getshdr(scn, &sh) ? load_section(elf, scn, &sh, t) : 0;
}

/* the .symtab of the separate debug file (symbols/debuginfo.c), if there is one */
static int load_debug_file(Elf *elf, const char *path, struct symtab *t)
{
	char dbg_path[4096];
	int fd, ret = -ENOENT;
	struct elf_scns s;
	Elf *dbg;

	if (debuginfo__find(elf, path, dbg_path, sizeof(dbg_path)))
		return -ENOENT;
	fd = dso__open_file(dbg_path);
	if (fd < 0)
		return fd;
	dbg = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (dbg) {
		find_sections(dbg, &s);
		ret = s.symtab ? load_scn(dbg, s.symtab, t) : -ENOENT;
		elf_end(dbg);
	}
	close(fd);
	return ret;
}

/* MiniDebugInfo: an xz-compressed ELF in .gnu_debugdata whose .symtab has the local functions */
static int load_minidebuginfo(Elf *elf, Elf_Scn *scn, struct symtab *t)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	lzma_stream strm = LZMA_STREAM_INIT;
	size_t cap = 1 << 20;
	uint8_t *out = malloc(cap);
	int ret = -EINVAL;
	Elf *mini;
	struct elf_scns s;

	if (!data || !out || lzma_stream_decoder(&strm, 256 << 20, 0) != LZMA_OK)
		goto out;
	strm.next_in = data->d_buf;
	strm.avail_in = data->d_size;
	strm.next_out = out;
	strm.avail_out = cap;
	for (;;) {
		lzma_ret r = lzma_code(&strm, LZMA_FINISH);

		if (r == LZMA_STREAM_END)
			break;
		if (r != LZMA_OK || cap > (64u << 20))
			goto out;
		if (!strm.avail_out) {
			uint8_t *n = realloc(out, cap * 2);

			if (!n)
				goto out;
			out = n;
			strm.next_out = out + cap;
			strm.avail_out = cap;
			cap *= 2;
		}
	}
	mini = elf_memory((char *)out, strm.total_out);
	if (mini) {
		find_sections(mini, &s);
		ret = s.symtab ? load_scn(mini, s.symtab, t) : -ENOENT;
		elf_end(mini);
	}
out:
	lzma_end(&strm);
	free(out);
	return ret;
}

int elf_syms__load(const char *path, struct symtab *t, int64_t *load_bias_out)
{
	int fd = dso__open_file(path), ret = -EINVAL;
	struct elf_scns s;
	size_t nph;
	Elf *elf;

	if (fd < 0)
		return fd;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		goto out;
	*load_bias_out = 0;
	if (!elf_getphdrnum(elf, &nph))
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    (ph.p_flags & PF_X)) {
				*load_bias_out = (int64_t)(ph.p_vaddr - ph.p_offset);
				break;
			}
		}
	find_sections(elf, &s);
	/* the best table there is: .symtab; else the debug file's, else MiniDebugInfo (with
	 * .dynsym: it holds only what .dynsym lacks), else .dynsym alone */
	if (s.symtab)
		ret = load_scn(elf, s.symtab, t);
	else if (load_debug_file(elf, path, t) == 0)
		ret = 0;
	else if (s.debugdata && load_minidebuginfo(elf, s.debugdata, t) == 0)
		ret = load_scn(elf, s.dynsym, t);
	else
		ret = load_scn(elf, s.dynsym, t);
	symtab__finish(t);
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}
