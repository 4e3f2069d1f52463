/*
 * ipv6(ADDR) - scalar: RFC 5952 text of an IPv6 address.
 *
 *   SELECT ipv6(saddr_v6), count(*) FROM sock_inet_sock_set_state WHERE family = 10 GROUP BY 1;
 *   -- ipv6(x'20010db8000000000000000000000001') = '2001:db8::1'
 *
 * (1) ADDR is a 16-byte BLOB in network byte order (tracepoints store __u8 saddr_v6[16]).
 * (2) The text is inet_ntop()'s: lower-case hex, the longest run of zero groups as "::",
 *     IPv4-mapped addresses as "::ffff:1.2.3.4".
 * (3) NULL gives NULL; anything else is an error.
 */
#include <arpa/inet.h>
#include <sqlite3.h>

#include "sqlite/functions.h"

void ipv6_func(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	char buf[INET6_ADDRSTRLEN];

	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	if (sqlite3_value_type(argv[0]) != SQLITE_BLOB || sqlite3_value_bytes(argv[0]) != 16) {
		sqlite3_result_error(ctx, "ipv6: expected a 16-byte blob", -1);
		return;
	}
	if (!inet_ntop(AF_INET6, sqlite3_value_blob(argv[0]), buf, sizeof(buf))) {
		sqlite3_result_error(ctx, "ipv6: cannot format the address", -1);
		return;
	}
	sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
}
