# tcplab — build, test, run. Everything installs into ./.venv.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(VENV)/bin/pip
STAMP  := $(VENV)/.deps-stamp
MATURIN_DEVELOP := VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(VENV))/bin:$$PATH \
	$(VENV)/bin/maturin develop --release -q
OUT    ?= out/sarkar2022

.PHONY: all venv build sysdeps run test test-rust test-py bench lint fmt clean docs

all: build

# The dependencies (and the dev extras) from pyproject.toml, then tcplab itself, editable, by the
# same `maturin develop` as `make build`: `pip install -e .` would build the extension once more
# in pip's isolated environment (a release build, about a minute), which the next `maturin
# develop` could not reuse.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PY) -c 'import tomllib; p = tomllib.load(open("pyproject.toml", "rb"))["project"]; \
	  print("\n".join(p["dependencies"] + p["optional-dependencies"]["dev"]))' > $(VENV)/requirements-dev.txt
	$(PIP) install -q -r $(VENV)/requirements-dev.txt
	$(MATURIN_DEVELOP) >/dev/null
	touch $(STAMP)

venv: $(STAMP)

# Rebuild the Rust extension into the virtualenv, and the testbed forwarder (incremental); write
# the package's bytecode, as a wheel install would, so that each `tcplab` command does not compile
# it again where PYTHONDONTWRITEBYTECODE is set (20 ms of a 90 ms `tcplab sweep` rerun).
build: $(STAMP)
	$(MATURIN_DEVELOP) --skip-install
	cargo build --release -q -p tcplab-netem
	$(PY) -m compileall -q python/tcplab

# The testbed's system tools (network namespaces, offload switches), ns-2 (the conformance
# suite) and Chromium (the docs site's browser test). Installed with apt when running as root on
# Debian and missing; otherwise the tests that need them skip and say why (pytest -rs lists
# each skip and its reason), except the browser test in CI (.ci/run sets TCPLAB_CI): it fails.
sysdeps:
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
	   ! (command -v ip && command -v ethtool && command -v sysctl) >/dev/null 2>&1; then \
	  echo "installing iproute2 ethtool procps (testbed)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iproute2 ethtool procps >/dev/null; \
	fi
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && ! command -v ns >/dev/null; then \
	  echo "installing ns2 (the ns-2 conformance suite)"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ns2 >/dev/null) || \
	    echo "ns2 could not be installed: the ns-2 conformance tests will skip"; \
	fi
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && ! command -v chromium >/dev/null; then \
	  echo "installing chromium (the docs site's browser test)"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) || \
	    echo "chromium could not be installed: the docs site's browser test will skip (fail in CI)"; \
	fi

run: build
	$(VENV)/bin/tcplab study sarkar2022 --out $(OUT)

test: sysdeps build test-rust test-py docs

# The release profile's code without its link-time optimisation (Cargo.toml, release-test).
test-rust:
	cargo test --profile release-test -q --workspace --exclude tcplab-py

# Every test in two passes: all but the `serial` ones on every core (pytest-xdist, -n auto), then
# the serial ones alone (pyproject.toml's markers say what they are). Both passes run; either
# failing, or finding no test (status 5), fails the target.
test-py: build
	status=0; \
	$(VENV)/bin/pytest -q -rs -n auto --dist worksteal -m "not serial" || status=$$?; \
	$(VENV)/bin/pytest -q -rs -m serial || status=$$?; \
	exit $$status

# The docs site (mkdocs, material theme) into site/, warnings as errors; the pages that come
# from the code (scenario reference, command line, API, studies) are made during the build
# (docs/hooks.py). Open site/index.html from the disk: it needs no server.
docs: build
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict -q

bench: build
	$(PY) bench/run.py

lint: $(STAMP)
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings
	$(VENV)/bin/ruff check python tests bench docs/hooks.py
	$(VENV)/bin/ruff format --check python tests bench docs/hooks.py

fmt: $(STAMP)
	cargo fmt --all
	$(VENV)/bin/ruff format python tests bench docs/hooks.py

clean:
	rm -rf $(VENV) target out
