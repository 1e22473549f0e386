# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# elfthp-align
#
#   make            build ./elfthp-align
#   make check      the layers and function sizes (scripts/layers.sh,
#                   scripts/funcsize.sh), unit tests (tests/unit/, tests/test_rewrite,
#                   tests/test_measure), then
#                   integration tests on fixtures built here
#                   ($(HOOKED), the tool with its test hooks, too)
#   make mutation   each deliberate bug in tests/mutants/ (a safety check
#                   removed) built in a copy of the tree, build/mutants/NAME,
#                   and the tests it names run until one fails
#                   (tests/mutation.sh); fails if any bug survives them all;
#                   MUTANTS="NAME..." runs only those, MUTATION_JOBS=N
#                   N at a time (default 2)
#   make demo       rewrite an embedded example and show what changed
#   make docs-samples  regenerate the README's output samples from real runs
#                   on the fixtures (scripts/docs-samples.sh; make check
#                   fails when they differ)
#   make check-vm   boot Debian's 6.1, 6.12 and 7.2 kernels (amd64, arm64 4K and
#                   16K pages) under qemu TCG and measure the outcome in each
#                   (tests/vm/run.sh; packages cached in build/vm); with
#                   VM_UPDATE=1 also rewrite tests/vm/results.txt and the
#                   table in docs/runtime.md; VM_GUESTS="NAME..." runs only those
#   make check-system  a whole Debian 12 system (mmdebstrap, cached in
#                   build/system): the unit's own command converges its /usr
#                   (timed, bytes counted, a second run writes nothing), then
#                   it and an unconverged control boot under qemu TCG to
#                   multi-user.target and run a workload of real programs
#                   (tests/system/run.sh; needs root; 2 to 3.2 minutes with the
#                   root cached, 8 more to build it)
#   make check-glibc  glibc 2.44's glibc.elf.thp=1 on files whose text starts
#                   on 2 MiB, from a cold page cache on loop-mounted ext4 and
#                   XFS (tests/glibc/run.sh; a sid root with Debian
#                   experimental's glibc, cached in build/glibc44; needs root)
#   make bench      benchmarks (bench/run.sh), results in bench/RESULTS.md
#   make fuzz       libFuzzer, both harnesses, FUZZ_SECONDS each (default 60)
#   make corpus     rewrite and check copies of the system's ELF files
#   make deps       install the Debian packages the build and tests need
#   make deb        build the Debian package (packaging/debian) in a copy of
#                   the tree and run lintian on it (build/deb/)
#   make install    the tool, man page, Cargo/CMake link wrappers, the CMake
#                   package (find_package(ElfthpAlign)) and elfthp-align.pc
#                   for Meson, systemd unit and timer, APT hook, path list,
#                   bash completion, rpm build-root policy (macros and brp
#                   script), debhelper addon (dh_elfthp_align, its man
#                   page and the elfthp_align sequence in PERL5DIR) and
#                   docs; DESTDIR, PREFIX, BINDIR, MANDIR, DATADIR,
#                   SYSCONFDIR, UNITDIR ... are honoured (see below)
#   make uninstall  removes exactly what install put there
#   make check SKIP_INTEGRATION=1   the unit tests alone (a package build)
#
# CFLAGS, CPPFLAGS, LDFLAGS and LDLIBS are the user's: they come after the
# project's, so `make CFLAGS="-O0 -g -Wno-shadow"` can turn a warning off.

