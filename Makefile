# nfctag — build, test, benchmark, fuzz and demo targets.
# `make demo` runs the main job against the virtual reader; `make test` runs every test.

SHELL := /bin/bash
SWIFT      ?= swift
PREFIX     ?= /usr/local
FUZZ_SECONDS ?= 60
FUZZ_TARGET  ?= all
APT_PACKAGES = libpcsclite-dev pcscd vsmartcard-vpcd pcsc-tools python3-pyscard
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
BIN_DEBUG = .build/debug/nfctag

.PHONY: all deps build test tsan docs unit-test e2e-test bench fuzz fuzz-ci install demo pcscd clean

all: build

## deps: install the Debian packages the project needs, when missing.
deps:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing >/dev/null; \
	fi

## pcscd: start pcscd (with the vpcd virtual reader) when none runs.
pcscd: deps
	@scripts/start-pcscd.sh

build: deps
	$(SWIFT) build

## test: unit tests, then the end-to-end tests against the real pcscd and the virtual reader
## (the examples are built first: the end-to-end tests run them too).
test: deps pcscd
	$(SWIFT) build
	NFCTAG_E2E=1 $(SWIFT) test --no-parallel 2>&1 | tee .build/test.log; exit $${PIPESTATUS[0]}

## tsan: the whole test suite under ThreadSanitizer, end-to-end tests included; any report fails it.
tsan: deps pcscd
	$(SWIFT) build --sanitize=thread --scratch-path .build-tsan
	NFCTAG_E2E=1 TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
	  $(SWIFT) test --sanitize=thread --scratch-path .build-tsan --no-parallel 2>&1 | tee .build-tsan/test.log; \
	  status=$${PIPESTATUS[0]}; \
	  if grep -q "WARNING: ThreadSanitizer" .build-tsan/test.log; then echo "tsan: ThreadSanitizer reported a race"; exit 1; fi; \
	  exit $$status

## docs: the DocC documentation of NFCSession and NDEF (swift-docc-plugin); any DocC warning fails it.
docs: deps
	@mkdir -p .build; for target in NFCSession NDEF; do \
	  $(SWIFT) package --disable-sandbox generate-documentation --target $$target > .build/docs-$$target.log 2>&1 || { cat .build/docs-$$target.log; exit 1; }; \
	  if sed -n '/^Building documentation/,$$p' .build/docs-$$target.log | grep -q "warning:"; then \
	    sed -n '/^Building documentation/,$$p' .build/docs-$$target.log; echo "docs: DocC warnings in $$target"; exit 1; fi; \
	  echo "docs: $$target built without warnings (.build/plugins/Swift-DocC/outputs/$$target.doccarchive)"; \
	done

bench: deps pcscd
	scripts/bench.sh

## fuzz: every libFuzzer target (scripts/fuzz.sh list) for FUZZ_SECONDS each, or only FUZZ_TARGET;
## prints the executions per target and fails on any crash, invariant failure or hang over 1 s.
fuzz: deps
	scripts/fuzz.sh $(FUZZ_TARGET) $(FUZZ_SECONDS)

## fuzz-ci: every target for 30 s (what CI runs).
fuzz-ci: deps
	scripts/fuzz.sh all 30

install: deps
	$(SWIFT) build -c release --static-swift-stdlib --product nfctag
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 .build/release/nfctag $(DESTDIR)$(PREFIX)/bin/nfctag

demo: deps pcscd
	scripts/demo.sh

clean:
	rm -rf .build
