# SPDX-License-Identifier: GPL-2.0-only
#
# volctl: one hand-written, non-recursive Makefile. ./configure writes Makefile.inc.
#
#   make                 build ./volctl
#   make check           C unit tests, then every bats suite (mounted tests skip without root/loop)
#   make check-unit      C unit tests only
#   make check-release   the release and build tests (tests/release: version, tarball, flags)
#   make check-asan      the same tests with a build under AddressSanitizer + UBSan (in build-asan/)
#                        (in parts: build-asan, check-asan-offline, check-asan-mounted)
#   make check-powercut  the power-cut test of every offline write with more cut points (root)
#   make check-api       kernel-shared/ must not print, exit or use common/ or cmds/
#   make soak            the engine against the kernel on SEEDS random kernel-made images
#                        (root; SEEDS=200 SIZE=small|large FIRST=1, tests/kdiff/kdiff.py)
#   make soak-rootdir    volctl mkfs --rootdir against the kernel on SEEDS random trees
#                        (root; SEEDS=200 ROOTDIR_SCALE=small|large FIRST=1,
#                        ROOTDIR_TOOL='CMD {DIR} {IMG} {SIZE}', ROOTDIR_ARGS=more
#                        run-seed.sh options, tests/rootdir/README.md)
#   make soak-sendsize   incremental send-size against btrfs send -p on SEEDS kernel-made pairs
#   make soak-diff       the subvolume diff / send-size oracle on SEEDS kernel-made snapshot
#                        pairs (root; SEEDS=200 FIRST=1, DIFF_TOOL='CMD {OLD} {NEW} [{IMG}]'
#                        to hold a tool to it, tests/kdiff/README.md)
#   make fuzz            build and run the libFuzzer targets for FUZZ_SECONDS each
#   make install         DESTDIR, prefix, sbindir, mandir, docdir honoured
#   make dist            volctl-VERSION.tar.gz, configure included
#   make distcheck       dist, then configure, make, make check (DISTCHECK_TARGETS),
#                        install and uninstall from the unpacked tarball
#   V=1 shows commands, D=1 builds without optimisation, O=DIR puts objects in DIR

ifeq ($(wildcard Makefile.inc),)
# cleaning works unconfigured (debian/rules clean runs first)
ifeq ($(filter clean distclean maintainer-clean,$(MAKECMDGOALS)),)
$(error Makefile.inc is missing: run ./autogen.sh && ./configure first)
endif
else
include Makefile.inc
endif

O ?= .
ifeq ($(V),1)
Q =
else
Q = @
endif

WARNINGS = -Wall -Wextra -Wno-unused-parameter -Wmissing-prototypes -Wshadow -Wvla
ifeq ($(D),1)
OPT = -O0 -g3
endif
# CPPFLAGS, CFLAGS and LDFLAGS (Makefile.inc) appear once each, after ours
CPPFLAGS_ALL = -D_GNU_SOURCE -I. -Ikernel-shared -DVOLCTL_VERSION='"$(PACKAGE_VERSION)"' \
	       -DVOLCTL_FAULT_INJECTION=$(FAULT_INJECTION) $(CPPFLAGS)
CFLAGS_ALL = -std=gnu11 $(WARNINGS) $(LIBS_CFLAGS) $(CFLAGS) $(OPT) $(EXTRA_CFLAGS)
LDFLAGS_ALL = $(LDFLAGS) $(EXTRA_LDFLAGS)