# Installation directories, as the GNU Coding Standards name them.
PREFIX      ?= /usr/local
EXEC_PREFIX ?= $(PREFIX)
BINDIR      ?= $(EXEC_PREFIX)/bin
LIBDIR      ?= $(EXEC_PREFIX)/lib
DATAROOTDIR ?= $(PREFIX)/share
DATADIR     ?= $(DATAROOTDIR)
PKGDATADIR  ?= $(DATADIR)/elfthp-align
PKGLIBDIR   ?= $(LIBDIR)/elfthp-align
MANDIR      ?= $(DATAROOTDIR)/man
DOCDIR      ?= $(DATAROOTDIR)/doc/elfthp-align
SYSCONFDIR  ?= $(PREFIX)/etc
# systemd and APT read only their own directories: a package sets
# SYSCONFDIR=/etc and UNITDIR=/lib/systemd/system (see packaging/debian).
UNITDIR     ?= $(LIBDIR)/systemd/system
APTCONFDIR  ?= $(SYSCONFDIR)/apt/apt.conf.d
BASHCOMPDIR ?= $(DATAROOTDIR)/bash-completion/completions
# Where find_package() and pkg-config look by default for a /usr or
# /usr/local prefix; arch-independent, so share/ (docs/buildsystems.md).
CMAKEDIR    ?= $(DATAROOTDIR)/cmake/ElfthpAlign
PKGCONFIGDIR ?= $(DATAROOTDIR)/pkgconfig
# rpm reads macro files from its own macros.d only (PREFIX=/usr puts them
# there); the brp script they name stays in PKGDATADIR; the hook that adds
# it to every build is read from $(SYSCONFDIR)/rpm (rpm reads /etc/rpm).
RPMMACRODIR ?= $(LIBDIR)/rpm/macros.d
RPMCONFDIR  ?= $(SYSCONFDIR)/rpm
# debhelper loads its sequence addons from Perl's @INC, which holds
# /usr/share/perl5 (PREFIX=/usr) but no /usr/local/share/perl5: installed
# from source, set PERL5DIR (or PERL5LIB) to a directory in it.
PERL5DIR    ?= $(PREFIX)/share/perl5
DHSEQDIR     = $(PERL5DIR)/Debian/Debhelper/Sequence
INSTALL     ?= install
CC      ?= cc
PKG_CONFIG ?= pkg-config

WARN    = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
          -Wformat=2 -Wvla -Wno-unused-parameter
CFLAGS  ?= -O2 -g
ifeq ($(SANITIZE),1)
CFLAGS  += -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,undefined
endif
# The version lives in the file VERSION, and only there.
VERSION := $(shell cat VERSION)
PROJECT_CPPFLAGS = -Iinclude -D_FILE_OFFSET_BITS=64 -D_GNU_SOURCE \
                   -DELFTHP_VERSION='"$(VERSION)"' \
                   -DELFTHP_PKGLIBDIR='"$(PKGLIBDIR)"'
# Hardening, as distributions build: before the user's flags, so that a
# packager's (dpkg-buildflags) or a user's own win.  _FORTIFY_SOURCE needs
# optimisation, and is left to the user's flags when they name it.
FORTIFY = $(if $(findstring _FORTIFY_SOURCE,$(CPPFLAGS) $(CFLAGS)),,\
          $(if $(filter -O1 -O2 -O3 -Os -Og -Ofast,$(CFLAGS)),-D_FORTIFY_SOURCE=2))
# -fcf-protection exists on x86 only: asked of the compiler, once.
CF_PROTECTION := $(shell $(CC) -fcf-protection -x c -c -o /dev/null /dev/null \
                   2>/dev/null && echo -fcf-protection)
HARDEN_CFLAGS  = -fstack-protector-strong -fstack-clash-protection \
                 $(CF_PROTECTION) -fPIE $(FORTIFY)
HARDEN_LDFLAGS = -pie -Wl,-z,relro,-z,now
# Deferred (=, not :=) so that `make deps check` asks pkg-config only after
# the packages are installed.
# zlib reads /proc/config.gz; libelf-dev depends on zlib1g-dev already.
ELF_CFLAGS    = $(shell $(PKG_CONFIG) --cflags libelf libbsd zlib libzip)
ELF_LIBS      = $(shell $(PKG_CONFIG) --libs libelf libbsd zlib)
# Archives (--check --compat app.apk: docs/android.md) need libzip: its
# header here, and libzip.so.5 or .4 at run time, opened with dlopen on the
# first archive (src/io/zip_read.c says why it is not linked).  make
# WITH_LIBZIP=0 builds without it, and an archive is then an error that
# says so (the static guests' build in tests/vm/run.sh has no libzip.a).
WITH_LIBZIP ?= 1
ifeq ($(WITH_LIBZIP),0)
override ELF_CFLAGS = $(shell $(PKG_CONFIG) --cflags libelf libbsd zlib)
PROJECT_CPPFLAGS += -DELFTHP_NO_ZIP
endif
CMOCKA_CFLAGS = $(shell $(PKG_CONFIG) --cflags cmocka)
CMOCKA_LIBS   = $(shell $(PKG_CONFIG) --libs cmocka)

