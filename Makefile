# perf-sql: one non-recursive Makefile.
#   make setup     install Debian packages and build libperf from linux-source-6.1 (idempotent)
#   make           build ./perf-sql
#   make test      unit + live tests (root for the live ones); prints "N passed, N failed, N skipped"
#   make bench     benchmarks side by side with perf / trace-cmd, printed as ratios
#   make asan      the tests under ASan+UBSan        V=1 full commands, WERROR=1 -Werror
#   make check-layers   includes point down core/ bpf/ symbols/ vtab/ sqlite/ engine/ ext/ profilers/
#                       render/ cli/ shell/|serve/ cmd/ (scripts/check-layers.sh); and
#                       docs/architecture.md names every .c/.h (scripts/check-architecture.sh)
#   make check-names    bpf/ and engine/ define no unprefixed global (scripts/check-names.sh)
#   make perf_sql.so    the SQLite loadable extension (also built by `make`; docs/extension.md)
#   make install / uninstall   PREFIX=/usr/local DESTDIR= (docs/install.md)
#   make deb       build/debs/perf-sql_VERSION_ARCH.deb with dpkg-buildpackage (debian/)
.DELETE_ON_ERROR:
.SUFFIXES:

BUILD   ?= build
CC      ?= gcc
LIBPERF := $(BUILD)/libperf
SETUP   := $(BUILD)/.setup-done
PKGS    := sqlite3 libtraceevent libelf libdw liblz4 liblzma libmicrohttpd libbpf libprotobuf-c zlib \
	   gnutls yaml-0.1 libcrypt

# lazy (=): pkg-config runs when a recipe needs it, i.e. after `setup` installed the packages
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null || echo -I/usr/include/traceevent)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lsqlite3 -ltraceevent -lelf -ldw -llz4 -llzma -lmicrohttpd -lbpf -lprotobuf-c -lz \
		     -lgnutls -lyaml -lcrypt)

OPT     ?= -O2
CFLAGS  ?= $(OPT) -g
WFLAGS  := -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers
ifeq ($(WERROR),1)
WFLAGS  += -Werror
endif
ifneq ($(SANITIZE),)
CFLAGS  += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer
LDFLAGS += -fsanitize=$(SANITIZE)
BUILD   := $(BUILD)/san
endif
ALL_CFLAGS = -std=gnu11 -D_GNU_SOURCE -MMD -MP $(CPPFLAGS) $(CFLAGS) $(WFLAGS) -I. -I$(LIBPERF)/include $(PKG_CFLAGS)
LIBS       = $(LIBPERF)/out/libperf.a $(LIBPERF)/out/libapi.a $(PKG_LIBS) -lreadline -lpthread -lm -ldl

ifeq ($(V),1)
Q :=
else
Q := @
endif

