# Arbiter: `make run` serves the app, `make test` runs every test. Both set everything up first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
PORT   ?= 5000

.PHONY: setup run test lint bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[dev]"
	touch $(STAMP)

setup: $(STAMP)

run: setup
	$(BIN)/arbiter serve --port $(PORT)

test: setup
	$(BIN)/python -m pytest

lint: setup
	$(BIN)/ruff check service faq web tests bench
	$(BIN)/ruff format --check service faq web tests bench
	$(BIN)/mypy

bench: setup
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache *.egg-info
