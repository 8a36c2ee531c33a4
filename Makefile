# Two entry points (README): `make run` and `make test`. Each installs what it needs first.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
JOBS ?= 2
SYSTEM_PACKAGES := build-essential cmake python3-venv python3-dev libgtest-dev nlohmann-json3-dev \
                   pkg-config libsimgrid-dev openmpi-bin libopenmpi-dev mpich libmpich-dev \
                   libexpat1-dev ccache clang-format ninja-build

.PHONY: run test deps venv build build-python build-cpp test-cpp test-python lint format bench clean \
	build-asan test-asan build-mpich test-mpich test-exhaustive

# One compiler cache for every build of this checkout (the Python extension, build/cpp,
# build/mpich and build/asan): the core compiled for the extension is reused by build/cpp and
# build/mpich instead of being compiled again. Kept in build/ccache, so a fresh clone starts
# empty; set CCACHE_DIR to share one cache between checkouts.
export CCACHE_DIR ?= $(CURDIR)/build/ccache
# The test binary's precompiled header (CMakeLists.txt): ccache caches the files compiled with
# it only when told that the header's macros and timestamps may be trusted.
export CCACHE_SLOPPINESS ?= pch_defines,time_macros
# Paths below the checkout are hashed relative to the build directory, so that the unity
# sources each build directory generates (UNITY below) hit the cache across build directories.
export CCACHE_BASEDIR ?= $(CURDIR)
# Depend mode: a miss does not run the preprocessor to hash the sources (the compiler's own
# dependency file names the headers). Most compiles of a fresh clone miss; from one, the four
# builds of `make test` took 625 s with it against 767 without (2026-11-30, tests/README.md).
export CCACHE_DEPEND ?= 1
# One compiler name for every build: ccache keys on it, and CMake picks /usr/bin/c++ under make
# where scikit-build-core's Ninja build of the extension picks g++ (the same GCC; without this
# the test build missed the cache on every file of the core).
ifeq ($(origin CXX),default)
CXX := g++
endif
ifeq ($(origin CC),default)
CC := gcc
endif
export CXX CC
export CMAKE_CXX_COMPILER_LAUNCHER ?= $(shell command -v ccache)
export CMAKE_C_COMPILER_LAUNCHER ?= $(shell command -v ccache)
# Ninja for every build directory configured from now on (one configured before keeps its
# generator): a target's objects compile while the libraries it links are still compiling,
# where Make waits for them. The sanitizer build from scratch kept 1.86 of the 2 cores busy with
# Ninja (374.7 s) against 1.75 with Make (381 s; 2026-11-30, tests/README.md, "Build time").
export CMAKE_GENERATOR ?= Ninja

# Unity builds of the core, simulator and MPI runtime in every build here (CMakeLists.txt,
# TOPOCOLL_UNITY; tests/README.md, "Build time"): 40-58% less compile time per library in
# Release, 15-40% under the sanitizers.
# `make UNITY=OFF` for a build that recompiles one changed file at a time (a unity batch
# recompiles whole when one of its files changes).
UNITY ?= ON

# The rotating sample of the exhaustive sweeps (tests/README.md): 1 instance in 8, chosen by
# the commit, so that successive commits cover every instance; `make test-exhaustive` runs
# them all.
SAMPLE_KEY := $(shell git rev-parse --short=12 HEAD 2>/dev/null || date +%F)
TEST_SAMPLE ?= 8:$(SAMPLE_KEY)

# The simulator's answer on a machine with host costs: every allreduce algorithm that fits an
# 8x8 torus of the Swing paper's SST machine (docs/machines.md, swing-sst: its links and SST's
# default per-message costs and rendezvous), 32 B to 512 MiB, as a table and a plot.
COMPARE_PNG := build/compare-torus8x8.png

# The comparison needs only the Python package and its extension, not the GoogleTest binaries.
run: build-python
	$(VENV)/bin/topocoll compare --machine swing-sst --topology torus:8x8 --collective allreduce \
	  --sizes 32B:512MiB --jobs $(JOBS) --plot $(COMPARE_PNG)