# The spine of the pipeline stays in src/ (command line, plan, write,
# report); the modules around it live in the layer their header names:
# src/core (elfthp_core.h: pure), src/io (elfthp_io.h: reads, writes,
# measures), src/cli (elfthp_cli.h: drives the passes, formats).  The
# layers and the absence of circles are checked by scripts/layers.sh.
CORE_SRCS = src/segment_pad.c src/core/layout.c src/core/validate.c \
       src/core/plan_check.c src/core/plan_error.c src/core/compat.c \
       src/core/findings.c src/core/geometry.c src/core/impact.c \
       src/core/hugefs.c src/core/windows.c src/core/pid_verdict.c \
       src/core/measure_stats.c src/core/archive.c src/core/glibc_thp.c \
       src/core/split.c
IO_SRCS = src/phdr_rewrite.c src/io/elf_read.c src/io/atomic_file.c \
       src/io/fs_info.c src/io/pagecache.c src/io/pc_view.c src/io/warm.c src/io/pid_scan.c \
       src/io/error_text.c src/io/host_probe.c src/io/dest.c \
       src/io/dirfd.c src/io/measure_run.c src/io/placement.c \
       src/io/atomic_links.c src/io/zip_read.c src/io/glibc_probe.c \
       src/io/collapse_fs.c src/io/same_program.c
CLI_SRCS = src/main.c src/report.c src/cli/process.c src/cli/runner.c \
       src/cli/report_check.c src/cli/report_runtime.c src/cli/json_out.c \
       src/cli/host.c src/cli/path_list.c src/cli/pid_mode.c src/cli/format.c \
       src/cli/measure.c src/cli/archive_check.c
SRCS = $(CLI_SRCS) $(IO_SRCS) $(CORE_SRCS)
OBJS = $(SRCS:.c=.o)
CORE_OBJS = $(CORE_SRCS:.c=.o)
DEPS = $(OBJS:.o=.d) $(UNIT_TESTS:=.d) $(WRITE_TESTS:=.d) $(MEASURE_TESTS:=.d)

# Each unit test links what it tests and what that needs, nothing more:
# fixture.c builds layouts (and needs geometry.c for params_of),
# fixture_plan.c runs the door, the planner and the check pass over them.
FIXTURE      = tests/unit/fixture.c src/core/geometry.o
PLANNER      = tests/unit/fixture_plan.c src/segment_pad.o src/core/split.o src/core/layout.o \
               src/core/validate.o src/core/plan_check.o src/core/plan_error.o
UNIT_test_segment_pad  = $(FIXTURE) $(PLANNER)
UNIT_test_plan_check   = $(FIXTURE) $(PLANNER)
UNIT_test_validate     = $(FIXTURE) $(PLANNER)
UNIT_test_plan_refusals = $(FIXTURE) $(PLANNER)
UNIT_test_compat       = $(FIXTURE) $(PLANNER) src/core/compat.o src/core/findings.o
UNIT_test_geometry     = $(FIXTURE)
UNIT_test_impact       = $(FIXTURE) $(PLANNER) src/core/impact.o
UNIT_test_hugefs       = $(FIXTURE) src/core/layout.o src/core/hugefs.o \
                         src/core/windows.o
UNIT_test_pid_verdict  = $(FIXTURE) src/core/layout.o src/core/pid_verdict.o
UNIT_test_measure_stats = src/core/measure_stats.o
UNIT_test_archive      = src/core/archive.o
UNIT_test_glibc_thp    = src/core/glibc_thp.o src/core/hugefs.o

