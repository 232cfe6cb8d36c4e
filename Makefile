# Arbiter: `make run` serves the app, `make test` runs every test. Both set everything up first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
PORT   ?= 5000

.PHONY: setup run test test-quick coverage-plan lint bench fuzz golden clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[dev,semantic]"
	touch $(STAMP)

setup: $(STAMP)

run: setup
	$(BIN)/arbiter db migrate
	$(BIN)/arbiter serve --port $(PORT)

# every test, files spread over four pytest-xdist workers, the time budget enforced, line and
# branch coverage of service/, faq/ and web/ (total printed and held at its floor, HTML report in
# var/coverage/html; ARBITER_COVERAGE=off for none; the files measured: make coverage-plan):
# tests/parallel.py
test: setup
	$(BIN)/python -m tests.parallel

# every test file measured, each test's lines and branches apart (slower than make test), then
# tests/coverage_plan.json made again: the files make test runs with no tracer because measured
# files reach every line and branch they do (tests/coverage_plan.py)
coverage-plan: setup
	ARBITER_COVERAGE=plan $(BIN)/python -m tests.parallel

# the unit tests alone (no server, no browser) on two workers: the edit-test loop. CI runs `make test`
test-quick: setup
	$(BIN)/python -m pytest -q -p no:cacheprovider -n 2 --dist loadfile \
	  --no-loadscope-reorder tests/unit

lint: setup
	$(BIN)/ruff check service faq web tests bench
	$(BIN)/ruff format --check service faq web tests bench
	$(BIN)/mypy

bench: setup
	$(BIN)/python -m bench

# Random legal play of every system through the application service (see docs/rules/contract.md,
# "Proof"): FUZZ_GAMES games per system from FUZZ_SEED; failing games are exported to var/fuzz/.
# Then the long runs of what `make test` proves at a smaller size: ten times the Hypothesis
# examples, the 1,000-case import property, 20 boots of the multi-worker recipe, ten times the
# fog of war's random games, every golden game with every check of the fuzzer.
FUZZ_GAMES ?= 200
FUZZ_SEED  ?= 1
FUZZ_PLUGINS := tests.fixtures.skirmish,tests.fixtures.duel
fuzz: setup
	ARBITER_PLUGINS=$(FUZZ_PLUGINS) $(BIN)/arbiter fuzz --games $(FUZZ_GAMES) --seed $(FUZZ_SEED) \
	  --max-commands 2000 --out var/fuzz
	ARBITER_FUZZ_SCALE=10 ARBITER_IMPORT_CASES=1000 ARBITER_MIGRATE_BOOTS=20 ARBITER_TEST_BUDGET=off \
	  $(BIN)/python -m pytest -q -p no:cacheprovider tests/fuzz \
	  tests/integration/test_import_property.py tests/integration/test_migrate.py \
	  tests/e2e/test_fog_property.py tests/conformance/test_fog_refusals.py tests/golden

# Re-record the golden games (tests/golden/README.md): review the diff before committing it.
golden: setup
	rm -f tests/golden/games/*.ndjson
	ARBITER_PLUGINS=$(FUZZ_PLUGINS) $(BIN)/arbiter fuzz --games 2 --seed 1 --max-commands 1500 \
	  --record tests/golden/games --out var/fuzz

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache *.egg-info
