# nfctag — build, test, benchmark, fuzz, demo, install and packaging targets.
# `make demo` runs the main job against the virtual reader; `make test` runs every test.

SHELL := /bin/bash
SWIFT      ?= swift
PREFIX     ?= /usr/local
DESTDIR    ?=
BINDIR      ?= $(PREFIX)/bin
# nfctag runs nfctag-provision (provision, ledger) from next to itself or from ../libexec/nfctag/
# relative to its own directory: keep LIBEXECDIR a sibling of BINDIR.
LIBEXECDIR  ?= $(PREFIX)/libexec
MANDIR      ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
# The Markdown documentation (docs/*.md) that help texts and the man page name.
DOCDIR      ?= $(PREFIX)/share/doc/nfctag
DOCS         = $(wildcard docs/*.md)
FUZZ_SECONDS ?= 60
FUZZ_TARGET  ?= all
FUZZ_RUNS    ?=
APT_PACKAGES = libpcsclite-dev libssl-dev pcscd vsmartcard-vpcd pcsc-tools python3-pyscard faketime curl pkg-config gcc
# What `make deb` and its test need: dpkg-shlibdeps, lintian, man to render the page, the shells
# whose completion scripts are checked, col (bsdextrautils) to read the rendered page.
PACKAGE_TOOLS = dpkg-dev lintian man-db groff-base bsdextrautils zsh fish
BENCH_TOOLS = hyperfine wrk
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
BIN_DEBUG = .build/debug/nfctag
VERSION := $(shell sed -n 's/^ *version: "\([^"]*\)",$$/\1/p' Sources/nfctag/NFCTool.swift)
# The one release build (Swift runtime linked statically), shared by install, deb and bench. It
# has its own scratch path so that no other build (the man-page plugin's, a plain
# `swift build -c release`) can relink the binary behind it.
RELEASE_SCRATCH = .build-release
SWIFT_RELEASE = $(SWIFT) build -c release --static-swift-stdlib --scratch-path $(RELEASE_SCRATCH)
BIN_RELEASE = $(RELEASE_SCRATCH)/release/nfctag
HELPER_RELEASE = $(RELEASE_SCRATCH)/release/nfctag-provision
DIST = $(RELEASE_SCRATCH)/dist
# The man page is dated by the last commit, so the same tree gives the same page.
MAN_DATE := $(shell git log -1 --format=%cs 2>/dev/null || date -u +%F)

.PHONY: all deps package-deps bench-deps build release dist test package-test tsan tsan-build docs bench fuzz fuzz-ci \
        install install-files uninstall deb lint-deb demo soak pcscd clean

all: build

# $(call apt_install,PACKAGES): install the Debian packages that are missing.
define apt_install
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing >/dev/null; \
	fi
endef

## deps: install the Debian packages the project needs, when missing.
deps:
	$(call apt_install,$(APT_PACKAGES))

## package-deps: what building and checking the Debian package needs.
package-deps:
	$(call apt_install,$(PACKAGE_TOOLS))

## bench-deps: what `make bench` needs beyond deps (hyperfine for the cold start).
bench-deps:
	$(call apt_install,$(BENCH_TOOLS))

## pcscd: build and install nfctag's own pcsc-lite driver (Drivers/ifd-nfctag: readers with real
## names and SCardControl, docs/ifd-handler.md) when it changed, restarting a running pcscd then;
## start pcscd (with the vpcd virtual reader and those readers) when none runs.
pcscd: deps
	@scripts/install-ifd-nfctag.sh
	@scripts/start-pcscd.sh

build: deps
	$(SWIFT) build

## test: the imports against docs/architecture.md's module list, and libc only in each module's
## Platform.swift (scripts/check-imports.sh, docs/platforms.md), then
## every suite in five processes side by side (scripts/run-tests.sh: the libraries', the CLI's,
## the end-to-end tests against the real pcscd and the virtual reader, and those on nfctag's
## pcsc-lite driver's readers); beside them, a
## library user's package (scripts/check-library-package.sh: CoreNFC resolves swift-log only), after
## scripts/product-api-closure.py (every type in a product's API comes with importing the product)
## (the examples are built first: the end-to-end tests run them too). The ledger's PostgreSQL
## tests run against a throw-away cluster (scripts/with-postgres.sh: started before, stopped
## after, also on failure). The package is checked by make package-test (its static release
## build takes longer than every test together; CI runs both).
test: deps pcscd
	scripts/check-imports.sh
	scripts/timed.sh build $(SWIFT) build --build-tests
	SWIFT="$(SWIFT)" scripts/product-api-closure.py
	SWIFT="$(SWIFT)" nice -n 10 scripts/check-library-package.sh > .build/library-package.log 2>&1 & library=$$!; \
	scripts/timed.sh tests scripts/with-postgres.sh env NFCTAG_E2E=1 SWIFT="$(SWIFT)" scripts/run-tests.sh 2>&1 | tee .build/test.log; \
	  status=$${PIPESTATUS[0]}; scripts/test-summary.sh .build/test.log; \
	  wait $$library || status=1; cat .build/library-package.log; exit $$status

## package-test: the static release build, make install into a scratch root, man -l, completions,
## make uninstall, make deb, dpkg -x and the unpacked nfctag --version, lintian.
package-test: package-deps
	scripts/timed.sh package scripts/test-package.sh

bench: deps bench-deps pcscd release
	$(SWIFT_RELEASE) --product NFCBench >/dev/null
	$(SWIFT_RELEASE) --product LedgerBench >/dev/null
	$(SWIFT_RELEASE) --product SUNBench >/dev/null
	$(SWIFT_RELEASE) --product PostgresLedgerBench >/dev/null
	$(SWIFT_RELEASE) --product SUNServeBench >/dev/null
	BIN_DIR=$(RELEASE_SCRATCH)/release scripts/bench.sh

## tsan: under ThreadSanitizer, the suites whose code under test starts threads or shares state
## between them (TSAN_SUITES); any report fails it. That is PC/SC (contexts, PnP notification),
## the reader drivers and pollers, the sessions (their queue, the exchange lock, invalidation from
## any thread; CoreNFC's delegate calls and completion handlers on the session's queue), the vpcd bridge, the ledgers (SQLite, PostgreSQL through NIO, connection loss), the
## provisioning run (one session per reader), and the end-to-end suites in which the TSan-built
## nfctag meets removals, Ctrl-C, pcscd restarts, several readers and stations. The rest stays
## with make test only (TSAN_SKIP and what TSAN_SUITES leaves out): codecs, parsers, the per-type
## memory logic and the virtual tags run on one thread; the CLI's output checks and the fault
## table (one command against one spoiled answer, row after row) add time, not threads; and the
## kill -9 scenarios (a station killed and restarted, a run killed twenty times, ProvisionFaults)
## prove what the ledger holds after a process dies, which a race detector cannot see: the
## threads of a station at work are the ones eightStationsFiveThousandRows and the provisioning
## suites run here. NFCTAG_TSAN=1 makes the suites that repeat one scenario (kills, thousands of
## rows) repeat it fewer times.
TSAN_SUITES = ^(LockingTests|PCSCTests|NFCReadersTests|NFCSessionTests|CoreNFCTests|NFCEmulatorVPCDTests|ProvisioningLedgerTests)\. \
  ^ProvisioningTests\.ProvisioningRunTests/ \
  ^nfctagTests\.(SessionEndToEnd|AuthenticationEndsWithTheCommandEndToEnd|InfoWithTheTagRemovedEndToEnd|ContinuousScanEndToEnd|TerminalEndToEnd)/ \
  ^nfctagTests\.(StationsEndToEnd|StationsUnderLoad|ReadersEndToEnd|ProvisionEndToEnd|FeederE2ETests|ServiceRestartEndToEnd)/ \
  ^nfctagTests\.FaultsEndToEnd/pcscdRestartedDuringAWrite \
  ^nfctagTests\.TagEndToEnd/(tagRemovedMidReadIs74WithTapAgain|emulateExitsZeroOnCtrlCAndTheCardLeaves|noTagBeforeTheTimeoutIs75)
TSAN_SKIP = /twoStationsOneKilledAndRestartedEveryRowOnExactlyOneTag
tsan: tsan-build pcscd
	NFCTAG_E2E=1 NFCTAG_TSAN=1 NFCTAG_TSAN_BUILD=1 TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" scripts/timed.sh tests scripts/with-postgres.sh \
	  $(SWIFT) test --skip-build --sanitize=thread --scratch-path .build-tsan --no-parallel \
	  $(foreach s,$(TSAN_SUITES),--filter '$(s)') $(foreach s,$(TSAN_SKIP),--skip '$(s)') 2>&1 | tee .build-tsan/test.log; \
	  status=$${PIPESTATUS[0]}; scripts/test-summary.sh .build-tsan/test.log; \
	  if grep -qE "^(WARNING|SUMMARY): ThreadSanitizer" .build-tsan/test.log; then echo "tsan: ThreadSanitizer reported a race"; exit 1; fi; \
	  exit $$status

## tsan-build: the build make tsan runs its suites on (.build-tsan); no pcscd (CI builds it beside
## make test's suites, one of which stops pcscd on purpose). Line tables only: a race report
## names functions, files and lines, and full debug info costs a good part of the build's CPU
## time (docs/architecture.md, "CI"). The index store stays: on Linux, SwiftPM finds the tests in it.
## NFCTAG_TSAN_BUILD=1 makes the manifest (Package.swift, at its end) leave out the test targets and
## test files TSAN_SUITES does not run, and the benchmarks: a new suite in TSAN_SUITES goes there too.
tsan-build: deps
	NFCTAG_TSAN_BUILD=1 scripts/timed.sh build $(SWIFT) build --build-tests --sanitize=thread --scratch-path .build-tsan \
	  -Xswiftc -gline-tables-only -Xcc -gline-tables-only

## docs: the DocC documentation of every library product (DOC_TARGETS; swift-docc-plugin, one
## call for all, which builds the modules once); any DocC warning fails it.
DOC_TARGETS = NDEF PCSC NFCSession NFCReaders NFCEmulator NFCTestSupport CoreNFC
docs: deps
	@mkdir -p .build; \
	  $(SWIFT) package --disable-sandbox generate-documentation $(addprefix --target ,$(DOC_TARGETS)) > .build/docs.log 2>&1 || { cat .build/docs.log; exit 1; }; \
	  if sed -n '/^Building documentation/,$$p' .build/docs.log | grep "warning:" | grep -qv "prohibited flag"; then \
	    sed -n '/^Building documentation/,$$p' .build/docs.log | grep -v "prohibited flag"; echo "docs: DocC warnings"; exit 1; fi; \
	  echo "docs: $(DOC_TARGETS) built without warnings (.build/plugins/Swift-DocC/outputs/*.doccarchive)"

## fuzz: every libFuzzer target (scripts/fuzz.sh list) for FUZZ_SECONDS each, or only FUZZ_TARGET;
## FUZZ_RUNS=10000000 runs each for that many executions instead of a time. Prints the executions,
## exec/s, wall time and corpus size per target and fails on any crash, invariant failure or hang over 1 s.
fuzz: deps
	FUZZ_RUNS=$(FUZZ_RUNS) scripts/fuzz.sh $(FUZZ_TARGET) $(FUZZ_SECONDS)

## fuzz-ci: the fuzzers built, then every target for 30 s, two at a time (CI runs the same two
## parts apart: the build beside make test, the runs one at a time beside make tsan).
fuzz-ci: deps
	scripts/timed.sh build scripts/fuzz.sh build
	FUZZ_RUNS= scripts/timed.sh runs scripts/fuzz.sh all 30

## release: the release binaries, Swift runtime linked statically: $(BIN_RELEASE) and the
## program it runs for provision and ledger, $(HELPER_RELEASE).
release: deps
	$(SWIFT_RELEASE) --product nfctag
	$(SWIFT_RELEASE) --product nfctag-provision

## dist: the man page (swift-argument-parser's generate-manual plugin: one page, every
## subcommand; its EXIT STATUS section replaced by docs/exit-codes.md's table,
## scripts/man-exit-status.sh) and the bash, zsh and fish completion scripts, in $(DIST).
dist: release
	rm -rf $(DIST) && mkdir -p $(DIST)
	$(SWIFT) package generate-manual --configuration debug --date $(MAN_DATE) >/dev/null
	scripts/man-exit-status.sh docs/exit-codes.md < .build/plugins/GenerateManual/outputs/nfctag/nfctag.1 > $(DIST)/nfctag.1
	$(BIN_RELEASE) --generate-completion-script bash | sed '1{/^#!/d}' > $(DIST)/nfctag.bash
	$(BIN_RELEASE) --generate-completion-script zsh > $(DIST)/_nfctag
	$(BIN_RELEASE) --generate-completion-script fish > $(DIST)/nfctag.fish

## install: builds (release, dist), then install-files.
install: dist
	$(MAKE) --no-print-directory install-files

## install-files: the binary, nfctag-provision (in $(LIBEXECDIR)/nfctag), the man page, the
## completions and docs/*.md (in $(DOCDIR)) under $(DESTDIR)$(PREFIX), from what `make release dist` built (no build:
## `make release dist && sudo make install-files`).
install-files:
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR)/nfctag $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR) \
	  $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR) $(DESTDIR)$(DOCDIR)
	install -m 755 $(BIN_RELEASE) $(DESTDIR)$(BINDIR)/nfctag
	install -m 755 $(HELPER_RELEASE) $(DESTDIR)$(LIBEXECDIR)/nfctag/nfctag-provision
	install -m 644 $(DIST)/nfctag.1 $(DESTDIR)$(MANDIR)/man1/nfctag.1
	install -m 644 $(DIST)/nfctag.bash $(DESTDIR)$(BASHCOMPDIR)/nfctag
	install -m 644 $(DIST)/_nfctag $(DESTDIR)$(ZSHCOMPDIR)/_nfctag
	install -m 644 $(DIST)/nfctag.fish $(DESTDIR)$(FISHCOMPDIR)/nfctag.fish
	install -m 644 $(DOCS) $(DESTDIR)$(DOCDIR)/

## uninstall: removes what install put there (same PREFIX and DESTDIR).
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/nfctag $(DESTDIR)$(LIBEXECDIR)/nfctag/nfctag-provision $(DESTDIR)$(MANDIR)/man1/nfctag.1 \
	  $(DESTDIR)$(BASHCOMPDIR)/nfctag $(DESTDIR)$(ZSHCOMPDIR)/_nfctag $(DESTDIR)$(FISHCOMPDIR)/nfctag.fish \
	  $(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(DOCS)))
	-rmdir $(DESTDIR)$(LIBEXECDIR)/nfctag $(DESTDIR)$(DOCDIR) 2>/dev/null

## deb: nfctag_VERSION_ARCH.deb in the project folder (scripts/build-deb.sh; docs/packaging.md).
deb: package-deps dist
	VERSION=$(VERSION) DIST=$(DIST) BIN=$(BIN_RELEASE) HELPER=$(HELPER_RELEASE) scripts/build-deb.sh

## lint-deb: lintian on the package; fails on any error or warning (the info-level tags it
## shows are explained in docs/packaging.md).
lint-deb: deb
	lintian --fail-on error,warning --info nfctag_$(VERSION)_$$(dpkg --print-architecture).deb

demo: deps pcscd
	scripts/demo.sh

## soak: provisioning stations under mixed faults, checked at the end (scripts/soak.py, under its
## own throw-away PostgreSQL; docs/reliability.md). SOAK_TAGS tags, faults drawn from SOAK_SEED.
SOAK_TAGS ?= 300
SOAK_SEED ?= 1
soak: pcscd
	$(SWIFT) build
	NFCTAG_POSTGRES_ENV=$(CURDIR)/.build/soak-postgres.env scripts/with-postgres.sh python3 scripts/soak.py --seed $(SOAK_SEED) --tags $(SOAK_TAGS)

clean:
	rm -rf .build $(RELEASE_SCRATCH) nfctag_*.deb