UNIT_TESTS = tests/unit/test_segment_pad tests/unit/test_geometry \
             tests/unit/test_impact tests/unit/test_compat \
             tests/unit/test_hugefs tests/unit/test_plan_check \
             tests/unit/test_pid_verdict tests/unit/test_validate \
             tests/unit/test_plan_refusals tests/unit/test_measure_stats \
             tests/unit/test_archive tests/unit/test_glibc_thp
# The write pass on images it builds with libelf: every object but main.o,
# and the output writes wrapped so that it can make the Nth one fail.
WRITE_TESTS = tests/test_rewrite
WRITE_OBJS  = $(filter-out src/main.o,$(OBJS))
WRITE_WRAP  = -Wl,--wrap=pwrite64,--wrap=pwrite,--wrap=copy_file_range

.PHONY: all check check-vm check-system check-glibc mutation demo docs-samples bench fuzz fuzz-coverage corpus deps deb \
        install install-files uninstall clean

all: elfthp-align elfthp-audit.so

elfthp-align: $(OBJS)
	$(CC) -pthread $(HARDEN_LDFLAGS) $(LDFLAGS) -o $@ $(OBJS) $(ELF_LIBS) $(LDLIBS)

# --measure's text-only toggle: an LD_AUDIT module, loaded into the
# measured command's processes (position-independent, no sanitizer: it
# runs inside ld.so's audit namespace).
src/audit/%.o: src/audit/%.c
	$(CC) $(WARN) -fPIC $(CPPFLAGS) -O2 -g -c -o $@ $<
elfthp-audit.so: src/audit/elfthp_audit.o
	$(CC) -shared -fPIC -Wl,-z,relro,-z,now -o $@ $<

# -MMD -MP: each object's header dependencies, in src/**/*.d.
src/%.o: src/%.c
	$(CC) -pthread $(WARN) $(HARDEN_CFLAGS) $(PROJECT_CPPFLAGS) $(CPPFLAGS) $(ELF_CFLAGS) $(CFLAGS) -MMD -MP \
	    -c -o $@ $<

.SECONDEXPANSION:
tests/unit/%: tests/unit/%.c $$(UNIT_$$*)
	$(CC) $(WARN) $(HARDEN_CFLAGS) $(PROJECT_CPPFLAGS) $(CPPFLAGS) $(CMOCKA_CFLAGS) $(CFLAGS) -MMD -MP \
	    $(HARDEN_LDFLAGS) $(LDFLAGS) -o $@ $< $(UNIT_$*) $(CMOCKA_LIBS) $(LDLIBS)

-include $(DEPS)

# The version is compiled into main.o.
src/main.o: VERSION

# $(call link_write_test,OBJECTS)
link_write_test = $(CC) -pthread $(WARN) $(HARDEN_CFLAGS) $(PROJECT_CPPFLAGS) $(CPPFLAGS) \
	$(ELF_CFLAGS) $(CMOCKA_CFLAGS) $(CFLAGS) -MMD -MP $(HARDEN_LDFLAGS) $(LDFLAGS) \
	$(WRITE_WRAP) -o $@ $< $(1) $(ELF_LIBS) $(CMOCKA_LIBS) $(LDLIBS)

tests/test_rewrite: tests/test_rewrite.c $(WRITE_OBJS)
	$(call link_write_test,$(WRITE_OBJS))

# The measuring modes (--warm, warm_file, --host) with every call through
# which they look at the kernel wrapped, so that it can make the Nth fail.
MEASURE_TESTS = tests/test_measure
MEASURE_WRAP  = -Wl,--wrap=open64,--wrap=fopen64,--wrap=fgets,--wrap=__fgets_chk \
	-Wl,--wrap=opendir \
	-Wl,--wrap=readdir64,--wrap=gzopen64,--wrap=realpath,--wrap=fstat64 \
	-Wl,--wrap=pread64,--wrap=pwrite64,--wrap=mmap64,--wrap=madvise \
	-Wl,--wrap=mincore,--wrap=posix_fadvise64,--wrap=fdatasync,--wrap=syscall \
	-Wl,--wrap=ioctl

