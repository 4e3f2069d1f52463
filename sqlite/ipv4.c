/*
 * ipv4(ADDR) - scalar: dotted-quad text of an IPv4 address.
 *
 *   SELECT ipv4(saddr), ipv4(daddr), count(*) FROM sock_inet_sock_set_state GROUP BY 1, 2;
 *   -- ipv4(x'7f000001') = '127.0.0.1', ipv4(2130706433) = '127.0.0.1'
 *
 * (1) A 4-byte BLOB is the address in network byte order, as tracepoints store __u8 saddr[4].
 * (2) An INTEGER in [0, 2^32) is the address as a number (0x7f000001 is 127.0.0.1). A __be32
 *     field read as a little-endian integer is byte-swapped: pass it as a blob instead.
 * (3) NULL gives NULL; any other value (a blob of another length, text, a number out of range)
 *     is an error naming what was expected.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sqlite3.h>

#include "sqlite/functions.h"

void ipv4_func(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	unsigned char b[4];
	char buf[16];

	switch (sqlite3_value_type(argv[0])) {
	case SQLITE_NULL: return;
	case SQLITE_BLOB:
		if (sqlite3_value_bytes(argv[0]) != 4)
			goto bad;
		memcpy(b, sqlite3_value_blob(argv[0]), 4);
		break;
	case SQLITE_INTEGER: {
		sqlite3_int64 v = sqlite3_value_int64(argv[0]);

		if (v < 0 || v > UINT32_MAX)
			goto bad;
		b[0] = (unsigned char)(v >> 24);
		b[1] = (unsigned char)(v >> 16);
		b[2] = (unsigned char)(v >> 8);
		b[3] = (unsigned char)v;
		break;
	}
	default: goto bad;
	}
	snprintf(buf, sizeof(buf), "%u.%u.%u.%u", b[0], b[1], b[2], b[3]);
	sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
	return;
bad:
	sqlite3_result_error(ctx, "ipv4: expected a 4-byte blob or an integer in [0, 2^32)", -1);
}
