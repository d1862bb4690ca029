# Two entry points for a fresh machine with Python 3.11 (see README.md):
#   make book   set up .venv if needed, build the HTML book into _build/html
#   make test   set up .venv if needed, `make check`, then every test (notebooks, grading, build,
#               browser)
#   make test GPU=1   the same with an NVIDIA GPU (Linux x86_64): .venv-gpu from
#                     requirements-gpu.txt (TensorFlow's and PyTorch's CUDA builds)
PYTHON ?= python3.11
ifdef GPU
LOCK   := requirements-gpu.txt
VENV   := .venv-gpu
else
LOCK   := requirements.txt
VENV   := .venv
endif
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
export PATH := $(CURDIR)/$(BIN):$(PATH)
export TF_CPP_MIN_LOG_LEVEL := 3
export TF_ENABLE_ONEDNN_OPTS := 0
export KERAS_BACKEND := tensorflow
export PYDEVD_DISABLE_FILE_VALIDATION := 1
# Two test workers on two cores: one thread per framework each.
JOBS ?= 2

.PHONY: setup book test check generate export split timings measure reproduce bench bench-grading clean similarity screenshots hub-screenshots

setup: $(STAMP)

# (Re)create the environment when it is missing or older than the pins.
# The hub's proxy (configurable-http-proxy, hub/package-lock.json) comes from npm, when npm is
# there: tests/test_hub.py needs it (skipped without it, failed under CI=true).
$(STAMP): $(LOCK) requirements-nodeps.txt pyproject.toml tools/pyproject.toml hub/package-lock.json
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r $(LOCK)
	$(BIN)/python -m pip install --quiet --no-deps -r requirements-nodeps.txt
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e . -e tools
	@if command -v npm >/dev/null; then npm ci --prefix hub --no-audit --no-fund --loglevel=error; \
	 else echo "npm not found: the hub test (tests/test_hub.py) will be skipped"; fi
	@touch $@

book: $(STAMP)
	$(BIN)/jupyter-book build . --warningiserror --keep-going --quiet
	@echo "Book built: $(CURDIR)/_build/html/index.html"

test: check
	$(BIN)/python -m pytest --nbval --nbval-current-env -n $(JOBS) --dist loadscope --durations=60

clean:
	rm -rf _build .timings

# Every generated file, in order (course.toml's tables, the exported modules, the one-framework
# notebooks, the one-framework requirements, the figures, the nbgrader releases): see
# tools/course_tools/generate.py. `make check` writes nothing and fails on anything stale or on
# code written twice (pylint's duplicate-code finder); `make test` runs it first.
generate: $(STAMP)
	$(BIN)/python -m course_tools.generate

check: $(STAMP)
	$(BIN)/python -m course_tools.generate --check

# Regenerate the package modules from the chapters' `#| export` cells.
export: $(STAMP)
	$(BIN)/python -m course_tools.export

# Rewrite each chapter's Keras-only and PyTorch-only notebooks (notebooks/NN_topic-keras.ipynb, ...).
split: $(STAMP)
	$(BIN)/python -m course_tools.split

# Rewrite book/timings.md from the last `make test` run.
timings: $(STAMP)
	$(BIN)/python -m course_tools.timings

# Maintainers: rerun one measurement made outside the notebooks (make measure M=ch08_recipes)
# and add this machine's runs to book/results/measured/$(M).json (see measurements/__init__.py).
measure: $(STAMP)
	OMP_NUM_THREADS=1 $(BIN)/python -m measurements.$(M)

# Check that the numbers the prose states came out of the last `make test` run too.
reproduce: $(STAMP)
	$(BIN)/python -m course_tools.reproduce

# Instructors, after `nbgrader autograde A`: how alike the students' code is (make similarity A=...).
similarity: $(STAMP)
	$(BIN)/python -m course_tools.similarity $(A)

# PNG screenshots of every chapter page, both frameworks, 1300 and 1600 px wide, and of the
# framework switch, from the browser tests: _build/screenshots/ (nothing of it is committed).
screenshots: $(STAMP)
	BOOK_SCREENSHOTS=$(CURDIR)/_build/screenshots $(BIN)/python -m pytest -q -p no:cacheprovider -m browser tests/test_book.py
	@echo "Screenshots: $(CURDIR)/_build/screenshots"

# PNG screenshots of the course's JupyterHub from its test (as root: it adds local accounts): the
# student's Assignments tab (submitted, feedback fetched), the Formgrader (opened from the hub's
# top bar, graded submissions, a score changed by hand; blank inside JupyterLab), a chapter opened
# by an nbgitpuller link.
hub-screenshots: $(STAMP)
	HUB_SCREENSHOTS=$(CURDIR)/_build/screenshots/hub $(BIN)/python -m pytest -q -p no:cacheprovider tests/test_hub.py
	@echo "Screenshots: $(CURDIR)/_build/screenshots/hub"

# Milliseconds per training step of every chapter's models, before/after, both frameworks.
bench: $(STAMP)
	$(BIN)/python -m attention_course.bench

# Grading throughput of a generated class with 1 and 2 workers, the per-notebook breakdown and the
# projection to 500 students on 16 cores; adds its runs to book/results/measured/grading_bench.json
# and rewrites the table of book/timings.md (measurements/grading_bench.py; a quiet machine).
bench-grading: $(STAMP)
	$(BIN)/python -m measurements.grading_bench --sequential $(ARGS)