KSHARED_SRC = $(sort $(filter-out kernel-shared/gen-%,$(wildcard kernel-shared/*.c)))
COMMON_SRC  = $(sort $(wildcard common/*/*.c))
CMDS_SRC    = $(sort $(wildcard cmds/*.c))
UNIT_SRC    = $(sort $(wildcard tests/unit/test-*.c))
FUZZ_SRC    = $(sort $(wildcard tests/fuzz/fuzz-*.c))

KSHARED_OBJ = $(KSHARED_SRC:%.c=$(O)/%.o)
COMMON_OBJ  = $(COMMON_SRC:%.c=$(O)/%.o)
CMDS_OBJ    = $(CMDS_SRC:%.c=$(O)/%.o)
MAIN_OBJ    = $(O)/volctl.o
UNIT_BIN    = $(UNIT_SRC:%.c=$(O)/%)
POWERCUT    = $(O)/tests/powercut/powercut
TREE_COMPARE = $(O)/tests/tree-compare/tree-compare
LIB_OBJ     = $(KSHARED_OBJ) $(COMMON_OBJ)

ALL_LIBS = $(LIBS_COMMON) $(LIBS_SHARED)
GROUP_LINKS = volctl-subvolume volctl-quota volctl-qgroup
MANPAGES = $(sort $(wildcard Documentation/*.8))

.PHONY: all clean distclean check check-unit check-cli check-mounted check-asan check-api check-powercut \
	build-asan check-build check-asan-offline check-asan-mounted check-release \
	install uninstall fuzz bench soak soak-rootdir soak-diff soak-sendsize dist distcheck maintainer-clean
all: $(O)/volctl

$(O)/volctl: $(MAIN_OBJ) $(CMDS_OBJ) $(LIB_OBJ)
	@echo "    [LD]     $@"
	$(Q)$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDFLAGS_ALL) $(ALL_LIBS)

# the version and the flags come from there
$(MAIN_OBJ): Makefile.inc

# the version is a -D flag from Makefile.inc: a new configure rebuilds what prints it
$(O)/volctl.o: $(wildcard Makefile.inc)

$(O)/%.o: %.c
	@$(MKDIR_P) $(dir $@)
	@echo "    [CC]     $@"
	$(Q)$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -MMD -MP -c -o $@ $<

# rebuilds devices from a write log (a test helper, run at every cut point):
# libc only, and without check-asan's sanitizers, which would double its cost
$(POWERCUT): tests/powercut/powercut.c
	@$(MKDIR_P) $(dir $@)
	@echo "    [LD]     $@"
	$(Q)$(CC) $(CPPFLAGS_ALL) -std=gnu11 $(WARNINGS) $(OPT) $(CFLAGS) -o $@ $< $(LDFLAGS)

# the tree comparison engine and a naive comparison on an image (tests/mounted/tree-compare.bats)
$(TREE_COMPARE): tests/tree-compare/tree-compare.c $(LIB_OBJ)
	@$(MKDIR_P) $(dir $@)
	@echo "    [LD]     $@"
	$(Q)$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -MMD -MP -MF $@.d -o $@ $< $(LIB_OBJ) $(LDFLAGS_ALL) $(ALL_LIBS)

# -MMD: a test is rebuilt when a header it includes (unit.h, ...) changes
$(O)/tests/unit/test-%: tests/unit/test-%.c $(LIB_OBJ)
	@$(MKDIR_P) $(dir $@)
	@echo "    [LD]     $@"
	$(Q)$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -MMD -MP -MF $@.d -o $@ $< $(LIB_OBJ) $(LDFLAGS_ALL) $(ALL_LIBS)

-include $(shell find $(O) -name '*.d' -not -path '*/.git/*' 2>/dev/null)

# ---- tests -----------------------------------------------------------------------------
BATS_FLAGS ?=
check: check-api check-unit check-cli check-release check-mounted

check-unit: $(UNIT_BIN)
	$(Q)tests/run-unit.sh $(UNIT_BIN)

check-cli: $(O)/volctl $(POWERCUT)
	$(Q)VOLCTL=$(abspath $(O)/volctl) POWERCUT=$(abspath $(POWERCUT)) \
		tests/run-bats.sh cli tests/cli $(BATS_FLAGS)

check-mounted: $(O)/volctl $(POWERCUT) $(TREE_COMPARE)
	$(Q)VOLCTL=$(abspath $(O)/volctl) POWERCUT=$(abspath $(POWERCUT)) \
		TREE_COMPARE=$(abspath $(TREE_COMPARE)) \
		tests/run-bats.sh mounted tests/mounted $(BATS_FLAGS)

# the release and the build: version, COPYING, quick start in a tarball,
# build flags (no root; apart from check-cli since the sanitizer build and
# the tarball's own tests need not build the tree again)
check-release: $(O)/volctl
	$(Q)VOLCTL=$(abspath $(O)/volctl) tests/run-bats.sh release tests/release $(BATS_FLAGS)

# the power-cut test with many more subsets of the unflushed writes (root, loop devices)
check-powercut: $(O)/volctl $(POWERCUT)
	$(Q)VOLCTL=$(abspath $(O)/volctl) POWERCUT=$(abspath $(POWERCUT)) POWERCUT_FULL=1 \
		bats --tap $(BATS_FLAGS) tests/mounted/powercut.bats

ASAN_FLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
ASAN_MAKE = ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	$(MAKE) O=build-asan FAULT_INJECTION=1 EXTRA_CFLAGS="$(ASAN_FLAGS)" EXTRA_LDFLAGS="$(ASAN_FLAGS)"
check-asan:
	$(ASAN_MAKE) check
# the same in parts (.ci/run runs the parts without the kernel beside the
# mounted suites): the build, the suites that need no kernel, the mounted ones
build-asan:
	$(ASAN_MAKE) check-build
# everything the tests run, built
check-build: $(O)/volctl $(UNIT_BIN) $(POWERCUT) $(TREE_COMPARE)
check-asan-offline:
	$(ASAN_MAKE) check-api check-unit check-cli
check-asan-mounted:
	$(ASAN_MAKE) check-mounted

check-api:
	$(Q)tests/check-api.sh

SEEDS ?= 200
SIZE ?= large
FIRST ?= 1
soak: $(O)/volctl
	$(Q)python3 tests/kdiff/kdiff.py --volctl $(abspath $(O)/volctl) --size $(SIZE) \
		$$(seq $(FIRST) $$(($(FIRST) + $(SEEDS) - 1)))

# the subvolume diff / send-size oracle (tests/kdiff/README.md): per seed a snapshot
# pair made by the kernel, the walk's diff, send --no-data | receive --dump against
# it, the send sizes, and DIFF_TOOL (default: volctl subvolume diff once it exists)
DIFF_TOOL ?=
soak-diff: $(O)/volctl
	$(Q)tests/kdiff/soak-diff.sh --volctl $(abspath $(O)/volctl) \
		$(if $(DIFF_TOOL),--diff '$(DIFF_TOOL)') $(FIRST) $(SEEDS)

# the send-size oracle for incremental sends: per seed a kernel-made pair sent
# with -p (and swapped, and with -c) against volctl subvolume send-size
soak-sendsize: $(O)/volctl
	$(Q)tests/kdiff/soak-sendsize.sh $(abspath $(O)/volctl) /tmp/volctl-soak-sendsize \
		$(FIRST) $(SEEDS)

# the mkfs --rootdir oracle (tests/rootdir/README.md): every seed's tree made,
# put in an image by the tool, checked, compared inode by inode through the
# kernel, used, checked again, sent and received and compared again
ROOTDIR_SCALE ?= small
ROOTDIR_TOOL ?= $(abspath $(O)/volctl) mkfs --rootdir {DIR} -s {SIZE} {IMG}
ROOTDIR_ARGS ?= --size 0
soak-rootdir: $(O)/volctl
	$(Q)tests/rootdir/soak.sh --scale $(ROOTDIR_SCALE) $(ROOTDIR_ARGS) --tool '$(ROOTDIR_TOOL)' \
		$(FIRST) $(SEEDS)

# ---- fuzzing (clang + libFuzzer) -------------------------------------------------------
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_FLAGS = -g -O1 -fsanitize=fuzzer,address,undefined
fuzz:
	$(Q)for f in $(FUZZ_SRC); do \
		b=build-fuzz/$$(basename $$f .c); mkdir -p build-fuzz; \
		echo "    [FUZZ]   $$b"; \
		$(FUZZ_CC) $(CPPFLAGS_ALL) -std=gnu11 $(LIBS_CFLAGS) $(FUZZ_FLAGS) -o $$b $$f \
			$(KSHARED_SRC) $(LIBS_SHARED) || exit 1; \
		mkdir -p build-fuzz/corpus-$$(basename $$f .c); \
		$$b -max_total_time=$(FUZZ_SECONDS) build-fuzz/corpus-$$(basename $$f .c) \
			tests/fuzz/seeds/ || exit 1; \
	done

bench: $(O)/volctl
	@echo "benchmarks need root and loop devices: see bench/README.md"

# ---- install ---------------------------------------------------------------------------
install: $(O)/volctl
	$(MKDIR_P) $(DESTDIR)$(sbindir) $(DESTDIR)$(mandir)/man8 \
		$(DESTDIR)$(datadir)/bash-completion/completions
	$(INSTALL) -m 755 $(O)/volctl $(DESTDIR)$(sbindir)/volctl
	for l in $(GROUP_LINKS); do ln -sf volctl $(DESTDIR)$(sbindir)/$$l; done
	for m in $(MANPAGES); do $(INSTALL) -m 644 $$m $(DESTDIR)$(mandir)/man8/; done
	$(INSTALL) -m 644 completion/volctl $(DESTDIR)$(datadir)/bash-completion/completions/volctl
	$(MKDIR_P) $(DESTDIR)$(datadir)/volctl $(DESTDIR)$(docdir)
	$(INSTALL) -m 644 Documentation/volctl.schema.json $(DESTDIR)$(datadir)/volctl/
	$(INSTALL) -m 644 Documentation/json-schema.md $(DESTDIR)$(docdir)/
	for l in $(GROUP_LINKS); do \
		ln -sf volctl $(DESTDIR)$(datadir)/bash-completion/completions/$$l; done

uninstall:
	rm -f $(DESTDIR)$(sbindir)/volctl $(addprefix $(DESTDIR)$(sbindir)/,$(GROUP_LINKS))
	rm -f $(addprefix $(DESTDIR)$(mandir)/man8/,$(notdir $(MANPAGES)))
	rm -f $(DESTDIR)$(datadir)/volctl/volctl.schema.json $(DESTDIR)$(docdir)/json-schema.md
	rm -f $(DESTDIR)$(datadir)/bash-completion/completions/volctl \
		$(addprefix $(DESTDIR)$(datadir)/bash-completion/completions/,$(GROUP_LINKS))

clean:
	find . -name '*.o' -o -name '*.d' | grep -v '^./.git' | xargs rm -f
	rm -f volctl $(UNIT_BIN) $(POWERCUT) $(TREE_COMPARE)
	rm -rf build-asan build-fuzz

# distclean leaves ./configure, which a release tarball ships; maintainer-clean
# also removes what ./autogen.sh makes
distclean: clean
	rm -rf Makefile.inc config.log config.status autom4te.cache
	rm -f volctl-*.tar.gz

maintainer-clean: distclean
	rm -rf configure config aclocal.m4

# ---- release tarball ---------------------------------------------------------------------
DIST_NAME = $(PACKAGE_TARNAME)-$(PACKAGE_VERSION)
# what distcheck runs in the unpacked tree after make
DISTCHECK_TARGETS ?= check
dist:
	$(Q)scripts/make-dist.sh $(DIST_NAME)

distcheck: dist
	$(Q)scripts/distcheck.sh $(DIST_NAME) $(DISTCHECK_TARGETS)

# ---- demo (offline, no root) -------------------------------------------------------------
.PHONY: demo
demo: $(O)/volctl
	$(Q)VOLCTL=$(abspath $(O)/volctl) scripts/demo.sh
