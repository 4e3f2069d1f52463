/*
 * symbols/srcline.c - addresses to source lines and inlined calls, from DWARF (libdw).
 *
 * HOW IT WORKS
 * (1) The DWARF is the separate debug file's (build-id, .gnu_debuglink, debuginfod cache:
 *     symbols/debuginfo.c) or the binary's own .debug_info, opened once per file (dso__dwarf).
 * (2) The compilation unit holding the address comes from .debug_aranges (dwarf_addrdie),
 *     else from a walk of the units' ranges; the line from its line table (dwarf_getsrc_die),
 *     the last row at or before the address, as addr2line prints it.
 * (3) Inlined calls: the scopes holding the address (dwarf_getscopes), innermost first, up to
 *     the function: each DW_TAG_inlined_subroutine is a frame named by its abstract origin,
 *     at the line of the address; the function it was inlined into is at the call site
 *     (DW_AT_call_file, DW_AT_call_line). This is how perf and addr2line -i list them.
 * (4) Names are libdw's (valid while the dso is); a relative file name (DWARF 5 lists them
 *     relative to the compilation directory) comes with DW_AT_comp_dir to join it to.
 */
#include <dwarf.h>
#include <stdlib.h>
#include "symbols/dso.h"
#include "symbols/srcline.h"

static bool cu_of(Dwarf *dw, uint64_t vaddr, Dwarf_Die *cu)
{
	Dwarf_Off off = 0, next;
	size_t hdr;

	if (dwarf_addrdie(dw, vaddr, cu))
		return true;
	while (dwarf_nextcu(dw, off, &next, &hdr, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dw, off + hdr, cu) && dwarf_haspc(cu, vaddr) > 0)
			return true;
		off = next;
	}
	return false;
}

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;

	/* an inlined copy has no name of its own: its abstract origin's (integrate follows it) */
	return dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
}

/* where the inlined call die was made: file and line in its caller */
static void call_site(Dwarf_Die *cu, Dwarf_Die *die, const char **file, int *line)
{
	Dwarf_Attribute a;
	Dwarf_Files *files;
	Dwarf_Word idx = 0, ln = 0;
	size_t nr;

	*file = NULL;
	*line = 0;
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &a), &ln) == 0)
		*line = (int)ln;
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &a), &idx) == 0 &&
	    dwarf_getsrcfiles(cu, &files, &nr) == 0 && idx < nr)
		*file = dwarf_filesrc(files, idx, NULL, NULL);
}

size_t dso__srcline(struct dso *d, uint64_t vaddr, bool inlines, struct srcline *out, size_t max)
{
	Dwarf *dw = dso__dwarf(d);
	Dwarf_Die cu, *scopes = NULL;
	Dwarf_Line *l;
	const char *file, *dir;
	Dwarf_Attribute a;
	size_t n = 0;
	int line = 0, nr;

	if (!max || !dw || !cu_of(dw, vaddr, &cu) || !(l = dwarf_getsrc_die(&cu, vaddr)))
		return 0;
	file = dwarf_linesrc(l, NULL, NULL);
	if (!file || dwarf_lineno(l, &line))
		return 0;
	dir = dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &a));
	nr = inlines ? dwarf_getscopes(&cu, vaddr, &scopes) : 0;
	for (int i = 0; i < nr && n + 1 < max; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_subprogram)
			break;
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		out[n++] = (struct srcline){ die_name(&scopes[i]), file, dir, line, true };
		call_site(&cu, &scopes[i], &file, &line);
		if (!file)
			break;
	}
	free(scopes);
	out[n++] = (struct srcline){ NULL, file, dir, line, false };
	return n;
}

size_t symbols__srcline(struct symbols *sy, uint32_t pid, uint64_t addr, bool inlines,
			struct srcline *out, size_t max)
{
	uint64_t vaddr;
	struct dso *d = symbols__dso_at(sy, pid, addr, &vaddr);

	return d ? dso__srcline(d, vaddr, inlines, out, max) : 0;
}