tests/test_measure: tests/test_measure.c $(WRITE_OBJS)
	$(CC) -pthread $(WARN) $(PROJECT_CPPFLAGS) $(CPPFLAGS) $(ELF_CFLAGS) \
	    $(CMOCKA_CFLAGS) $(CFLAGS) -MMD -MP $(LDFLAGS) $(MEASURE_WRAP) -o $@ $< \
	    $(WRITE_OBJS) $(ELF_LIBS) $(CMOCKA_LIBS) $(LDLIBS)

# The tool with its test hooks (-DELFTHP_TEST_HOOKS: environment variables
# that make a race or a fault happen every time), for the integration
# tests that need them; only the objects that hold a hook differ.
HOOKS      = build/hooks
HOOK_SRCS  = src/io/atomic_file.c src/io/warm.c src/io/collapse_fs.c \
	src/io/fs_info.c src/io/measure_run.c
HOOK_OBJS  = $(patsubst src/%.c,$(HOOKS)/%.o,$(HOOK_SRCS))
HOOKED     = $(HOOKS)/elfthp-align

$(HOOKS)/%.o: src/%.c src/%.o
	@mkdir -p $(@D)
	$(CC) -pthread $(WARN) $(PROJECT_CPPFLAGS) $(CPPFLAGS) $(ELF_CFLAGS) $(CFLAGS) \
	    -DELFTHP_TEST_HOOKS -c -o $@ $<

$(HOOKED): $(filter-out $(HOOK_SRCS:.c=.o),$(OBJS)) $(HOOK_OBJS)
	$(CC) -pthread $(LDFLAGS) -o $@ $^ $(ELF_LIBS) $(LDLIBS)

# First the shape of the code: no arrow up a layer, no circle, a core that
# imports only the allow-list (scripts/layers.sh), functions that fit on
# a screen (scripts/funcsize.sh); then the tests.
check: elfthp-align elfthp-audit.so $(HOOKED) $(UNIT_TESTS) $(WRITE_TESTS) $(MEASURE_TESTS)
	@sh scripts/layers.sh
	@sh scripts/funcsize.sh
	@sh tests/run.sh $(UNIT_TESTS) $(WRITE_TESTS) $(MEASURE_TESTS)

# Deliberate bugs (tests/mutants/NAME), each built in a copy of this tree
# (build/mutants/NAME), so the normal objects are never touched.
mutation: elfthp-align elfthp-audit.so $(HOOKED) $(UNIT_TESTS) $(WRITE_TESTS) $(MEASURE_TESTS)
	@MUTANTS="$(MUTANTS)" bash tests/mutation.sh

demo: elfthp-align
	@sh examples/demo.sh

print-srcs:
	@echo $(SRCS)

check-vm:
	@SRCS="$(SRCS)" bash tests/vm/run.sh $(if $(VM_UPDATE),--update) $(VM_GUESTS)

# Outside make check: root, network for the first build, and long.
check-system: elfthp-align
	@bash tests/system/run.sh

# glibc 2.44's glibc.elf.thp on start-aligned text from a cold cache: a
# sid root with Debian experimental's glibc (cached in build/glibc44),
# loop-mounted ext4 and XFS images.  Root, network for the first build.
check-glibc: elfthp-align
	@bash tests/glibc/run.sh

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

# The Debian package (packaging/debian), built in a copy of the tree, and
# lintian on it: scripts/build-deb.sh.
deb:
	@sh scripts/build-deb.sh

