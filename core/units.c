/*
 * core/units.c - durations and sizes (see core/units.h).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "core/units.h"

long long units__ns(const char *s)
{
	static const struct {
		const char *unit;
		double mul;
	} units[] = {
		{ "ns", 1 },  { "us", 1e3 }, { "ms", 1e6 },
		{ "s", 1e9 }, { "m", 60e9 }, { "h", 3600e9 },
	};
	char *end;
	double v = strtod(s, &end);

	if (end == s || v < 0 || !(isdigit((unsigned char)*s) || *s == '.'))
		return -1;
	if (!*end)
		return v * 1e6 < 9e18 ? (long long)(v * 1e6 + 0.5) : -1; /* UNITS_BARE */
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit) && v * units[i].mul < 9e18)
			return (long long)(v * units[i].mul + 0.5);
	return -1;
}

long long units__bytes(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	const char *u = "kmgt", *at;
	int shift = 0;

	if (end == s || v < 0 || !(isdigit((unsigned char)*s) || *s == '.'))
		return -1;
	if (*end && (at = strchr(u, tolower((unsigned char)*end)))) {
		shift = 10 * (int)(at - u + 1);
		end++;
		if (!strcasecmp(end, "ib") || !strcasecmp(end, "b"))
			end += strlen(end);
	} else if (!strcasecmp(end, "b")) {
		end++;
	}
	if (*end || v * (double)(1LL << shift) >= 9e18)
		return -1;
	return (long long)(v * (double)(1LL << shift));
}