SRCS     := $(filter-out $(EXCLUDE),$(wildcard core/*.c bpf/*.c symbols/*.c vtab/*.c sqlite/*.c engine/*.c profilers/*.c \
					      render/*.c cli/*.c shell/*.c serve/*.c cmd/*.c))
# -f pprof: render/profile.proto -> build/gen/profile.pb-c.{c,h} (protoc-c), compiled with the rest
PROTO_OBJ = $(BUILD)/obj/gen/profile.pb-c.o
OBJS     := $(patsubst %.c,$(BUILD)/obj/%.o,$(SRCS)) $(PROTO_OBJ)
MAIN_OBJ := $(BUILD)/obj/cmd/main.o
LIB_OBJS := $(filter-out $(MAIN_OBJ),$(OBJS))
QUERIES  := $(wildcard queries/*.sql)

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
WL_SRCS   := $(wildcard tests/workloads/*.c)
WL_BINS   := $(patsubst tests/workloads/%.c,$(BUILD)/workloads/%,$(WL_SRCS))

ifeq ($(SANITIZE),)
PERF_SQL := perf-sql
EXT_SO   := perf_sql.so
else
PERF_SQL := $(BUILD)/perf-sql
EXT_SO   := $(BUILD)/perf_sql.so
endif

# the loadable extension: core/ ... engine/ and ext/ again, as PIC objects under $(BUILD)/pic
# with ext/ext_api.h forced on each, so every sqlite3_*() call goes through the host's SQLite
# (no libsqlite3 of its own); only sqlite3_perfsql_init is exported. libperf.a and libapi.a
# are PIC already: their own Makefiles add -fPIC (tools/lib/perf/Makefile, tools/lib/api).
EXT_SRCS := $(filter core/% bpf/% symbols/% vtab/% sqlite/% engine/%,$(SRCS)) $(wildcard ext/*.c)
EXT_OBJS := $(patsubst %.c,$(BUILD)/pic/%.o,$(EXT_SRCS))
EXT_PKGS := libtraceevent libelf libdw liblz4 liblzma libbpf
EXT_LIBS  = $(LIBPERF)/out/libperf.a $(LIBPERF)/out/libapi.a \
	    $(shell pkg-config --libs $(EXT_PKGS) 2>/dev/null || echo -ltraceevent -lelf -ldw -llz4 -llzma -lbpf) \
	    -lpthread -lm -ldl
EXT_HOST := $(BUILD)/ext/host

.PHONY: all setup test unit live bench asan valgrind clang-check clean install uninstall deb
all: $(PERF_SQL) $(EXT_SO)

setup: $(SETUP) $(PERF_SQL)   # the packages, libperf, and ./perf-sql itself
$(SETUP): scripts/setup.sh
	$(Q)bash scripts/setup.sh $(firstword $(subst /san, ,$(BUILD)))
	$(Q)mkdir -p $(dir $@) && touch $@

# a release build holds no test hook (core/test_hook.h): checked at each link
define no_test_hooks
	$(Q)if strings $@ | grep -q PERF_SQL_TEST_; then \
		echo "$@: test hooks (PERF_SQL_TEST_*) in a release build: use TEST_HOOK() (core/test_hook.h)"; \
		rm -f $@; exit 1; fi
endef

$(PERF_SQL): $(OBJS)
	@echo "  LINK    $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)
	$(no_test_hooks)

# the test build: perf-sql-test beside perf-sql, the files that use TEST_HOOK() compiled again
# with -DPERF_SQL_TEST_HOOKS under $(BUILD)/obj-test; `make test` runs it (tests/live/test_hooks.sh
# checks that it has the hooks and perf-sql has none)
HOOK_SRCS      := $(shell grep -lE 'TEST_HOOK."' $(SRCS) 2>/dev/null)
HOOK_OBJS      := $(patsubst %.c,$(BUILD)/obj/%.o,$(HOOK_SRCS))
HOOK_TEST_OBJS := $(patsubst %.c,$(BUILD)/obj-test/%.o,$(HOOK_SRCS))
PERF_SQL_TEST  := $(dir $(PERF_SQL))perf-sql-test
$(PERF_SQL_TEST): $(filter-out $(HOOK_OBJS),$(OBJS)) $(HOOK_TEST_OBJS)
	@echo "  LINK    $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)
$(BUILD)/obj-test/%.o: %.c | $(SETUP)
	@mkdir -p $(dir $@)
	@[ "$(V)" = 1 ] || echo "  CC TEST $<"
	$(Q)$(CC) $(ALL_CFLAGS) -DPERF_SQL_TEST_HOOKS -c -o $@ $<

define link_ext
	@echo "  LINK    $@"
	$(Q)$(CC) -shared $(LDFLAGS) -Wl,--exclude-libs,ALL -Wl,-z,defs -o $@ $^ $(EXT_LIBS)
endef
$(EXT_SO): $(EXT_OBJS)
	$(link_ext)
	$(no_test_hooks)

$(BUILD)/pic/%.o: %.c | $(SETUP)
	@mkdir -p $(dir $@)
	@[ "$(V)" = 1 ] || echo "  CC PIC  $<"
	$(Q)$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -include ext/ext_api.h -c -o $@ $<

# tests/ext/host.c: a C program that loads the extension as any host does (ASan sees both)
$(EXT_HOST): tests/ext/host.c | $(SETUP)
	@mkdir -p $(dir $@)
	@[ "$(V)" = 1 ] || echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< -lsqlite3

$(BUILD)/obj/%.o: %.c | $(SETUP)
	@mkdir -p $(dir $@)
	@[ "$(V)" = 1 ] || echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

# built-in profilers: queries/*.sql embedded as C strings
$(BUILD)/gen/queries.h: $(QUERIES) scripts/embed-queries.sh
	@mkdir -p $(dir $@)
	$(Q)bash scripts/embed-queries.sh $(QUERIES) > $@
$(BUILD)/obj/profilers/registry.o: $(BUILD)/gen/queries.h
$(BUILD)/obj/profilers/registry.o: PKG_CFLAGS += -I$(BUILD)/gen

# pprof's messages (render/profile.proto) as C, for render/pprof_write.c and its unit test
$(BUILD)/gen/%.pb-c.c $(BUILD)/gen/%.pb-c.h: render/%.proto | $(SETUP)
	@mkdir -p $(dir $@)
	@[ "$(V)" = 1 ] || echo "  PROTOC  $<"
	$(Q)protoc-c --c_out=$(BUILD)/gen --proto_path=render $<
$(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.c
	@mkdir -p $(dir $@)
	@[ "$(V)" = 1 ] || echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -I$(BUILD)/gen -c -o $@ $<
$(BUILD)/obj/render/pprof_write.o $(BUILD)/tests/test_pprof: $(BUILD)/gen/profile.pb-c.h
$(BUILD)/obj/render/pprof_write.o $(BUILD)/tests/test_pprof: PKG_CFLAGS += -I$(BUILD)/gen

# syscall numbers -> names, from the installed UAPI header
$(BUILD)/gen/syscalls.h: scripts/gen-syscalls.sh | $(SETUP)
	@mkdir -p $(dir $@)
	$(Q)bash scripts/gen-syscalls.sh > $@
$(BUILD)/obj/bpf/syscall.o $(BUILD)/pic/bpf/syscall.o: $(BUILD)/gen/syscalls.h
$(BUILD)/obj/bpf/syscall.o $(BUILD)/pic/bpf/syscall.o: PKG_CFLAGS += -I$(BUILD)/gen

# unit tests: -MMD (in ALL_CFLAGS) lists every header a test includes (t.h, t_sql.h, the
# tests/fuzz sources of test_fuzz_regress) in build/obj/tests/unit/NAME.d, included below; a
# missing .d (a test built before) rebuilds its test, so the list is never absent
UNIT_DEPS := $(patsubst tests/unit/%.c,$(BUILD)/obj/tests/unit/%.d,$(UNIT_SRCS))
$(UNIT_DEPS):
$(BUILD)/tests/%: tests/unit/%.c $(LIB_OBJS) $(BUILD)/obj/tests/unit/%.d
	@mkdir -p $(dir $@) $(BUILD)/obj/tests/unit
	@[ "$(V)" = 1 ] || echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -MF $(BUILD)/obj/tests/unit/$*.d $(LDFLAGS) -o $@ $< $(LIB_OBJS) $(LIBS)

# workloads: tiny static programs with known event counts (frame pointers for stack tests)
$(BUILD)/workloads/%: tests/workloads/%.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -O1 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -fno-inline -static -o $@ $<

# chain: the CFI-unwinding workload, as Debian builds its programs (-O2, no frame pointers,
# dynamic); chain.stripped has no .symtab nor DWARF and finds chain.debug by .gnu_debuglink
$(BUILD)/workloads/chain: tests/workloads/chain.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -O2 -g -fomit-frame-pointer -o $@ $<
$(BUILD)/workloads/chain.debug: $(BUILD)/workloads/chain
	$(Q)objcopy --only-keep-debug $< $@
$(BUILD)/workloads/chain.stripped: $(BUILD)/workloads/chain $(BUILD)/workloads/chain.debug
	$(Q)cd $(dir $@) && objcopy --strip-all --add-gnu-debuglink=chain.debug chain chain.stripped
WL_BINS += $(BUILD)/workloads/chain.stripped

unit: $(UNIT_BINS)
# make test [REPEAT=N] [TESTS="name ..."]: unit, golden SQL (as nobody), then live tests N times
test: $(PERF_SQL) $(PERF_SQL_TEST) $(EXT_SO) $(EXT_HOST) $(UNIT_BINS) $(WL_BINS)
	$(Q)bash scripts/check-names.sh $(BUILD)
	$(Q)bash scripts/check-architecture.sh
	$(Q)PERF_SQL=$(abspath $(PERF_SQL_TEST)) PERF_SQL_RELEASE=$(abspath $(PERF_SQL)) \
		BUILD=$(abspath $(BUILD)) bash tests/run.sh \
		$(if $(REPEAT),--repeat $(REPEAT))

asan:
	$(Q)$(MAKE) --no-print-directory SANITIZE=address,undefined OPT=-O1 test

# the unit tests under valgrind (memcheck, definite leaks), but the two that take minutes there
VG_BINS := $(filter-out %/test_percentile %/test_fuzz_regress,$(UNIT_BINS))
valgrind: $(VG_BINS) $(WL_BINS)
	$(Q)for t in $(VG_BINS); do \
		BUILD=$(abspath $(BUILD)) valgrind -q --error-exitcode=9 --leak-check=full \
			--errors-for-leak-kinds=definite $$t > $(BUILD)/valgrind.log 2>&1 || \
			{ cat $(BUILD)/valgrind.log; echo "valgrind: $$t"; exit 1; }; \
	done; echo "valgrind: $(words $(VG_BINS)) unit tests clean"

# the whole tree with clang and -Werror (the gcc -Werror build is `make WERROR=1`)
clang-check:
	$(Q)$(MAKE) --no-print-directory CC=clang WERROR=1 BUILD=build/clang build/clang/perf-sql-clang \
		build/clang/perf_sql.so

build/clang/perf-sql-clang: $(OBJS)
	@echo "  LINK    $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)
build/clang/perf_sql.so: $(EXT_OBJS)
	$(link_ext)

.PHONY: check-layers check-names
check-layers:
	$(Q)bash scripts/check-layers.sh
	$(Q)bash scripts/check-architecture.sh
# the planner's and compiler's globals are prefixed (needs the objects: run by make test too)
check-names: $(PERF_SQL)
	$(Q)bash scripts/check-names.sh $(BUILD)

# .clang-format over every C file git tracks: `make format` applies it, `make format-check`
# (CI) lists the files that differ from it and fails
FORMAT_FILES = $(shell git ls-files '*.c' '*.h' 2>/dev/null)
.PHONY: format format-check
format: | $(SETUP)
	$(Q)clang-format -i $(FORMAT_FILES)
format-check: | $(SETUP)
	$(Q)bad=0; for f in $(FORMAT_FILES); do clang-format "$$f" | cmp -s - "$$f" || \
		{ echo "format: $$f differs from .clang-format (make format)"; bad=1; }; done; \
		[ $$bad = 0 ] && echo "format: $(words $(FORMAT_FILES)) files follow .clang-format"

bench: $(PERF_SQL) $(WL_BINS)
	$(Q)PERF_SQL=$(abspath $(PERF_SQL)) BUILD=$(abspath $(BUILD)) bash bench/run.sh

clean:
	rm -rf $(BUILD)/obj $(BUILD)/pic $(BUILD)/ext $(BUILD)/san $(BUILD)/tests $(BUILD)/workloads \
		$(BUILD)/gen $(BUILD)/obj-test perf-sql perf-sql-test perf_sql.so build/deb build/debs

# --- install: the GNU directory variables, DESTDIR for staging (docs/install.md) ---
# The built-in profilers' SQL is inside the binary (build/gen/queries.h): nothing to install
# for them. Saved profilers are read from /etc/perf-sql/profilers (fixed, whatever PREFIX,
# made by the administrator) and $XDG_CONFIG_HOME/perf-sql/profilers: neither is installed.
PREFIX      ?= /usr/local
prefix      ?= $(PREFIX)
exec_prefix ?= $(prefix)
bindir      ?= $(exec_prefix)/bin
libdir      ?= $(exec_prefix)/lib
datarootdir ?= $(prefix)/share
mandir      ?= $(datarootdir)/man
docdir      ?= $(datarootdir)/doc/perf-sql
bashcompdir ?= $(datarootdir)/bash-completion/completions
ifeq ($(prefix),/usr)
zshcompdir  ?= $(datarootdir)/zsh/vendor-completions
else
zshcompdir  ?= $(datarootdir)/zsh/site-functions
endif
INSTALL     ?= install
DOC_FILES   := README.md $(wildcard docs/*.md)

install: $(PERF_SQL) $(EXT_SO)
	$(INSTALL) -d $(DESTDIR)$(bindir) $(DESTDIR)$(libdir)/perf-sql $(DESTDIR)$(mandir)/man1 \
		$(DESTDIR)$(mandir)/man7 $(DESTDIR)$(docdir)/profilers $(DESTDIR)$(bashcompdir) \
		$(DESTDIR)$(zshcompdir)
	$(INSTALL) -m 0755 $(PERF_SQL) $(DESTDIR)$(bindir)/perf-sql
	$(INSTALL) -m 0644 $(EXT_SO) $(DESTDIR)$(libdir)/perf-sql/perf_sql.so
	$(INSTALL) -m 0644 docs/man/perf-sql.1 $(DESTDIR)$(mandir)/man1/perf-sql.1
	$(INSTALL) -m 0644 docs/man/perf-sql-profilers.7 $(DESTDIR)$(mandir)/man7/perf-sql-profilers.7
	$(INSTALL) -m 0644 $(DOC_FILES) $(DESTDIR)$(docdir)
	$(INSTALL) -m 0644 docs/profilers/*.md $(DESTDIR)$(docdir)/profilers
	$(INSTALL) -m 0644 contrib/completion/perf-sql.bash $(DESTDIR)$(bashcompdir)/perf-sql
	$(INSTALL) -m 0644 contrib/completion/_perf-sql $(DESTDIR)$(zshcompdir)/_perf-sql

uninstall:
	rm -f $(DESTDIR)$(bindir)/perf-sql $(DESTDIR)$(libdir)/perf-sql/perf_sql.so \
		$(DESTDIR)$(mandir)/man1/perf-sql.1 $(DESTDIR)$(mandir)/man7/perf-sql-profilers.7 \
		$(DESTDIR)$(bashcompdir)/perf-sql $(DESTDIR)$(zshcompdir)/_perf-sql
	rm -rf $(DESTDIR)$(docdir)
	-rmdir $(DESTDIR)$(libdir)/perf-sql 2>/dev/null

# --- make deb: build/debs/perf-sql_VERSION_ARCH.deb from debian/ (docs/install.md) ---
# dpkg-buildpackage -b builds in build/deb (debian/rules); its .deb, .buildinfo and .changes
# go to build/debs instead of the directory above the tree. -nc: build/deb is kept between
# builds (incremental, like the tree's own build); -J: parallel. Nothing of this make's
# command line (SANITIZE=..., -j's jobserver) reaches the package's build.
DEB_OUT := $(abspath build/debs)
deb: $(SETUP)
	@mkdir -p $(DEB_OUT)
	$(Q)v=$$(dpkg-parsechangelog -S Version) a=$$(dpkg-architecture -qDEB_HOST_ARCH) && \
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL DEB_OUT=$(DEB_OUT) dpkg-buildpackage -b -us -uc -nc -J \
		--buildinfo-option=-u$(DEB_OUT) --buildinfo-option=-O$(DEB_OUT)/perf-sql_$${v}_$$a.buildinfo \
		--changes-option=-u$(DEB_OUT) --changes-option=-O$(DEB_OUT)/perf-sql_$${v}_$$a.changes

-include $(OBJS:.o=.d) $(EXT_OBJS:.o=.d) $(UNIT_DEPS) $(HOOK_TEST_OBJS:.o=.d)

# the one file that sees libperf's internal headers
$(BUILD)/obj/core/perf_glue.o $(BUILD)/pic/core/perf_glue.o: PKG_CFLAGS += -I$(LIBPERF)/src/tools/lib/perf/include -I$(LIBPERF)/src/tools/include -I$(LIBPERF)/src/tools/arch/x86/include -I$(LIBPERF)/src/tools/include/uapi

# --- fuzzing (tests/fuzz) ---
#   make fuzz          build/fuzz/fuzz_NAME: libFuzzer targets of tests/fuzz/fuzz_NAME.c
#                      (clang, -fsanitize=fuzzer,address,undefined; the library objects are
#                      rebuilt with clang under build/fuzz/obj)
#   make fuzz-smoke    runs each for FUZZ_SECONDS (default 60) from tests/fuzz/corpus/NAME;
#                      fails on any finding, which is kept in tests/fuzz/regress/NAME/ and then
#                      replayed by every unit test run (tests/unit/test_fuzz_regress.c)
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_DIR     := $(patsubst %/san,%,$(BUILD))/fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS   = -std=gnu11 -D_GNU_SOURCE -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link $(WFLAGS) \
		-I. -I$(LIBPERF)/include -I$(BUILD)/gen $(PKG_CFLAGS)
FUZZ_OBJS    := $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(filter-out cmd/main.c,$(SRCS))) \
		$(FUZZ_DIR)/obj/gen/profile.pb-c.o
FUZZ_BINS    := $(patsubst %,$(FUZZ_DIR)/fuzz_%,$(FUZZ_TARGETS))

.PHONY: fuzz fuzz-smoke
fuzz: $(FUZZ_BINS)
.SECONDARY: $(FUZZ_OBJS)

$(FUZZ_DIR)/obj/%.o: %.c | $(SETUP)
	@mkdir -p $(dir $@)
	@[ "$(V)" = 1 ] || echo "  FUZZCC  $<"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<
$(FUZZ_DIR)/obj/profilers/registry.o: $(BUILD)/gen/queries.h
$(FUZZ_DIR)/obj/bpf/syscall.o: $(BUILD)/gen/syscalls.h
$(FUZZ_DIR)/obj/render/pprof_write.o: $(BUILD)/gen/profile.pb-c.h
$(FUZZ_DIR)/obj/gen/%.o: $(BUILD)/gen/%.c
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<
$(FUZZ_DIR)/obj/core/perf_glue.o: PKG_CFLAGS += -I$(LIBPERF)/src/tools/lib/perf/include -I$(LIBPERF)/src/tools/include -I$(LIBPERF)/src/tools/arch/x86/include -I$(LIBPERF)/src/tools/include/uapi

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_OBJS)
	@echo "  FUZZLD  $@"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJS) $(LIBS)
$(FUZZ_DIR)/fuzz_funcs: tests/fuzz/funcs.h

# each target for FUZZ_SECONDS, FUZZ_JOBS at a time (default: one per CPU): see the script
FUZZ_JOBS ?= $(shell nproc)
fuzz-smoke: $(FUZZ_BINS)
	$(Q)bash scripts/fuzz-smoke.sh $(FUZZ_DIR) $(FUZZ_SECONDS) $(FUZZ_JOBS) $(FUZZ_TARGETS)

# what the scratch corpora found, minimised into tests/fuzz/corpus/NAME (to commit)
.PHONY: fuzz-merge
fuzz-merge: $(FUZZ_BINS)
	$(Q)for t in $(FUZZ_TARGETS); do mkdir -p tests/fuzz/corpus/$$t && \
		$(FUZZ_DIR)/fuzz_$$t -merge=1 tests/fuzz/corpus/$$t $(FUZZ_DIR)/corpus/$$t \
		> $(FUZZ_DIR)/$$t.merge.log 2>&1 || { tail -n 20 $(FUZZ_DIR)/$$t.merge.log; exit 1; }; \
		echo "fuzz-merge: tests/fuzz/corpus/$$t: $$(ls tests/fuzz/corpus/$$t | wc -l) inputs"; done

-include $(FUZZ_OBJS:.o=.d)
# --- end fuzzing ---
