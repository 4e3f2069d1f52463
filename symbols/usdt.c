/*
 * symbols/usdt.c - USDT probes (see symbols/usdt.h).
 *
 * (1) Each NT_STAPSDT note of .note.stapsdt holds pc, base and semaphore addresses, then
 *     "provider\0name\0args\0". When the file was prelinked or relinked, .stapsdt.base moved:
 *     pc and semaphore shift by (.stapsdt.base's address - the recorded base).
 * (2) Addresses become file offsets through the PT_LOAD that holds them (uprobe config2 and
 *     the semaphore's ref_ctr_offset).
 * (3) Arguments "SIZE@OPERAND": a register operand (%rdi, %edi, %r8d, ...) maps to the perf
 *     register sampled with the probe; memory and constant operands are not read (NULL).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "symbols/dso.h"
#include "symbols/usdt.h"

#define NT_STAPSDT 3

static uint64_t file_offset(Elf *elf, uint64_t addr)
{
	size_t nph;

	if (elf_getphdrnum(elf, &nph))
		return 0;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && addr >= ph.p_vaddr &&
		    addr < ph.p_vaddr + ph.p_memsz)
			return addr - ph.p_vaddr + ph.p_offset;
	}
	return 0;
}

static int add_note(Elf *elf, const uint8_t *desc, size_t len, int64_t base_shift,
		    struct usdt_probe **out, int *nr)
{
	const char *prov = (const char *)desc + 24, *end = (const char *)desc + len, *name, *args;
	struct usdt_probe *p, *n;
	uint64_t a[3];

	if (len < 27 || !memchr(prov, 0, (size_t)(end - prov)))
		return 0;
	name = prov + strlen(prov) + 1;
	if (name >= end || !memchr(name, 0, (size_t)(end - name)))
		return 0;
	args = name + strlen(name) + 1;
	n = realloc(*out, (size_t)(*nr + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	*out = n;
	p = &n[(*nr)++];
	memset(p, 0, sizeof(*p));
	memcpy(a, desc, 24);
	p->pc = a[0] + (uint64_t)base_shift;
	p->semaphore = a[2] ? a[2] + (uint64_t)base_shift : 0;
	p->pc_offset = file_offset(elf, p->pc);
	p->sema_offset = p->semaphore ? file_offset(elf, p->semaphore) : 0;
	snprintf(p->provider, sizeof(p->provider), "%s", prov);
	snprintf(p->name, sizeof(p->name), "%s", name);
	snprintf(p->args, sizeof(p->args), "%.*s",
		 args < end ? (int)strnlen(args, (size_t)(end - args)) : 0, args);
	return 0;
}

int usdt__list(const char *path, struct usdt_probe **out, int *nr_out, struct err *e)
{
	int fd = dso__open_file(path), ret = 0;
	Elf_Scn *scn = NULL, *notes = NULL;
	int64_t base_shift = 0;
	size_t shstrndx;
	GElf_Shdr sh;
	Elf *elf;

	*out = NULL;
	*nr_out = 0;
	if (fd < 0)
		return err_set(e, fd, "%s: %s", path,
			       fd == -EINVAL ? "not a regular file" : strerror(-fd));
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx)) {
		ret = err_set(e, -EINVAL, "%s: not an ELF file", path);
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, &sh) || !(n = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(n, ".note.stapsdt"))
			notes = scn;
		else if (!strcmp(n, ".stapsdt.base"))
			base_shift = (int64_t)sh.sh_addr;
	}
	for (Elf_Data *d = notes ? elf_getdata(notes, NULL) : NULL; d;) {
		size_t off = 0, name_off, desc_off;
		GElf_Nhdr nh;

		while (!ret && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			const uint8_t *desc = (const uint8_t *)d->d_buf + desc_off;
			uint64_t recorded_base;

			if (nh.n_type != NT_STAPSDT || nh.n_descsz < 24)
				continue;
			memcpy(&recorded_base, desc + 8, 8);
			ret = add_note(elf, desc, nh.n_descsz,
				       base_shift ? base_shift - (int64_t)recorded_base : 0, out,
				       nr_out);
		}
		break;
	}
	if (ret)
		err_set(e, ret, "%s: out of memory", path);
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

/* x86-64 register names -> perf_regs numbers (AX 0, BX 1, CX 2, DX 3, SI 4, DI 5, BP 6, SP 7,
 * R8 16 .. R15 23), every width of each */
static int perf_reg_of(const char *r)
{
	static const struct {
		const char *names[4];
		int reg;
	} regs[] = {
		{ { "rax", "eax", "ax", "al" }, 0 },  { { "rbx", "ebx", "bx", "bl" }, 1 },
		{ { "rcx", "ecx", "cx", "cl" }, 2 },  { { "rdx", "edx", "dx", "dl" }, 3 },
		{ { "rsi", "esi", "si", "sil" }, 4 }, { { "rdi", "edi", "di", "dil" }, 5 },
		{ { "rbp", "ebp", "bp", "bpl" }, 6 }, { { "rsp", "esp", "sp", "spl" }, 7 },
	};
	char *end;
	long n;

	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		for (int k = 0; k < 4; k++)
			if (!strcmp(r, regs[i].names[k]))
				return regs[i].reg;
	if (r[0] == 'r' && (n = strtol(r + 1, &end, 10)) >= 8 && n <= 15 &&
	    (!*end || !strcmp(end, "d") || !strcmp(end, "w") || !strcmp(end, "b")))
		return 16 + (int)(n - 8);
	return -1;
}

int usdt__arg_reg(const char *args, int k, int *perf_reg_out, int *size_out, int *sign_out)
{
	char op[64], reg[16];
	const char *p = args;
	int size;

	for (int i = 0; i <= k; i++) {
		int n = 0;

		while (*p == ' ')
			p++;
		if (!*p || sscanf(p, "%63s%n", op, &n) != 1)
			return -ENOENT;
		p += n;
	}
	if (sscanf(op, "%d@%%%15[a-z0-9]", &size, reg) != 2 || strchr(op, '('))
		return -ENOENT;
	*perf_reg_out = perf_reg_of(reg);
	*size_out = size < 0 ? -size : size;
	*sign_out = size < 0;
	return *perf_reg_out < 0 ? -ENOENT : 0;
}
