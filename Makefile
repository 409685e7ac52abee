# Locus — common tasks. `make run` and `make test` are the README's two commands.
SWIFT ?= swift
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT_PACKAGES := libzmq3-dev libsqlite3-dev python3-zmq python3-jsonschema gcc make gpsd gpsd-clients socat libsystemd-dev dbus-daemon python3-dbusmock libmosquitto-dev
# Only the tests need these: a real MQTT broker and client (the mqtt sink's end-to-end tests),
# a real browser and WebSocket client (the web sink's).
# Not for `make run`: Debian's mosquitto package starts a system broker on port 1883.
TEST_PACKAGES := mosquitto python3-paho-mqtt openssl chromium python3-websockets

.PHONY: run test test-plugin-package deps build release check bench golden clean

## Install missing system packages (apt), build, and run Locus on the default config.yaml.
run: deps build
	@echo "locus: the map page will be at http://127.0.0.1:$${LOCUS_WEB_PORT:-8080}/ (Ctrl-C stops)"
	$(SWIFT) run -c debug locus run config.yaml

## Install missing system packages and run every test (Swift unit + end-to-end + Python tools).
test: deps
	@$(MAKE) --no-print-directory deps APT_PACKAGES="$(TEST_PACKAGES)"
	$(SWIFT) build --build-tests
	/usr/bin/python3 tools/test_validate_messages.py
	/usr/bin/python3 tools/test_gpx_to_recording.py
	/usr/bin/python3 tools/test_region_reference.py
	/usr/bin/python3 tools/test_beacon_sequence.py
	/usr/bin/python3 tools/test_payload_declarations.py
	/usr/bin/python3 tools/embed-page.py --check
	@# Serially: on 2 cores, CPU-bound tests running in parallel hold the cooperative threads that
	@# timing tests (control socket, cancellation) need, and those then fail. Serial: ~2.5 min.
	SWIFT=$(SWIFT) bash tools/run-swift-tests.sh
	@# The Python client library against the locus just built (clients/python/README.md).
	LOCUS_BINARY=$(CURDIR)/.build/debug/locus /usr/bin/python3 -m unittest discover -s clients/python/tests
	$(MAKE) test-plugin-package

## The out-of-tree plugin example (examples/plugin-package): its own package, built against this
## checkout into a binary with every built-in command plus its plugin, then tested and run.
test-plugin-package:
	cd examples/plugin-package && $(SWIFT) build --build-tests && $(SWIFT) test --skip-build
	cd examples/plugin-package && .build/debug/locus-odometer check demo.yaml
	cd examples/plugin-package/Tests/OdometerTests/Golden/odometer-walk && \
		../../../../.build/debug/locus-odometer replay input.jsonl --config config.yaml | cmp - expected.jsonl

deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then echo "installing:$$missing"; $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq $$missing; fi

build:
	$(SWIFT) build --product locus

## A release binary for devices: the Swift runtime and Foundation linked in, by lld with packed
## relative relocations (DT_RELR, glibc >= 2.36) and without exporting the binary's symbols.
## The default config then runs in 33.9 MB resident instead of 42.8 MB (same run, issue 14's note;
## libmosquitto brings libcrypto, 1.4 MB of it).
release:
	$(SWIFT) build -c release --static-swift-stdlib --product locus -Xswiftc -use-ld=lld \
		-Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic

check: build
	$(SWIFT) run locus check config.yaml

bench:
	bash bench/run-bench.sh

## Regenerate Tests/Golden/*/expected.jsonl after a reviewed change (then read the diff).
golden:
	bash tools/update-golden.sh

clean:
	rm -rf .build
