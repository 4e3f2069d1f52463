/*
 * mac(ADDR) - scalar: colon-separated text of a 6-byte Ethernet (MAC) address.
 *
 *   SELECT mac(src), count(*) FROM net_frames GROUP BY 1;
 *   -- mac(x'0242ac110002') = '02:42:ac:11:00:02'
 *
 * (1) ADDR is a 6-byte BLOB, first byte first; the text is lower-case hex.
 * (2) NULL gives NULL; anything else is an error.
 */
#include <stdio.h>
#include <sqlite3.h>

#include "sqlite/functions.h"

void mac_func(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const unsigned char *b;
	char buf[18];

	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	if (sqlite3_value_type(argv[0]) != SQLITE_BLOB || sqlite3_value_bytes(argv[0]) != 6) {
		sqlite3_result_error(ctx, "mac: expected a 6-byte blob", -1);
		return;
	}
	b = sqlite3_value_blob(argv[0]);
	snprintf(buf, sizeof(buf), "%02x:%02x:%02x:%02x:%02x:%02x", b[0], b[1], b[2], b[3], b[4],
		 b[5]);
	sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
}
