# jobrun — the two set-up commands are `make demo` and `make test`; both install what is missing.
SHELL := /bin/bash
PREFIX ?= /usr/local
SWIFT ?= swift
SWIFT_FLAGS ?=
# Release builds link the Swift runtime and Foundation statically on Linux: eleven fewer
# libraries to find and relocate at every start (`jobrun version` 19 → 14 ms). On the apply
# benchmark (tmpfs, HTTP/1.1, alternating runs, medians, both orders) 600 × 64 KiB went
# 0.142–0.159 → 0.134–0.144 s (four batches of 30–40 runs each way), more than start-up explains
# (the rest was not traced); 10,000 × 16 KiB did not change (1.216 / 1.215 s, 15 + 15). The
# binary grows from 9 to 30 MB and runs without a Swift toolchain installed (on the system's
# libcurl, libyaml, libcrypto and libstdc++). Darwin ships the Swift runtime in the OS, so there
# the flag is left out.
RELEASE_FLAGS ?= $(if $(filter Linux,$(shell uname -s)),--static-swift-stdlib)
APT_PACKAGES := libyaml-dev libcurl4-openssl-dev libssl-dev pkg-config libxml2-utils python3 openssl nginx-light
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps build release test demo install uninstall bench-plan bench-verify bench-apply bench clean

## deps: install the Debian packages jobrun builds and tests with (quiet, idempotent)
deps:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "make deps: installing$$missing"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi
	@command -v $(SWIFT) >/dev/null || { echo "make deps: the Swift toolchain (swift) is not on PATH"; exit 1; }

## build: debug build of the jobrun executable
build: deps
	$(SWIFT) build $(SWIFT_FLAGS) --product jobrun

## release: optimised build (what install and the benchmarks use)
release: deps
	$(SWIFT) build $(SWIFT_FLAGS) $(RELEASE_FLAGS) -c release --product jobrun

## test: unit and integration tests (integration tests run the real binary)
test: deps
	$(SWIFT) build $(SWIFT_FLAGS) --product jobrun
	$(SWIFT) test $(SWIFT_FLAGS)

## demo: validate, plan and verify the demo under examples/demo
demo: build
	@bash examples/demo/run.sh "$$($(SWIFT) build $(SWIFT_FLAGS) --show-bin-path)/jobrun"

## install: copy the release binary to $(PREFIX)/bin
install: release
	install -d "$(DESTDIR)$(PREFIX)/bin"
	install -m 0755 "$$($(SWIFT) build $(SWIFT_FLAGS) $(RELEASE_FLAGS) -c release --show-bin-path)/jobrun" "$(DESTDIR)$(PREFIX)/bin/jobrun"

uninstall:
	rm -f "$(DESTDIR)$(PREFIX)/bin/jobrun"

## bench-plan: plan/validate speed on generated 100k and 1M slice manifests vs libyaml and PyYAML
bench-plan: release
	@bash bench/plan.sh "$$($(SWIFT) build $(SWIFT_FLAGS) $(RELEASE_FLAGS) -c release --show-bin-path)/jobrun"

## bench-verify: verify speed vs in-process OpenSSL, one big file and 10,000 small files
bench-verify: release
	@bash bench/verify.sh "$$($(SWIFT) build $(SWIFT_FLAGS) $(RELEASE_FLAGS) -c release --show-bin-path)/jobrun"

## bench-apply: `jobrun apply` vs aria2c, curl --parallel and wget2 over HTTP/1.1 and TLS+HTTP/2,
## into tmpfs and the disk (../shared/bench harness; SETS=seed MEDIA=tmpfs … for a subset)
bench-apply: release
	@SWIFT="$(SWIFT)" SWIFT_FLAGS="$(SWIFT_FLAGS)" bash bench/apply.sh "$$($(SWIFT) build $(SWIFT_FLAGS) $(RELEASE_FLAGS) -c release --show-bin-path)/jobrun"

## bench: the download benchmark (bench-plan and bench-verify run separately)
bench: bench-apply

clean:
	rm -rf .build