# What install puts where (DESTDIR is prepended).  The list is the
# uninstall list, and tests/integration/test_install.sh compares a DESTDIR
# install with it.
INSTALLED = $(BINDIR)/elfthp-align $(PKGLIBDIR)/elfthp-audit.so \
	$(MANDIR)/man1/elfthp-align.1 \
	$(PKGDATADIR)/elfthp-link $(PKGDATADIR)/elfthp-launch \
	$(PKGDATADIR)/schema-1.json \
	$(DOCDIR)/README.md $(DOCDIR)/NEWS $(DOCDIR)/LICENSE \
	$(UNITDIR)/elfthp-align.service $(UNITDIR)/elfthp-align.timer \
	$(APTCONFDIR)/90elfthp-align \
	$(BASHCOMPDIR)/elfthp-align \
	$(CMAKEDIR)/ElfthpAlignConfig.cmake \
	$(CMAKEDIR)/ElfthpAlignConfigVersion.cmake \
	$(PKGCONFIGDIR)/elfthp-align.pc \
	$(RPMMACRODIR)/macros.elfthp-align $(PKGDATADIR)/brp-elfthp-align \
	$(RPMCONFDIR)/macros.elfthp-align-hook \
	$(BINDIR)/dh_elfthp_align $(MANDIR)/man1/dh_elfthp_align.1 \
	$(DHSEQDIR)/elfthp_align.pm
# The path list is configuration: install does not overwrite one that is
# there, and uninstall removes it only while it is as shipped.
PATHS_CONF = $(SYSCONFDIR)/elfthp-align/paths
SUBST = sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
	-e 's|@PKGDATADIR@|$(PKGDATADIR)|g' -e 's|@RPMMACRODIR@|$(RPMMACRODIR)|g'
# The CMake package and the .pc name the tool relative to themselves, so
# that a DESTDIR staging tree or a moved prefix finds the tool beside them.
relpath = $(shell realpath -m --relative-to=$(1) $(2))
SUBST_BUILDSYS = sed -e 's|@VERSION@|$(VERSION)|g' \
	-e 's|@CMAKE_TO_BINDIR@|$(call relpath,$(CMAKEDIR),$(BINDIR))|g' \
	-e 's|@PC_TO_PREFIX@|$(call relpath,$(PKGCONFIGDIR),$(PREFIX))|g' \
	-e 's|@PC_TO_BINDIR@|$(call relpath,$(PKGCONFIGDIR),$(BINDIR))|g' \
	-e 's|@PC_TO_PKGDATADIR@|$(call relpath,$(PKGCONFIGDIR),$(PKGDATADIR))|g'

install-files:
	@echo $(INSTALLED) $(PATHS_CONF)

# dh_elfthp_align's man page, from its POD, as debhelper makes its own.
DH_MAN = build/man/dh_elfthp_align.1
$(DH_MAN): dist/debhelper/dh_elfthp_align VERSION
	@mkdir -p $(@D)
	pod2man --section=1 --center=Debhelper --release=$(VERSION) \
	    --name=DH_ELFTHP_ALIGN $< $@