test: build test-cpp test-python lint test-asan test-mpich

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
	$(PY) -m pip install -q --no-build-isolation --no-deps \
	  -C cmake.define.TOPOCOLL_UNITY=$(UNITY) .

# `make test` builds only the GoogleTest files with a Slow suite here and runs the other tests
# under the sanitizers (tests/README.md, "Build time"); `make build-cpp` alone builds them all.
GTEST_SET ?= all
test: GTEST_SET := slow

build-cpp: venv
	cmake -S . -B build/cpp -DTOPOCOLL_TESTS=ON -DTOPOCOLL_PYTHON=OFF -DCMAKE_BUILD_TYPE=Release \
	  -DTOPOCOLL_UNITY=$(UNITY) \
	  -DTOPOCOLL_GTEST_SET=$(GTEST_SET) >/dev/null
	cmake --build build/cpp -j$(JOBS)

test-cpp: build-cpp
	@echo "exhaustive sweeps: TOPOCOLL_TEST_SAMPLE=$(TEST_SAMPLE) (rerun a failure with the same value)"
	TOPOCOLL_TEST_SAMPLE=$(TEST_SAMPLE) ctest --test-dir build/cpp -LE exhaustive \
	  --output-on-failure -j$(JOBS)

# What `make test` samples or leaves out (tests/README.md): every instance of the sweeps (the
# GoogleTests labelled slow, unsampled) and the tests labelled exhaustive.
test-exhaustive: build-cpp build-mpich
	env -u TOPOCOLL_TEST_SAMPLE ctest --test-dir build/cpp -L 'slow|exhaustive' \
	  --output-on-failure -j$(JOBS)
	ctest --test-dir $(MPICH_DIR) -L exhaustive --output-on-failure -j$(JOBS)

# The MPI libraries and their tests against MPICH as well (docs/mpi.md, "Open MPI or MPICH"):
# a second build through MPICH's own compiler wrapper and launcher, side by side with the Open
# MPI one (Debian keeps Open MPI the default mpicc and mpiexec); `ctest -L mpi` there runs the
# tests of at most 5 ranks.
MPICH_DIR := build/mpich
build-mpich: venv
	cmake -S . -B $(MPICH_DIR) -DTOPOCOLL_TESTS=ON -DTOPOCOLL_PYTHON=OFF -DCMAKE_BUILD_TYPE=Release \
	  -DTOPOCOLL_UNITY=$(UNITY) \
	  -DMPI_C_COMPILER=/usr/bin/mpicc.mpich -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich >/dev/null
	cmake --build $(MPICH_DIR) -j$(JOBS) --target topocoll_mpi_tests

test-mpich: build-mpich
	ctest --test-dir $(MPICH_DIR) -L mpi -LE exhaustive --output-on-failure -j$(JOBS)

test-python: build-python
	TOPOCOLL_BENCH=$(CURDIR)/build/cpp/topocoll-bench $(VENV)/bin/pytest -q -p no:cacheprovider \
	  -n $(JOBS) --dist loadgroup --durations=10 tests/python

