# tcplab — build, test, run. Everything installs into ./.venv.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(VENV)/bin/pip
STAMP  := $(VENV)/.deps-stamp
OUT    ?= out/sarkar2022

.PHONY: all venv build run test test-rust test-py bench lint fmt clean

all: build

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

# Rebuild the Rust extension into the virtualenv (incremental).
build: $(STAMP)
	VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(VENV))/bin:$$PATH \
	  $(VENV)/bin/maturin develop --release -q --skip-install

run: build
	$(VENV)/bin/tcplab study sarkar2022 --out $(OUT)

test: build test-rust test-py

test-rust:
	cargo test --release -q --workspace --exclude tcplab-py

test-py: build
	$(VENV)/bin/pytest -q

bench: build
	$(PY) bench/run.py

lint: $(STAMP)
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings
	$(VENV)/bin/ruff check python tests bench
	$(VENV)/bin/ruff format --check python tests bench

fmt: $(STAMP)
	cargo fmt --all
	$(VENV)/bin/ruff format python tests bench

clean:
	rm -rf $(VENV) target out
