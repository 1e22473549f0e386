# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# elfthp-align
#
#   make            build ./elfthp-align
#   make check      unit tests (tests/unit/, tests/test_rewrite,
#                   tests/test_measure), then
#                   integration tests on fixtures built here
#                   ($(HOOKED), the tool with its test hooks, too)
#   make mutation   the unit and write-pass tests again, built in build/mutant
#                   with plan_verify stubbed to `return 0` (src/plan_check.c,
#                   -DELFTHP_MUTANT_VERIFY): succeeds only if some of them
#                   fail, and names them; fails if all pass with the mutant
#   make demo       rewrite an embedded example and show what changed
#   make docs-samples  regenerate the README's output samples from real runs
#                   on the fixtures (scripts/docs-samples.sh; make check
#                   fails when they differ)
#   make bench      benchmarks (bench/run.sh), results in bench/RESULTS.md
#   make fuzz       libFuzzer, both harnesses, FUZZ_SECONDS each (default 60)
#   make corpus     rewrite and check copies of the system's ELF files
#   make deps       install the Debian packages the build and tests need
#   make install    PREFIX (default /usr/local) and DESTDIR are honoured
#   make uninstall  removes what install put there
#
# CFLAGS, CPPFLAGS, LDFLAGS and LDLIBS are the user's: they come after the
# project's, so `make CFLAGS="-O0 -g -Wno-shadow"` can turn a warning off.

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/elfthp-align
CC      ?= cc
PKG_CONFIG ?= pkg-config

WARN    = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
          -Wformat=2 -Wvla -Wno-unused-parameter
CFLAGS  ?= -O2 -g
ifeq ($(SANITIZE),1)
CFLAGS  += -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,undefined
endif
PROJECT_CPPFLAGS = -Iinclude -D_FILE_OFFSET_BITS=64 -D_GNU_SOURCE
# Deferred (=, not :=) so that `make deps check` asks pkg-config only after
# the packages are installed.
# zlib reads /proc/config.gz; libelf-dev depends on zlib1g-dev already.
ELF_CFLAGS    = $(shell $(PKG_CONFIG) --cflags libelf libbsd zlib)
ELF_LIBS      = $(shell $(PKG_CONFIG) --libs libelf libbsd zlib)
CMOCKA_CFLAGS = $(shell $(PKG_CONFIG) --cflags cmocka)
CMOCKA_LIBS   = $(shell $(PKG_CONFIG) --libs cmocka)

SRCS = src/main.c src/process.c src/runner.c src/elf_read.c \
       src/segment_pad.c src/plan_check.c src/compat.c src/geometry.c \
       src/impact.c src/phdr_rewrite.c src/atomic_file.c src/report.c \
       src/pid_scan.c src/hugefs.c src/fs_info.c src/windows.c \
       src/pagecache.c src/warm.c src/host.c src/report_runtime.c \
       src/error_text.c src/findings.c src/json_out.c src/report_check.c
OBJS = $(SRCS:.c=.o)
DEPS = $(OBJS:.o=.d) $(UNIT_TESTS:=.d) $(WRITE_TESTS:=.d) $(MEASURE_TESTS:=.d)
# What the planner unit tests link: the pure modules only.
PLAN_OBJS = src/segment_pad.o src/plan_check.o src/compat.o src/geometry.o \
            src/impact.o src/hugefs.o src/windows.o src/findings.o

UNIT_TESTS = tests/unit/test_segment_pad tests/unit/test_geometry \
             tests/unit/test_impact tests/unit/test_compat \
             tests/unit/test_hugefs tests/unit/test_plan_check
# The write pass on images it builds with libelf: every object but main.o,
# and the output writes wrapped so that it can make the Nth one fail.
WRITE_TESTS = tests/test_rewrite
WRITE_OBJS  = $(filter-out src/main.o,$(OBJS))
WRITE_WRAP  = -Wl,--wrap=pwrite64,--wrap=pwrite,--wrap=copy_file_range

