# elfthp-align
#
#   make            build ./elfthp-align
#   make check      unit tests (tests/unit/, tests/test_rewrite), then
#                   integration tests on fixtures built here
#   make mutation   the unit and write-pass tests again, built in build/mutant
#                   with plan_verify stubbed to `return 0` (src/plan_check.c,
#                   -DELFTHP_MUTANT_VERIFY): succeeds only if some of them
#                   fail, and names them; fails if all pass with the mutant
#   make demo       rewrite an embedded example and show what changed
#   make bench      benchmarks (bench/run.sh), results in bench/RESULTS.md
#   make fuzz       libFuzzer, both harnesses, FUZZ_SECONDS each (default 60)
#   make corpus     rewrite and check copies of the system's ELF files
#   make deps       install the Debian packages the build and tests need
#   make install    PREFIX (default /usr/local) and DESTDIR are honoured

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
CC      ?= cc
PKG_CONFIG ?= pkg-config

WARN    = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
          -Wformat=2 -Wvla -Wno-unused-parameter
CFLAGS  ?= -O2 -g
ifeq ($(SANITIZE),1)
CFLAGS  += -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,undefined
endif
CPPFLAGS += -Iinclude -D_FILE_OFFSET_BITS=64 -D_GNU_SOURCE
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
       src/pagecache.c src/warm.c src/host.c src/report_runtime.c
OBJS = $(SRCS:.c=.o)
# What the planner unit tests link: the pure modules only.
PLAN_OBJS = src/segment_pad.o src/plan_check.o src/compat.o src/geometry.o \
            src/impact.o src/hugefs.o src/windows.o

UNIT_TESTS = tests/unit/test_segment_pad tests/unit/test_hugefs \
             tests/unit/test_plan_check
# The write pass on images it builds with libelf: every object but main.o,
# and the output writes wrapped so that it can make the Nth one fail.
WRITE_TESTS = tests/test_rewrite
WRITE_OBJS  = $(filter-out src/main.o,$(OBJS))
WRITE_WRAP  = -Wl,--wrap=pwrite64,--wrap=pwrite,--wrap=copy_file_range

.PHONY: all check mutation demo bench fuzz fuzz-coverage corpus deps install clean

all: elfthp-align

elfthp-align: $(OBJS)
	$(CC) $(LDFLAGS) -o $@ $(OBJS) $(ELF_LIBS) -lpthread

src/%.o: src/%.c include/elfthp.h
	$(CC) $(CPPFLAGS) $(ELF_CFLAGS) $(CFLAGS) $(WARN) -c -o $@ $<

tests/unit/%: tests/unit/%.c $(PLAN_OBJS) include/elfthp.h
	$(CC) $(CPPFLAGS) $(CMOCKA_CFLAGS) $(CFLAGS) $(WARN) $(LDFLAGS) \
	    -o $@ $< $(PLAN_OBJS) $(CMOCKA_LIBS)

# $(call link_write_test,OBJECTS)
link_write_test = $(CC) $(CPPFLAGS) $(ELF_CFLAGS) $(CMOCKA_CFLAGS) $(CFLAGS) \
	$(WARN) $(LDFLAGS) $(WRITE_WRAP) -o $@ $< $(1) $(ELF_LIBS) \
	$(CMOCKA_LIBS) -lpthread

tests/test_rewrite: tests/test_rewrite.c $(WRITE_OBJS) include/elfthp.h
	$(call link_write_test,$(WRITE_OBJS))

check: elfthp-align $(UNIT_TESTS) $(WRITE_TESTS)
	@sh tests/run.sh $(UNIT_TESTS) $(WRITE_TESTS)

# The mutant: only plan_check.o differs, and it lives in build/mutant, so
# the normal objects and test binaries are never touched.
MUTANT            = build/mutant
MUTANT_CHECK      = $(MUTANT)/plan_check.o
MUTANT_PLAN_OBJS  = $(filter-out src/plan_check.o,$(PLAN_OBJS)) $(MUTANT_CHECK)
MUTANT_WRITE_OBJS = $(filter-out src/plan_check.o,$(WRITE_OBJS)) $(MUTANT_CHECK)
MUTANT_TESTS      = $(addprefix $(MUTANT)/,$(UNIT_TESTS) $(WRITE_TESTS))

$(MUTANT_CHECK): src/plan_check.c include/elfthp.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ELF_CFLAGS) $(CFLAGS) $(WARN) -DELFTHP_MUTANT_VERIFY \
	    -c -o $@ $<

$(MUTANT)/tests/unit/%: tests/unit/%.c $(MUTANT_PLAN_OBJS) include/elfthp.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CMOCKA_CFLAGS) $(CFLAGS) $(WARN) $(LDFLAGS) \
	    -o $@ $< $(MUTANT_PLAN_OBJS) $(CMOCKA_LIBS)

$(MUTANT)/tests/test_rewrite: tests/test_rewrite.c $(MUTANT_WRITE_OBJS) \
    include/elfthp.h
	@mkdir -p $(@D)
	$(call link_write_test,$(MUTANT_WRITE_OBJS))

mutation: $(MUTANT_TESTS)
	@sh tests/mutation.sh $(MUTANT_TESTS)

demo: elfthp-align
	@sh examples/demo.sh

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
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 elfthp-align $(DESTDIR)$(BINDIR)/elfthp-align
	install -m 644 man/elfthp-align.1 $(DESTDIR)$(MANDIR)/man1/elfthp-align.1

clean:
	rm -f elfthp-align $(OBJS) $(UNIT_TESTS) $(WRITE_TESTS)
	rm -rf tests/build build
