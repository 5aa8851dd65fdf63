# Quick start: `make run` launches the workbench on the bundled demo; `make test` runs every test.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
INSPECT_STAMP := $(VENV)/.installed-inspect
RAY_STAMP := $(VENV)/.installed-ray

.PHONY: run test test-fast lint install system-deps clean bench

$(STAMP): pyproject.toml requirements.lock
	@command -v $(PYTHON) >/dev/null 2>&1 || bash scripts/system-deps.sh
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c requirements.lock -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

# The optional `inspect` extra (workbench export inspect); `make test` installs it so its tests run.
$(INSPECT_STAMP): $(STAMP)
	$(BIN)/pip install --quiet -c requirements.lock -e '.[dev,inspect]'
	touch $(INSPECT_STAMP)

# The optional `ray` extra (workbench batch --executor ray); `make test` installs it so its tests run.
$(RAY_STAMP): $(INSPECT_STAMP)
	$(BIN)/pip install --quiet -c requirements.lock -e '.[dev,inspect,ray]'
	touch $(RAY_STAMP)

run: $(STAMP)
	$(BIN)/workbench

lint: $(STAMP)
	$(BIN)/ruff check workbench tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache --no-logo

system-deps:
	bash scripts/system-deps.sh

test: system-deps $(RAY_STAMP) lint
	$(BIN)/pytest

# Contributors: the tests that need no npm host, bubblewrap, pty/tmux, browser or Ray, on 2 workers.
test-fast: $(STAMP)
	$(BIN)/ruff check workbench tests bench
	PYTHONDONTWRITEBYTECODE= $(BIN)/pytest --fast -n 2

bench: $(STAMP)
	$(BIN)/python bench/run.py
	$(BIN)/python bench/hosts.py
	$(BIN)/python bench/batch.py
	$(BIN)/python bench/tui.py
	$(BIN)/python bench/fingerprints.py
	$(BIN)/python bench/executors.py

clean:
	rm -rf $(VENV)