.PHONY: all check mutation demo docs-samples bench fuzz fuzz-coverage corpus deps install \
        uninstall clean

all: elfthp-align

elfthp-align: $(OBJS)
	$(CC) -pthread $(LDFLAGS) -o $@ $(OBJS) $(ELF_LIBS) $(LDLIBS)

# -MMD -MP: each object's header dependencies, in src/*.d.
src/%.o: src/%.c
	$(CC) -pthread $(WARN) $(PROJECT_CPPFLAGS) $(CPPFLAGS) $(ELF_CFLAGS) $(CFLAGS) -MMD -MP \
	    -c -o $@ $<

tests/unit/%: tests/unit/%.c tests/unit/fixture.c $(PLAN_OBJS)
	$(CC) $(WARN) $(PROJECT_CPPFLAGS) $(CPPFLAGS) $(CMOCKA_CFLAGS) $(CFLAGS) -MMD -MP \
	    $(LDFLAGS) -o $@ $< tests/unit/fixture.c $(PLAN_OBJS) $(CMOCKA_LIBS) \
	    $(LDLIBS)

-include $(DEPS)

# $(call link_write_test,OBJECTS)
link_write_test = $(CC) -pthread $(WARN) $(PROJECT_CPPFLAGS) $(CPPFLAGS) \
	$(ELF_CFLAGS) $(CMOCKA_CFLAGS) $(CFLAGS) -MMD -MP $(LDFLAGS) \
	$(WRITE_WRAP) -o $@ $< $(1) $(ELF_LIBS) $(CMOCKA_LIBS) $(LDLIBS)

tests/test_rewrite: tests/test_rewrite.c $(WRITE_OBJS)
	$(call link_write_test,$(WRITE_OBJS))

# The measuring modes (--warm, warm_file, --host) with every call through
# which they look at the kernel wrapped, so that it can make the Nth fail.
MEASURE_TESTS = tests/test_measure
MEASURE_WRAP  = -Wl,--wrap=open64,--wrap=fopen64,--wrap=fgets,--wrap=opendir \
	-Wl,--wrap=readdir64,--wrap=gzopen64,--wrap=realpath,--wrap=fstat64 \
	-Wl,--wrap=pread64,--wrap=pwrite64,--wrap=mmap64,--wrap=madvise \
	-Wl,--wrap=mincore,--wrap=posix_fadvise64,--wrap=fdatasync,--wrap=syscall

tests/test_measure: tests/test_measure.c $(WRITE_OBJS)
	$(CC) -pthread $(WARN) $(PROJECT_CPPFLAGS) $(CPPFLAGS) $(ELF_CFLAGS) \
	    $(CMOCKA_CFLAGS) $(CFLAGS) -MMD -MP $(LDFLAGS) $(MEASURE_WRAP) -o $@ $< \
	    $(WRITE_OBJS) $(ELF_LIBS) $(CMOCKA_LIBS) $(LDLIBS)

# The tool with its test hooks (-DELFTHP_TEST_HOOKS: environment variables
# that make a race or a fault happen every time), for the integration
# tests that need them; only the objects that hold a hook differ.
HOOKS      = build/hooks
HOOK_SRCS  = src/atomic_file.c src/warm.c
HOOK_OBJS  = $(patsubst src/%.c,$(HOOKS)/%.o,$(HOOK_SRCS))
HOOKED     = $(HOOKS)/elfthp-align

$(HOOKS)/%.o: src/%.c src/%.o
	@mkdir -p $(@D)
	$(CC) -pthread $(WARN) $(PROJECT_CPPFLAGS) $(CPPFLAGS) $(ELF_CFLAGS) $(CFLAGS) \
	    -DELFTHP_TEST_HOOKS -c -o $@ $<

$(HOOKED): $(filter-out $(HOOK_SRCS:.c=.o),$(OBJS)) $(HOOK_OBJS)
	$(CC) -pthread $(LDFLAGS) -o $@ $^ $(ELF_LIBS) $(LDLIBS)

