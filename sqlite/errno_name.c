/*
 * errno_name(RET) - scalar: the Linux errno name of a system call return value.
 *
 *   SELECT errno_name(ret) AS err, count(*) FROM syscall_pairs WHERE ret < 0 GROUP BY ret;
 *   -- errno_name(-2) = 'ENOENT', errno_name(13) = 'EACCES', errno_name(-512) = 'ERESTARTSYS'
 *
 * (1) RET may be negative (the kernel's -errno) or positive (errno); the sign is ignored.
 * (2) The names are those of the x86_64 UAPI (1..133, canonical names only: EAGAIN not
 *     EWOULDBLOCK, EDEADLK not EDEADLOCK, EOPNOTSUPP not ENOTSUP) plus the kernel-internal
 *     codes 512..530 that syscall tracepoints can show (ERESTARTSYS, ...).
 * (3) 0, NULL and numbers without a name give NULL: errno_name(4096) of a successful read()
 *     is NULL, so filter on ret < 0 where positive returns are byte counts. INT64_MIN (whose
 *     negation has no int64) is one of them.
 * (4) A non-integer RET is an error quoting the value.
 */
#include <errno.h>
#include <stdint.h>
#include <sqlite3.h>

#include "sqlite/functions.h"

#define E(name) [name] = #name

static const char *const errno_names[] = {
	E(EPERM),
	E(ENOENT),
	E(ESRCH),
	E(EINTR),
	E(EIO),
	E(ENXIO),
	E(E2BIG),
	E(ENOEXEC),
	E(EBADF),
	E(ECHILD),
	E(EAGAIN),
	E(ENOMEM),
	E(EACCES),
	E(EFAULT),
	E(ENOTBLK),
	E(EBUSY),
	E(EEXIST),
	E(EXDEV),
	E(ENODEV),
	E(ENOTDIR),
	E(EISDIR),
	E(EINVAL),
	E(ENFILE),
	E(EMFILE),
	E(ENOTTY),
	E(ETXTBSY),
	E(EFBIG),
	E(ENOSPC),
	E(ESPIPE),
	E(EROFS),
	E(EMLINK),
	E(EPIPE),
	E(EDOM),
	E(ERANGE),
	E(EDEADLK),
	E(ENAMETOOLONG),
	E(ENOLCK),
	E(ENOSYS),
	E(ENOTEMPTY),
	E(ELOOP),
	E(ENOMSG),
	E(EIDRM),
	E(ECHRNG),
	E(EL2NSYNC),
	E(EL3HLT),
	E(EL3RST),
	E(ELNRNG),
	E(EUNATCH),
	E(ENOCSI),
	E(EL2HLT),
	E(EBADE),
	E(EBADR),
	E(EXFULL),
	E(ENOANO),
	E(EBADRQC),
	E(EBADSLT),
	E(EBFONT),
	E(ENOSTR),
	E(ENODATA),
	E(ETIME),
	E(ENOSR),
	E(ENONET),
	E(ENOPKG),
	E(EREMOTE),
	E(ENOLINK),
	E(EADV),
	E(ESRMNT),
	E(ECOMM),
	E(EPROTO),
	E(EMULTIHOP),
	E(EDOTDOT),
	E(EBADMSG),
	E(EOVERFLOW),
	E(ENOTUNIQ),
	E(EBADFD),
	E(EREMCHG),
	E(ELIBACC),
	E(ELIBBAD),
	E(ELIBSCN),
	E(ELIBMAX),
	E(ELIBEXEC),
	E(EILSEQ),
	E(ERESTART),
	E(ESTRPIPE),
	E(EUSERS),
	E(ENOTSOCK),
	E(EDESTADDRREQ),
	E(EMSGSIZE),
	E(EPROTOTYPE),
	E(ENOPROTOOPT),
	E(EPROTONOSUPPORT),
	E(ESOCKTNOSUPPORT),
	E(EOPNOTSUPP),
	E(EPFNOSUPPORT),
	E(EAFNOSUPPORT),
	E(EADDRINUSE),
	E(EADDRNOTAVAIL),
	E(ENETDOWN),
	E(ENETUNREACH),
	E(ENETRESET),
	E(ECONNABORTED),
	E(ECONNRESET),
	E(ENOBUFS),
	E(EISCONN),
	E(ENOTCONN),
	E(ESHUTDOWN),
	E(ETOOMANYREFS),
	E(ETIMEDOUT),
	E(ECONNREFUSED),
	E(EHOSTDOWN),
	E(EHOSTUNREACH),
	E(EALREADY),
	E(EINPROGRESS),
	E(ESTALE),
	E(EUCLEAN),
	E(ENOTNAM),
	E(ENAVAIL),
	E(EISNAM),
	E(EREMOTEIO),
	E(EDQUOT),
	E(ENOMEDIUM),
	E(EMEDIUMTYPE),
	E(ECANCELED),
	E(ENOKEY),
	E(EKEYEXPIRED),
	E(EKEYREVOKED),
	E(EKEYREJECTED),
	E(EOWNERDEAD),
	E(ENOTRECOVERABLE),
	E(ERFKILL),
	E(EHWPOISON),
	/* kernel-internal (include/linux/errno.h): never reach user space, but tracepoints see them */
	[512] = "ERESTARTSYS",
	[513] = "ERESTARTNOINTR",
	[514] = "ERESTARTNOHAND",
	[515] = "ENOIOCTLCMD",
	[516] = "ERESTART_RESTARTBLOCK",
	[517] = "EPROBE_DEFER",
	[518] = "EOPENSTALE",
	[519] = "ENOPARAM",
	[521] = "EBADHANDLE",
	[522] = "ENOTSYNC",
	[523] = "EBADCOOKIE",
	[524] = "ENOTSUPP",
	[525] = "ETOOSMALL",
	[526] = "ESERVERFAULT",
	[527] = "EBADTYPE",
	[528] = "EJUKEBOX",
	[529] = "EIOCBQUEUED",
	[530] = "ERECALLCONFLICT",
};

#define NR_ERRNO_NAMES ((sqlite3_int64)(sizeof(errno_names) / sizeof(errno_names[0])))

static const char *errno_name_of(sqlite3_int64 ret)
{
	/* in u64: -INT64_MIN has no int64 */
	uint64_t e = ret < 0 ? -(uint64_t)ret : (uint64_t)ret;

	if (e == 0 || e >= (uint64_t)NR_ERRNO_NAMES)
		return NULL;
	return errno_names[e];
}

void errno_name_func(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	sql_result_name_of(ctx, argv[0], "errno_name", errno_name_of);
}
