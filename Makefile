# Two commands do all set-up on a fresh machine (README): `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

# The report test opens the HTML report in headless Chromium (Debian's package).
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run test lint bench chromium
run: $(STAMP)
	$(BIN)/urbion simulate

chromium:
	@command -v chromium >/dev/null 2>&1 || \
		($(SUDO) apt-get update -q && \
		 $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium)

test: $(STAMP) chromium
	$(BIN)/ruff check .
	$(BIN)/pytest -q

# Each benchmark appends its figures to the run log; benchmarks/runs.py summarizes it.
RUN_LOG := benchmarks/runs.jsonl
bench: $(STAMP)
	$(BIN)/python benchmarks/bench_engine.py --log $(RUN_LOG)
	$(BIN)/python benchmarks/bench_expansions.py --log $(RUN_LOG)
	$(BIN)/python benchmarks/bench_compare.py --log $(RUN_LOG)
	$(BIN)/python benchmarks/bench_scale.py --log $(RUN_LOG)
	$(BIN)/python benchmarks/bench_policies.py --log $(RUN_LOG)
	$(BIN)/python benchmarks/runs.py $(RUN_LOG)