check: elfthp-align $(HOOKED) $(UNIT_TESTS) $(WRITE_TESTS) $(MEASURE_TESTS)
	@sh tests/run.sh $(UNIT_TESTS) $(WRITE_TESTS) $(MEASURE_TESTS)

# The mutant: only plan_check.o differs, and it lives in build/mutant, so
# the normal objects and test binaries are never touched.
MUTANT            = build/mutant
MUTANT_CHECK      = $(MUTANT)/plan_check.o
MUTANT_PLAN_OBJS  = $(filter-out src/plan_check.o,$(PLAN_OBJS)) $(MUTANT_CHECK)
MUTANT_WRITE_OBJS = $(filter-out src/plan_check.o,$(WRITE_OBJS)) $(MUTANT_CHECK)
MUTANT_TESTS      = $(addprefix $(MUTANT)/,$(UNIT_TESTS) $(WRITE_TESTS))

$(MUTANT_CHECK): src/plan_check.c src/plan_check.o
	@mkdir -p $(@D)
	$(CC) $(WARN) $(PROJECT_CPPFLAGS) $(CPPFLAGS) $(ELF_CFLAGS) $(CFLAGS) \
	    -DELFTHP_MUTANT_VERIFY -c -o $@ $<

$(MUTANT)/tests/unit/%: tests/unit/%.c tests/unit/fixture.c $(MUTANT_PLAN_OBJS)
	@mkdir -p $(@D)
	$(CC) $(WARN) $(PROJECT_CPPFLAGS) $(CPPFLAGS) $(CMOCKA_CFLAGS) $(CFLAGS) \
	    $(LDFLAGS) -o $@ $< tests/unit/fixture.c $(MUTANT_PLAN_OBJS) \
	    $(CMOCKA_LIBS) $(LDLIBS)

$(MUTANT)/tests/test_rewrite: tests/test_rewrite.c $(MUTANT_WRITE_OBJS)
	@mkdir -p $(@D)
	$(call link_write_test,$(MUTANT_WRITE_OBJS))

mutation: $(MUTANT_TESTS)
	@sh tests/mutation.sh $(MUTANT_TESTS)

demo: elfthp-align
	@sh examples/demo.sh

docs-samples: elfthp-align
	@bash scripts/docs-samples.sh

bench: elfthp-align
	@bash bench/run.sh

# libFuzzer, FUZZ_SECONDS long for each harness: the read and plan passes
# (FUZZ_WRITE=1 also the write pass), then the CLI paths; crashing inputs
# land in tests/hostile/found/.  make fuzz-coverage: per-file coverage.
FUZZ_SECONDS ?= 60
fuzz:
	@bash fuzz/run.sh $(FUZZ_SECONDS) && FUZZ_TARGET=cli bash fuzz/run.sh $(FUZZ_SECONDS)

fuzz-coverage:
	@bash fuzz/coverage.sh

# Rewrite copies of every ELF under CORPUS_DIRS and check them (tests/corpus.sh).
corpus: elfthp-align
	@bash tests/corpus.sh $(CORPUS_ARGS)

deps:
	@sh scripts/install-deps.sh

install: elfthp-align
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
	    $(DESTDIR)$(DATADIR)
	install -m 755 elfthp-align $(DESTDIR)$(BINDIR)/elfthp-align
	install -m 644 man/elfthp-align.1 $(DESTDIR)$(MANDIR)/man1/elfthp-align.1
	install -m 755 examples/cargo/elfthp-link $(DESTDIR)$(DATADIR)/elfthp-link

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/elfthp-align \
	    $(DESTDIR)$(MANDIR)/man1/elfthp-align.1 \
	    $(DESTDIR)$(DATADIR)/elfthp-link
	-rmdir $(DESTDIR)$(DATADIR) 2>/dev/null

clean:
	rm -f elfthp-align $(OBJS) $(UNIT_TESTS) $(WRITE_TESTS) $(MEASURE_TESTS) \
	    $(DEPS)
	rm -rf tests/build build