install: elfthp-align elfthp-audit.so $(DH_MAN)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
	    $(DESTDIR)$(PKGLIBDIR) \
	    $(DESTDIR)$(PKGDATADIR) $(DESTDIR)$(DOCDIR) $(DESTDIR)$(UNITDIR) \
	    $(DESTDIR)$(APTCONFDIR) $(DESTDIR)$(BASHCOMPDIR) \
	    $(DESTDIR)$(SYSCONFDIR)/elfthp-align \
	    $(DESTDIR)$(CMAKEDIR) $(DESTDIR)$(PKGCONFIGDIR) \
	    $(DESTDIR)$(RPMMACRODIR) $(DESTDIR)$(RPMCONFDIR) \
	    $(DESTDIR)$(DHSEQDIR)
	$(INSTALL) -m 755 elfthp-align $(DESTDIR)$(BINDIR)/elfthp-align
	$(INSTALL) -m 644 elfthp-audit.so $(DESTDIR)$(PKGLIBDIR)/elfthp-audit.so
	$(INSTALL) -m 644 man/elfthp-align.1 $(DESTDIR)$(MANDIR)/man1/elfthp-align.1
	$(SUBST) examples/cargo/elfthp-link > $(DESTDIR)$(PKGDATADIR)/elfthp-link
	chmod 755 $(DESTDIR)$(PKGDATADIR)/elfthp-link
	ln -sf elfthp-link $(DESTDIR)$(PKGDATADIR)/elfthp-launch
	$(INSTALL) -m 644 docs/schema-1.json $(DESTDIR)$(PKGDATADIR)/schema-1.json
	$(INSTALL) -m 644 README.md NEWS LICENSE $(DESTDIR)$(DOCDIR)
	$(SUBST) dist/elfthp-align.service.in > $(DESTDIR)$(UNITDIR)/elfthp-align.service
	$(INSTALL) -m 644 dist/elfthp-align.timer $(DESTDIR)$(UNITDIR)/elfthp-align.timer
	chmod 644 $(DESTDIR)$(UNITDIR)/elfthp-align.service
	$(SUBST) dist/apt-hook.in > $(DESTDIR)$(APTCONFDIR)/90elfthp-align
	chmod 644 $(DESTDIR)$(APTCONFDIR)/90elfthp-align
	$(INSTALL) -m 644 dist/elfthp-align.bash $(DESTDIR)$(BASHCOMPDIR)/elfthp-align
	for f in ElfthpAlignConfig.cmake ElfthpAlignConfigVersion.cmake; do \
	    $(SUBST_BUILDSYS) dist/$$f.in > $(DESTDIR)$(CMAKEDIR)/$$f && \
	    chmod 644 $(DESTDIR)$(CMAKEDIR)/$$f || exit 1; done
	$(SUBST_BUILDSYS) dist/elfthp-align.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/elfthp-align.pc
	chmod 644 $(DESTDIR)$(PKGCONFIGDIR)/elfthp-align.pc
	$(SUBST) dist/rpm/macros.elfthp-align.in > $(DESTDIR)$(RPMMACRODIR)/macros.elfthp-align
	chmod 644 $(DESTDIR)$(RPMMACRODIR)/macros.elfthp-align
	$(SUBST) dist/rpm/brp-elfthp-align.in > $(DESTDIR)$(PKGDATADIR)/brp-elfthp-align
	chmod 755 $(DESTDIR)$(PKGDATADIR)/brp-elfthp-align
	$(SUBST) dist/rpm/macros.elfthp-align-hook.in > $(DESTDIR)$(RPMCONFDIR)/macros.elfthp-align-hook
	chmod 644 $(DESTDIR)$(RPMCONFDIR)/macros.elfthp-align-hook
	$(INSTALL) -m 755 dist/debhelper/dh_elfthp_align $(DESTDIR)$(BINDIR)/dh_elfthp_align
	$(INSTALL) -m 644 $(DH_MAN) $(DESTDIR)$(MANDIR)/man1/dh_elfthp_align.1
	$(INSTALL) -m 644 dist/debhelper/elfthp_align.pm $(DESTDIR)$(DHSEQDIR)/elfthp_align.pm
	[ -e $(DESTDIR)$(PATHS_CONF) ] || \
	    $(INSTALL) -m 644 dist/paths $(DESTDIR)$(PATHS_CONF)

# Quiet when there is nothing left to remove; directories go only if
# empty, and only the package's own.
uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	if cmp -s dist/paths $(DESTDIR)$(PATHS_CONF); then \
	    rm -f $(DESTDIR)$(PATHS_CONF); fi
	for d in $(PKGDATADIR) $(PKGLIBDIR) $(DOCDIR) $(SYSCONFDIR)/elfthp-align $(CMAKEDIR); do \
	    if [ -d $(DESTDIR)$$d ]; then rmdir $(DESTDIR)$$d 2>/dev/null || true; fi; \
	done

clean:
	rm -f elfthp-align elfthp-audit.so src/audit/elfthp_audit.o $(OBJS) $(UNIT_TESTS) $(WRITE_TESTS) $(MEASURE_TESTS) \
	    $(DEPS)
	rm -rf tests/build build
