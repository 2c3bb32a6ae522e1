# Two commands for a fresh clone: `make demo` and `make test`. Both create .venv and install the
# project with its dependencies first (again only when pyproject.toml changes).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Type checking on every core: pyright binds thousands of SDK modules.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: demo test lint catalog bench clean docs

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/gpufleet plan examples/workloads.yaml
	$(BIN)/gpufleet preview --env prod
	$(BIN)/gpufleet cost --env prod

test: lint
	$(BIN)/gpufleet generate examples/workloads.yaml --env dev --env staging --env prod --check
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/pyright --threads $(JOBS)
	# The workflow users copy: supply-chain audit (offline: no GitHub API) and syntax/types.
	$(BIN)/zizmor --offline --pedantic --no-progress .github/
	$(BIN)/actionlint

# Rebuild the shipped catalog from catalog-snapshot/ (after a new snapshot arrives).
catalog: $(STAMP)
	$(BIN)/python scripts/build_catalog.py

# Rewrite the command samples of README.md and docs/ from what the commands print (review the
# diff); `make test` fails on a sample that no longer matches.
docs: $(STAMP)
	$(BIN)/python tests/docs_commands.py --write

bench: $(STAMP)
	$(BIN)/python benchmarks/plan_bench.py
	$(BIN)/python benchmarks/preview_bench.py
	$(BIN)/python benchmarks/check_bench.py
	$(BIN)/python benchmarks/cost_bench.py
	$(BIN)/python benchmarks/hostile_input_bench.py
	$(BIN)/python benchmarks/rightsize_bench.py
	$(BIN)/python benchmarks/refresh_bench.py
	$(BIN)/python benchmarks/scale_bench.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis *.egg-info
