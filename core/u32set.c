/*
 * core/u32set.c - see core/u32set.h. Load stays under 1/2, so probes are short.
 */
#include <stdlib.h>
#include "core/u32set.h"

static uint32_t *slot(uint32_t *slots, uint32_t cap, uint32_t v)
{
	uint32_t i = (v * 2654435761u) & (cap - 1);

	while (slots[i] && slots[i] != v)
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

bool u32set__add(struct u32set *set, uint32_t v)
{
	uint32_t *s;

	if (!v)
		return false;
	if ((set->nr + 1) * 2 > set->cap) {
		uint32_t ncap = set->cap ? set->cap * 2 : 1024;
		uint32_t *n = calloc(ncap, sizeof(*n));

		if (!n)
			return false;
		for (uint32_t i = 0; i < set->cap; i++)
			if (set->slots[i])
				*slot(n, ncap, set->slots[i]) = set->slots[i];
		free(set->slots);
		set->slots = n;
		set->cap = ncap;
	}
	s = slot(set->slots, set->cap, v);
	if (*s)
		return false;
	*s = v;
	set->nr++;
	return true;
}

bool u32set__has(const struct u32set *set, uint32_t v)
{
	return v && set->cap && *slot(set->slots, set->cap, v) == v;
}

void u32set__free(struct u32set *set)
{
	free(set->slots);
	set->slots = NULL;
	set->nr = set->cap = 0;
}
