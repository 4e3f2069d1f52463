/*
 * ext/ext_api.h - forced on every object of perf_sql.so (gcc -include, see the Makefile): each
 * sqlite3_*() call of core/ ... engine/ and ext/ goes through the host's routine table
 * (sqlite3ext.h), so the extension uses the SQLite of the program that loads it and links no
 * libsqlite3 of its own. ext/extension.c defines the table pointer and sets it when loaded.
 */
#ifndef PERF_SQL_EXT_API_H
#define PERF_SQL_EXT_API_H
#include <sqlite3ext.h>
extern const sqlite3_api_routines *sqlite3_api;
#endif
