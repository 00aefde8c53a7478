# jobrun — the two set-up commands are `make demo` and `make test`; both install what is missing.
SHELL := /bin/bash
PREFIX ?= /usr/local
SWIFT ?= swift
SWIFT_FLAGS ?=
# Release builds link the Swift runtime statically on Linux: faster start-up, and a binary that
# needs no Swift toolchain to run (docs/performance.md, "Start-up", has the figures).
# Darwin ships the Swift runtime in the OS, so there the flag is left out.
UNAME_S := $(shell uname -s)
RELEASE_FLAGS ?= $(if $(filter Linux,$(UNAME_S)),--static-swift-stdlib)
RELEASE_BUILD = $(SWIFT) build $(SWIFT_FLAGS) $(RELEASE_FLAGS) -c release
RELEASE_BIN = $$($(RELEASE_BUILD) --show-bin-path)/jobrun
APT_PACKAGES := libyaml-dev libsqlite3-dev libcurl4-openssl-dev libssl-dev pkg-config libxml2-utils python3 python3-jsonschema openssl nginx-light tmux dbus-daemon python3-dbus python3-gi strace groff-base mandoc minisign signify-openbsd liblzma-dev zlib1g-dev gpgv gpg xz-utils libxml2 dpkg apt dpkg-dev lintian man-db
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps build release release-bin test lint format fuzz demo install deb uninstall bench-plan bench-verify bench-state bench-apply bench-scale bench-wan bench-origins bench-refresh bench-publish bench-debian bench soak clean

## deps: install the Debian packages jobrun builds and tests with (quiet, idempotent), and unpack
## promtool from Debian's prometheus package under .build-tools (installing the package would
## start a Prometheus server)
PROMTOOL := .build-tools/prometheus/usr/bin/promtool
deps:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "make deps: installing$$missing"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi
	@if [ ! -x $(PROMTOOL) ] && [ ! -x /usr/bin/promtool ]; then \
	  rm -rf .build-tools/prometheus && mkdir -p .build-tools/prometheus && \
	  (cd .build-tools && { apt-get download prometheus >/dev/null 2>&1 || \
	    { $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null && apt-get download prometheus >/dev/null 2>&1; }; } && \
	    dpkg-deb -x prometheus_*.deb prometheus && rm -f prometheus_*.deb) || \
	  echo "make deps: cannot unpack promtool from Debian's prometheus package: the metrics tests will fail"; \
	fi
	@command -v $(SWIFT) >/dev/null || { echo "make deps: the Swift toolchain (swift) is not on PATH"; exit 1; }

## build: debug build of the jobrun executable
build: deps
	$(SWIFT) build $(SWIFT_FLAGS) --product jobrun

## release: optimised build (what install and the benchmarks use)
release: deps
	$(RELEASE_BUILD) --product jobrun

# The release binary's path (bench/apply.sh builds with `make release`, then asks for it).
release-bin:
	@echo "$(RELEASE_BIN)"

## test: unit and integration tests (integration tests run the real binary); the checkers of the
## deployment examples come from PyPI where pip can install them (their checks are skipped otherwise)
TEST_PIP_PACKAGES := kubernetes-validate check-jsonschema
test: build
	@python3 -m pip install --quiet --disable-pip-version-check $(TEST_PIP_PACKAGES) >/dev/null 2>&1 || \
	  echo "make test: pip could not install $(TEST_PIP_PACKAGES): the deployment examples' schema checks are skipped"
	$(SWIFT) test $(SWIFT_FLAGS)