# The sanitizer pass: the core, the GoogleTest suite and the Python extension built with
# AddressSanitizer + UndefinedBehaviorSanitizer (-fno-sanitize-recover=all: any report fails)
# in build/asan (-O1 -g1 with assertions: quick to build, line numbers in reports); then the
# C++ tests and the Python fuzzers run against them. The interpreter
# is not instrumented, so libasan is preloaded (with libstdc++, whose __cxa_throw ASan must find
# at start-up) and leak detection is off for it (CPython keeps objects alive at exit by design).
ASAN_DIR := build/asan
ASAN_PKG := $(ASAN_DIR)/pkg
ASAN_ENV := ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
# Left out under the sanitizers (4-12x slower than Release): the GoogleTests labelled slow, whose
# suite name ends in Slow (tests/README.md): the exhaustive sweeps and the large-P fingerprint
# runs. They execute the same code as the smaller instances of every family that stay in; the
# Release pass of `make test-cpp` runs them. The suite runs in $(ASAN_SHARDS) shards, $(JOBS) at once.
ASAN_GTEST_FILTER ?= -*Slow.*
ASAN_PRELOAD = $(shell $(CXX) -print-file-name=libasan.so) $(shell $(CXX) -print-file-name=libstdc++.so)
# The Python fuzzers and hostile files, in process (the CLI tests of the same inputs run in the
# Release pass: each of their subprocesses would load the sanitized extension again).
ASAN_PYTESTS := tests/python/test_fuzz.py tests/python/test_fuzz_sim.py \
	tests/python/test_broken_schedules.py tests/python/test_sim_inputs.py tests/python/test_interop.py
# More shards than cores, $(JOBS) at a time: the slowest shard sets the time.
ASAN_SHARDS := 8

build-asan: venv
	cmake -S . -B $(ASAN_DIR) -DTOPOCOLL_SANITIZE=ON -DTOPOCOLL_TESTS=ON -DTOPOCOLL_PYTHON=ON \
	  -DTOPOCOLL_UNITY=$(UNITY) \
	  -DTOPOCOLL_MPI=OFF \
	  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
	  -DPython_EXECUTABLE=$(abspath $(PY)) >/dev/null
	cmake --build $(ASAN_DIR) -j$(JOBS) --target topocoll_tests topocoll_reader_tests _core
	rm -rf $(ASAN_PKG) && mkdir -p $(ASAN_PKG)/topocoll
	cp -r python/topocoll/. $(ASAN_PKG)/topocoll/  # the package with its subpackages and data
	cp $(ASAN_DIR)/_core*.so $(ASAN_PKG)/topocoll/

test-asan: build-asan build-python
	@seq 0 $$(($(ASAN_SHARDS) - 1)) | xargs -P $(JOBS) -I{} sh -c '$(ASAN_ENV) \
	  GTEST_TOTAL_SHARDS=$(ASAN_SHARDS) GTEST_SHARD_INDEX={} $(ASAN_DIR)/topocoll_tests \
	  --gtest_filter="$(ASAN_GTEST_FILTER)" --gtest_brief=1 > $(ASAN_DIR)/gtest-shard-{}.log 2>&1'; \
	status=$$?; cat $(ASAN_DIR)/gtest-shard-*.log; exit $$status
	$(ASAN_ENV) $(ASAN_DIR)/topocoll_reader_tests --gtest_brief=1
	$(ASAN_ENV) LD_PRELOAD="$(ASAN_PRELOAD)" PYTHONPATH=$(ASAN_PKG) \
	  $(VENV)/bin/python -c 'import topocoll._core as c, sys; sys.exit("$(ASAN_PKG)" not in c.__file__)'
	$(ASAN_ENV) LD_PRELOAD="$(ASAN_PRELOAD)" PYTHONPATH=$(ASAN_PKG) \
	  TOPOCOLL_FUZZ_EXAMPLES=100 $(VENV)/bin/pytest -q -p no:cacheprovider -n $(JOBS) --durations=10 \
	  $(ASAN_PYTESTS)

# The layers of the Python package (pyproject.toml, [tool.importlinter]; docs/python-api.md).
lint: venv
	$(VENV)/bin/ruff check python tests bench
	$(VENV)/bin/ruff format --check python tests bench
	PYTHONPATH=python $(VENV)/bin/lint-imports
	clang-format --dry-run -Werror $$(find src tests bench -name '*.cpp' -o -name '*.hpp')

format:
	clang-format -i $$(find src tests bench -name '*.cpp' -o -name '*.hpp')
	$(VENV)/bin/ruff format python tests bench

bench: build-python
	$(PY) bench/verify_scaling.py --output docs/verification-benchmark.md

clean:
	rm -rf build $(VENV)
