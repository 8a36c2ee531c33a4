# Two entry points (README): `make run` and `make test`. Each installs what it needs first.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
JOBS ?= 2
SYSTEM_PACKAGES := build-essential cmake python3-venv python3-dev libgtest-dev nlohmann-json3-dev \
                   pkg-config libsimgrid-dev openmpi-bin libopenmpi-dev

.PHONY: run test deps venv build build-python build-cpp test-cpp test-python lint format bench clean

# The simulator's answer on an embedded default: every allreduce algorithm that fits an 8x8
# torus, 32 B to 512 MiB, as a table and a plot.
COMPARE_PNG := build/compare-torus8x8.png

run: build
	$(VENV)/bin/topocoll compare --topology torus:8x8 --collective allreduce --sizes 32B:512MiB \
	  --jobs $(JOBS) --plot $(COMPARE_PNG)

test: build test-cpp test-python lint

deps:
	@missing=$$(for p in $(SYSTEM_PACKAGES); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing system packages:" $$missing; \
	  if [ "$$(id -u)" != 0 ]; then echo "error: run as root to install: $$missing" >&2; exit 2; fi; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

$(VENV)/.installed: requirements-dev.txt | deps
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip==25.2
	$(PY) -m pip install -q -r requirements-dev.txt
	touch $@

venv: deps $(VENV)/.installed

build: build-python build-cpp

build-python: venv
	$(PY) -m pip install -q --no-build-isolation --no-deps .

build-cpp: venv
	cmake -S . -B build/cpp -DTOPOCOLL_TESTS=ON -DTOPOCOLL_PYTHON=OFF -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build build/cpp -j$(JOBS)

test-cpp: build-cpp
	ctest --test-dir build/cpp --output-on-failure -j$(JOBS)

test-python: build-python
	$(VENV)/bin/pytest -q -p no:cacheprovider tests/python

lint: venv
	$(VENV)/bin/ruff check python tests bench
	$(VENV)/bin/ruff format --check python tests bench

format:
	clang-format -i $$(find src tests bench -name '*.cpp' -o -name '*.hpp')
	$(VENV)/bin/ruff format python tests bench

bench: build-python
	$(PY) bench/verify_scaling.py --output docs/verification-benchmark.md

clean:
	rm -rf build $(VENV)
