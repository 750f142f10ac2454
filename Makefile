# Two commands set everything up: `make run` and `make test`.
PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed-$(shell cksum < pyproject.toml | cut -d' ' -f1)
TAG     := $(shell date +%Y%m%d-%H%M%S)
RESULTS ?= results
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: install sandbox sandbox-v1 run test bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# The CPU build of PyTorch, pinned (see README for installing it elsewhere).
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

install: $(STAMP)

# Generates the offline corpus (v2) and its search index; skips the work when it is up to date.
sandbox: install
	$(BIN)/epi sandbox build

# Corpus v1 in sandbox/build-v1, for the frozen benchmark episodes/sandbox-v1.jsonl (its papers have v1 ids).
sandbox-v1: install
	$(BIN)/epi sandbox build --corpus v1

# The main job: the built-in agents on the sandbox benchmark, scored, compared, with a viewer.
run: sandbox
	$(BIN)/epi run --agent oracle --run-id oracle-$(TAG) --results $(RESULTS)
	$(BIN)/epi run --agent heuristic --run-id heuristic-$(TAG) --results $(RESULTS)
	$(BIN)/epi compare $(RESULTS)/heuristic-$(TAG) $(RESULTS)/oracle-$(TAG) --out $(RESULTS)/leaderboard-$(TAG)
	$(BIN)/epi view $(RESULTS)/heuristic-$(TAG) $(RESULTS)/oracle-$(TAG)
	@echo ""
	@echo "reports:     $(RESULTS)/heuristic-$(TAG)/report.md  $(RESULTS)/oracle-$(TAG)/report.md"
	@echo "leaderboard: $(RESULTS)/leaderboard-$(TAG)/comparison.md (plots beside it)"
	@echo "viewer:      $(RESULTS)/heuristic-$(TAG)/viewer/index.html (open it in a browser)"
	@echo "replay a failed episode: $(BIN)/epi replay $(RESULTS)/heuristic-$(TAG) --failed"

test: sandbox sandbox-v1
	$(BIN)/python -m pytest -q -p no:cacheprovider

bench: sandbox
	$(BIN)/python bench/harness_overhead.py
	$(BIN)/python bench/pdf_tools.py
	$(BIN)/python bench/retrieval.py
	$(BIN)/python bench/corpus_build.py
	$(BIN)/python bench/episode_validity.py episodes/sandbox-v2.jsonl

clean:
	rm -rf $(VENV) sandbox/build sandbox/build-v1
