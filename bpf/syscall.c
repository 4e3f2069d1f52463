/*
 * bpf/syscall.c - system call numbers, names and records (see bpf/syscall.h).
 */
#include <string.h>
#include "bpf/syscall.h"
#include "syscalls.h" /* build/gen: static const char *const syscall_names[] */

#define NR_SYSCALL_NAMES ((int64_t)(sizeof(syscall_names) / sizeof(syscall_names[0])))

const char *bpf_syscall__name(int64_t nr)
{
	return nr < 0 || nr >= NR_SYSCALL_NAMES ? NULL : syscall_names[nr];
}

int bpf_syscall__nr(const char *name)
{
	for (int64_t nr = 0; name && nr < NR_SYSCALL_NAMES; nr++)
		if (syscall_names[nr] && !strcmp(syscall_names[nr], name))
			return (int)nr;
	return -1;
}

const char *bpf_syscall__arg_reg(int i)
{
	static const char *const regs[BPF_SYSCALL_NR_ARGS] = {
		"di", "si", "dx", "r10", "r8", "r9"
	};

	return i >= 0 && i < BPF_SYSCALL_NR_ARGS ? regs[i] : NULL;
}

enum bpf_sysf bpf_syscall__field(bool enter, int off, int size)
{
	if (off == BPF_SYSCALL_NR_OFF)
		return size == 4 || size == 8 ? BPF_SYSF_NR : BPF_SYSF_NONE;
	if (size != 8)
		return BPF_SYSF_NONE;
	if (!enter)
		return off == BPF_SYSCALL_RET_OFF ? BPF_SYSF_RET : BPF_SYSF_NONE;
	if (off < BPF_SYSCALL_ARG_OFF || off >= BPF_SYSCALL_ARG_OFF + 8 * BPF_SYSCALL_NR_ARGS ||
	    off % 8)
		return BPF_SYSF_NONE;
	return (enum bpf_sysf)(BPF_SYSF_ARG0 + (off - BPF_SYSCALL_ARG_OFF) / 8);
}
