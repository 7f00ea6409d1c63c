# The README's two commands: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# `make run BIND=0.0.0.0:8096 DATA_DIR=/srv/reelhouse`; REELHOUSE_BIND and
# REELHOUSE_DATA_DIR in the environment are the defaults when set, never overridden.
BIND ?= $(or $(REELHOUSE_BIND),127.0.0.1:8096)
DATA_DIR ?= $(or $(REELHOUSE_DATA_DIR),./data)
NODE_CLIENT := tests/http/jellyfin/node

.PHONY: run test coverage bench lint ffmpeg chromium dlna-tools nodejs clean

# Installed once per change of pyproject.toml.
$(VENV)/.installed-run: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@ $(VENV)/.installed-run

run: $(VENV)/.installed-run
	@mkdir -p $(DATA_DIR)
	@echo "Reelhouse on http://$(BIND)/api/v1  (data in $(DATA_DIR))"
	@echo "Create an API key in another terminal:  $(BIN)/reelhouse --data-dir $(DATA_DIR) apikey create my-script"
	$(BIN)/reelhouse serve --bind $(BIND) --data-dir $(DATA_DIR)

# ffmpeg/ffprobe from Debian's packages when missing (tests make real videos).
ffmpeg:
	@if ! command -v ffprobe >/dev/null 2>&1 || ! command -v ffmpeg >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing ffmpeg from Debian's packages"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ffmpeg >/dev/null; \
	  else \
	    echo "ffmpeg is missing: install it (e.g. sudo apt-get install ffmpeg)"; exit 1; \
	  fi; \
	fi

# Chromium from Debian's packages when missing (the web console's tests drive it with Playwright;
# `playwright install` is never run). apt-get may be locked by another install for a while: retried.
chromium:
	@if ! test -x /usr/bin/chromium; then \
	  if [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing chromium from Debian's packages"; \
	    for try in 1 2 3 4 5 6 7 8 9 10; do \
	      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null && break; \
	      echo "apt-get busy or failed; retrying in 15 s"; sleep 15; \
	    done; \
	    test -x /usr/bin/chromium || { echo "chromium could not be installed"; exit 1; }; \
	  else \
	    echo "chromium is missing: install it (e.g. sudo apt-get install chromium)"; exit 1; \
	  fi; \
	fi

# gssdp-discover (gupnp-tools: the DLNA tests' second SSDP client) and minidlna (benchmarks/dlna_browse.py's
# yardstick) from Debian's packages when missing; retried like chromium while apt-get is locked.
dlna-tools:
	@if ! command -v gssdp-discover >/dev/null 2>&1 || ! command -v minidlnad >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing gupnp-tools and minidlna from Debian's packages"; \
	    for try in 1 2 3 4 5 6 7 8 9 10; do \
	      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gupnp-tools minidlna >/dev/null && break; \
	      echo "apt-get busy or failed; retrying in 15 s"; sleep 15; \
	    done; \
	    command -v gssdp-discover >/dev/null 2>&1 || { echo "gupnp-tools could not be installed"; exit 1; }; \
	  else \
	    echo "gssdp-discover or minidlnad is missing: install them (e.g. sudo apt-get install gupnp-tools minidlna)"; exit 1; \
	  fi; \
	fi

# Node.js and npm from Debian's packages when missing: the Jellyfin SDK's tests run it (retried like chromium).
nodejs:
	@if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing nodejs and npm from Debian's packages"; \
	    for try in 1 2 3 4 5 6 7 8 9 10; do \
	      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null && break; \
	      echo "apt-get busy or failed; retrying in 15 s"; sleep 15; \
	    done; \
	    command -v npm >/dev/null 2>&1 || { echo "npm could not be installed"; exit 1; }; \
	  else \
	    echo "node or npm is missing: install them (e.g. sudo apt-get install nodejs npm)"; exit 1; \
	  fi; \
	fi

# Four workers (pytest-xdist) on a 2-core machine: every test has its own
# files, ports and PostgreSQL schema, so they run side by side, and a third
# of a test's time is spent waiting (servers, leases, clients), not working.
# Quiet, 2 cores, the whole suite: 2 workers 433 s, 3 402 s, 4 355 s, 5 391 s.
# TEST_WORKERS=0 runs in one process. `--dist worksteal`: a worker that runs out of tests takes
# half of the queue of the busiest one, so none is left with a queue of slow tests while the
# others wait at the end (with `load`, a worker's queue is handed to it early and stays its own);
# the tests marked `long` are started first (tests/conftest.py), so none of them makes the tail.
TEST_WORKERS ?= 4
TEST_DIST ?= worksteal

# Bytecode is written even where the environment says not to: the suite
# starts hundreds of Python processes (servers, CLI runs, workers), each of
# which would otherwise compile reelhouse from source again.
test: $(VENV)/.installed-test ffmpeg chromium dlna-tools $(NODE_CLIENT)/node_modules/.installed
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist $(TEST_DIST) $(PYTEST_ARGS)

# The same run with line coverage of src/reelhouse, in the test processes and
# the processes they start (servers, CLI runs, workers: see [tool.coverage.run]
# in pyproject.toml). pytest-cov combines the data files it finds when the run
# ends; `coverage combine --append` then takes any saved after it (a process
# that outlived its test process), and the report is printed whether the
# tests passed or not.
coverage: $(VENV)/.installed-test ffmpeg chromium dlna-tools $(NODE_CLIENT)/node_modules/.installed
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist $(TEST_DIST) --cov --cov-report= $(PYTEST_ARGS); \
	  status=$$?; \
	  $(BIN)/coverage combine --append --quiet 2>/dev/null; \
	  $(BIN)/coverage report && exit $$status

# The published @jellyfin/sdk, for the Jellyfin-compatible surface's tests (a node script they run).
$(NODE_CLIENT)/node_modules/.installed: $(NODE_CLIENT)/package.json | nodejs
	cd $(NODE_CLIENT) && npm install --no-audit --no-fund --silent
	touch $@

# ruff, mypy and the import contracts (explained in pyproject.toml); .ci/run runs
# it first. Each bundled plugin is a program with its own import root.
lint: $(VENV)/.installed-test
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache
	@for plugin in src/reelhouse/bundled_plugins/*/; do \
	  (cd $$plugin && $(abspath $(BIN))/mypy --config-file $(abspath pyproject.toml) --cache-dir $(abspath .mypy_cache) --explicit-package-bases main.py) || exit 1; \
	done

# benchmarks/soak.py's flags (default: 10 minutes on SQLite, the issue's load),
# e.g. SOAK_ARGS="--minutes 5 --files 300 --readers 2 --streamers 2".
SOAK_ARGS ?=

bench: $(VENV)/.installed-test ffmpeg dlna-tools
	@for b in benchmarks/[!_]*.py; do echo "== $$b"; \
	  case $$b in *soak.py) args="$(SOAK_ARGS)";; *) args="";; esac; \
	  $(BIN)/python $$b $$args || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info .pytest_cache
