# rldelta — every target sets up what it needs (venv, packages, services) on a fresh machine.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
export RLDELTA_HOME ?= $(CURDIR)/.rldelta
export DAGSTER_HOME ?= $(RLDELTA_HOME)/dagster
# Every target starts Python processes that import the same sources (workers, `dagster dev`'s code
# servers, runs). A machine-wide PYTHONDONTWRITEBYTECODE makes each of them compile rldelta and the
# tests again; with it unset Python caches the bytecode once in __pycache__/ (git ignores it).
unexport PYTHONDONTWRITEBYTECODE

.PHONY: demo test ui bench validity install clean

# PIP_EXTRA_INDEX_URL: the machine's extra indexes minus local file:// ones that lack some locked
# project, for which pip would print a warning per project (scripts/extra_indexes.py).
$(VENV)/.installed: pyproject.toml requirements.lock.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	export PIP_EXTRA_INDEX_URL="$$($(PY) scripts/extra_indexes.py $(VENV)/bin/pip requirements.lock.txt)" && \
	$(PY) -m pip install -q --upgrade pip && \
	$(PY) -m pip install -q -c requirements.lock.txt -e '.[test]'
	touch $@

install: $(VENV)/.installed

demo: install ## build the demo world and analyse every demo checkpoint end to end
	$(VENV)/bin/rldelta demo --run

test: install ## the whole suite (starts a throwaway PostgreSQL, installs chromium where missing)
	bash scripts/run_tests.sh

ui: install ## the Dagster UI on the same instance as `make demo`; prints its URL; Ctrl-C or SIGTERM stops every child
	$(PY) -m rl_assets.support.instance "$(DAGSTER_HOME)"
	RLDELTA_WATCH_AUTHORS="$${RLDELTA_WATCH_AUTHORS:-laion,rldelta-demo}" exec $(PY) -m rl_assets.cli.ui

validity: install ## rldelta's verdicts vs the pre-registered corpus (validity/); needs the corpus's git mirrors (VALIDITY_MIRRORS)
	$(PY) scripts/validity_fetch.py $${VALIDITY_MIRRORS:+--mirrors "$$VALIDITY_MIRRORS"}
	$(PY) -m pytest -q -p no:cacheprovider validity/
	$(PY) -m validity.run

bench: install ## benchmarks; figures go to bench/RESULTS.md by hand, with date and command
	bash bench/run_all.sh

clean:
	rm -rf .rldelta .tmp