## lint: the Swift sources are as swift-format lays them out (.swift-format; the toolchain's
## `swift format`), and the run's machine has no effects: no clock read, file system call,
## engine or thread call (start, cancel, submit, post), emitted event, or import of the C
## library, Dispatch or the system kit in Sources/JobrunRun/Machine; CI runs it
FORMATTED = Package.swift Sources Tests fuzz
MACHINE_EFFECTS = ContinuousClock\.now|clock\.now|\.now\(\)|openat|unlinkat|renameat|(?<![.\w])(?<!case )(open|unlink|close|fsync|write|read|pread|pwrite)\(|\.start\(|\.emit\(|\.cancel\(|\.submit\(|\.post\(|^(public |internal )?import (Glibc|Musl|Darwin|Dispatch|JobrunSystem)$$
lint:
	$(SWIFT) format lint --strict --recursive $(FORMATTED)
	@if grep -rnP '$(MACHINE_EFFECTS)' Sources/JobrunRun/Machine; then \
	  echo "make lint: the run's machine must not have effects (above)"; exit 1; fi

## format: lay the Swift sources out with swift-format, in place
format:
	$(SWIFT) format --in-place --recursive $(FORMATTED)

## fuzz: libFuzzer targets (manifests, lists, signatures, playlists, Debian indexes, response heads,
## reports, metrics files), FUZZ_SECONDS each
## (default 60); new inputs and crashes go under .build-fuzz/fuzz (docs/fuzzing.md)
FUZZ_SECONDS ?= 60
fuzz: deps
	@FUZZ_SECONDS=$(FUZZ_SECONDS) SWIFT=$(SWIFT) bash fuzz/run.sh

## demo: validate, plan and verify the demo under examples/demo
demo: build
	@bash examples/demo/run.sh "$$($(SWIFT) build $(SWIFT_FLAGS) --show-bin-path)/jobrun"

## install: the stripped release binary in $(PREFIX)/bin, its manual page jobrun.1 and its bash, zsh
## and fish completions, both written by the binary from its own command line; under $(DESTDIR)
## when set. INSTALL_BIN=PATH installs that binary instead of building the release one.
INSTALL_BIN ?=
BIN_DIR = $(DESTDIR)$(PREFIX)/bin
MAN_DIR = $(DESTDIR)$(PREFIX)/share/man/man1
BASH_COMPLETION_DIR = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSH_COMPLETION_DIR = $(DESTDIR)$(PREFIX)/share/zsh/site-functions
FISH_COMPLETION_DIR = $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
INSTALLED_FILES = "$(BIN_DIR)/jobrun" "$(MAN_DIR)/jobrun.1" "$(BASH_COMPLETION_DIR)/jobrun" "$(ZSH_COMPLETION_DIR)/_jobrun" "$(FISH_COMPLETION_DIR)/jobrun.fish"
install: $(if $(INSTALL_BIN),,release)
	@set -e; bin="$(or $(INSTALL_BIN),$(RELEASE_BIN))"; \
	install -d "$(BIN_DIR)" "$(MAN_DIR)" "$(BASH_COMPLETION_DIR)" "$(ZSH_COMPLETION_DIR)" "$(FISH_COMPLETION_DIR)"; \
	install -m 0755 -s "$$bin" "$(BIN_DIR)/jobrun"; \
	"$$bin" generate-manual > "$(MAN_DIR)/jobrun.1"; \
	"$$bin" --generate-completion-script bash > "$(BASH_COMPLETION_DIR)/jobrun"; \
	"$$bin" --generate-completion-script zsh > "$(ZSH_COMPLETION_DIR)/_jobrun"; \
	"$$bin" --generate-completion-script fish > "$(FISH_COMPLETION_DIR)/jobrun.fish"; \
	chmod 0644 "$(MAN_DIR)/jobrun.1" "$(BASH_COMPLETION_DIR)/jobrun" "$(ZSH_COMPLETION_DIR)/_jobrun" "$(FISH_COMPLETION_DIR)/jobrun.fish"; \
	for f in $(INSTALLED_FILES); do echo "installed $$f"; done

## deb: the Debian package of the release binary, in $(DEB_DIR) (packaging/build-deb.sh: binary, manual
## page, completions, examples, systemd template units), then packaging/check-deb.sh: lintian reports no
## error, and it installs into a throwaway root, runs, and removes cleanly; CI runs it
DEB_DIR ?= .build-deb
deb: release
	@set -e; deb=$$(bash packaging/build-deb.sh "$(RELEASE_BIN)" "$(DEB_DIR)"); echo "built $$deb"; bash packaging/check-deb.sh "$$deb"

## uninstall: remove what install installed (same PREFIX and DESTDIR)
uninstall:
	rm -f $(INSTALLED_FILES)

## bench-plan: plan/validate speed on generated 100k and 1M slice manifests vs libyaml and PyYAML
bench-plan: release
	@bash bench/plan.sh "$(RELEASE_BIN)"

## bench-verify: verify speed vs in-process OpenSSL, one big file and 10,000 small files
bench-verify: release
	@bash bench/verify.sh "$(RELEASE_BIN)"

## bench-state: plan of an unchanged 100,000-file mirror with its mirror state vs --rehash and a bare
## `find`, and what recording costs apply (../shared/bench set many; BENCH_PARTS=mirror or apply)
bench-state: release
	@bash bench/state.sh "$(RELEASE_BIN)"

## bench-apply: `jobrun apply` vs aria2c, curl --parallel and wget2 over HTTP/1.1 and TLS+HTTP/2,
## into tmpfs and the disk (../shared/bench harness; SETS=seed MEDIA=tmpfs … for a subset)
bench-apply: release
	@bash bench/apply.sh "$(RELEASE_BIN)"

## bench-wan: `jobrun apply` and its peers over emulated round trips (40 ms; 80 ms at 200 Mbit/s), TLS
## and HTTP/2, against the physical floor, with connections and requests in flight (../shared/bench)
bench-wan: release
	@bash bench/wan.sh "$(RELEASE_BIN)"

## bench-scale: memory per slice: apply of 100,000 x 1 KiB slices against curl --parallel, plan of
## 1,000,000 slices, and 45 package-like files with and without declared sizes (PARTS=apply plan packages)
bench-scale: release
	@bash bench/scale.sh "$(RELEASE_BIN)"

## bench-origins: files/s against one origin and against two, each capped at the same rate (a private
## nginx with limit_rate): slices spread over a resource's base_urls (FILES, SIZE_KIB, RATE, PER_HOST, RUNS)
bench-origins: release
	@bash bench/origins.sh "$(RELEASE_BIN)"

## bench-refresh: an unchanged mirror of FILES small files without digests revalidated with refresh:
## conditional (304s, no body) against their first fetch and curl's whole requests (FILES, SIZE_KIB, PER_HOST, RUNS)
bench-refresh: release
	@bash bench/refresh.sh "$(RELEASE_BIN)"

## bench-publish: one changed file of a mirror of 100 and of 10,000 files applied in place and with
## publish: atomic (a stage of hard links, one exchange) (SIZES, RUNS)
bench-publish: release
	@bash bench/publish.sh "$(RELEASE_BIN)"

## bench-debian: planning a mirror of Debian bookworm main amd64 (63,000 packages) from its
## InRelease and Packages(.xz): fetched, verified, decompressed, read and planned (RUNS)
bench-debian: release
	@bash bench/debian.sh "$(RELEASE_BIN)"

## bench: the download benchmark (bench-plan and bench-verify run separately)
bench: bench-apply

## soak: the chaos soak (docs/soak.md): 10,000 slices, 30% of requests faulted, 10 SIGKILLs, then a
## clean apply and a verify; prints the figures, fails on any check (SOAK_SLICES=500 SOAK_KILLS=3 for a short one)
## (SOAK_ORIGINS=3: three origins per resource, one corrupting, one resetting connections, one slower)
soak: release
	@python3 bench/soak.py "$(RELEASE_BIN)"

clean:
	rm -rf .build .build-fuzz
