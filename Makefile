# Two entry points (README): `make run` and `make test`. Each installs what it needs first.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
JOBS ?= 2
SYSTEM_PACKAGES := build-essential cmake python3-venv python3-dev libgtest-dev nlohmann-json3-dev \
                   pkg-config libsimgrid-dev openmpi-bin libopenmpi-dev mpich libmpich-dev \
                   libexpat1-dev

.PHONY: run test deps venv build build-python build-cpp test-cpp test-python lint format bench clean \
	build-asan test-asan build-mpich test-mpich

# The simulator's answer on an embedded default: every allreduce algorithm that fits an 8x8
# torus, 32 B to 512 MiB, as a table and a plot.
COMPARE_PNG := build/compare-torus8x8.png

run: build
	$(VENV)/bin/topocoll compare --topology torus:8x8 --collective allreduce --sizes 32B:512MiB \
	  --jobs $(JOBS) --plot $(COMPARE_PNG)

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
	$(PY) -m pip install -q --no-build-isolation --no-deps .

build-cpp: venv
	cmake -S . -B build/cpp -DTOPOCOLL_TESTS=ON -DTOPOCOLL_PYTHON=OFF -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build build/cpp -j$(JOBS)

test-cpp: build-cpp
	ctest --test-dir build/cpp --output-on-failure -j$(JOBS)

# The MPI libraries and their tests against MPICH as well (docs/mpi.md, "Open MPI or MPICH"):
# a second build through MPICH's own compiler wrapper and launcher, side by side with the Open
# MPI one (Debian keeps Open MPI the default mpicc and mpiexec); `ctest -L mpi` there runs the
# tests of at most 5 ranks.
MPICH_DIR := build/mpich
build-mpich: venv
	cmake -S . -B $(MPICH_DIR) -DTOPOCOLL_TESTS=ON -DTOPOCOLL_PYTHON=OFF -DCMAKE_BUILD_TYPE=Release \
	  -DMPI_C_COMPILER=/usr/bin/mpicc.mpich -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich >/dev/null
	cmake --build $(MPICH_DIR) -j$(JOBS) --target topocoll_mpi_tests

test-mpich: build-mpich
	ctest --test-dir $(MPICH_DIR) -L mpi --output-on-failure -j$(JOBS)

test-python: build-python
	$(VENV)/bin/pytest -q -p no:cacheprovider tests/python

# The sanitizer pass: the core, the GoogleTest suite and the Python extension built with
# AddressSanitizer + UndefinedBehaviorSanitizer (-fno-sanitize-recover=all: any report fails)
# in build/asan (-O1 -g1 with assertions: quick to build, line numbers in reports); then the
# C++ tests and the Python fuzzers run against them. The interpreter
# is not instrumented, so libasan is preloaded (with libstdc++, whose __cxa_throw ASan must find
# at start-up) and leak detection is off for it (CPython keeps objects alive at exit by design).
ASAN_DIR := build/asan
ASAN_PKG := $(ASAN_DIR)/pkg
ASAN_ENV := ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
# Excluded under the sanitizers, to keep the pass near 12 minutes on 2 cores (CI budget 45 min;
# the sanitized tests run 4-12x slower than Release): every test that takes 1 s or more in the
# Release build (measured with build/cpp/topocoll_tests on the 2-core development machine, list
# below), i.e. the exhaustive sweeps (RegistrySweep.*, every-P and every-torus exact runs) and
# the large-P fingerprint runs (*Large*, *At4096*, 27x27, 64x64, D10). They execute the same
# code as the smaller instances that stay in (every algorithm family, the verifier, the loader
# and its fuzz loop: 140 tests, 8.7 s in Release, plus the 74 simulator and topology tests of
# the merge, 1.4 s); the normal `make test-cpp` runs them all.
ASAN_GTEST_EXCLUDED := RegistrySweep.*:RequirementsSweep.*:*Large*
ASAN_GTEST_EXCLUDED := $(ASAN_GTEST_EXCLUDED):BineBandwidth.ExactForEveryEvenSizeStrategyAndCollective
ASAN_GTEST_EXCLUDED := $(ASAN_GTEST_EXCLUDED):BineBandwidth.ExactForOddSizesThroughTheFold
ASAN_GTEST_EXCLUDED := $(ASAN_GTEST_EXCLUDED):BineTorus.BandwidthExactOnEvenToriForEveryPortCount
ASAN_GTEST_EXCLUDED := $(ASAN_GTEST_EXCLUDED):BruckRing.VerifiesExactlyForEveryPUpTo130
ASAN_GTEST_EXCLUDED := $(ASAN_GTEST_EXCLUDED):BruckTorus.VerifiesExactlyOn27x27
ASAN_GTEST_EXCLUDED := $(ASAN_GTEST_EXCLUDED):BruckTorus.VerifiesExactlyOnEveryTestShape
ASAN_GTEST_EXCLUDED := $(ASAN_GTEST_EXCLUDED):BucketSchedule.Fingerprint27x27
ASAN_GTEST_EXCLUDED := $(ASAN_GTEST_EXCLUDED):BucketSchedule.Fingerprint64x64
ASAN_GTEST_EXCLUDED := $(ASAN_GTEST_EXCLUDED):BucketSchedule.VerifiesOnEvery2DTorusUpTo8x8
ASAN_GTEST_EXCLUDED := $(ASAN_GTEST_EXCLUDED):BucketSchedule.VerifiesOnEveryRingUpTo130
ASAN_GTEST_EXCLUDED := $(ASAN_GTEST_EXCLUDED):BucketSchedule.VerifiesOnListedTori
ASAN_GTEST_EXCLUDED := $(ASAN_GTEST_EXCLUDED):Hamiltonian.BidirectionalCycleVerifiesExactlyUpToD7
ASAN_GTEST_EXCLUDED := $(ASAN_GTEST_EXCLUDED):Hamiltonian.FingerprintVerifiesCubesD8ToD10
ASAN_GTEST_EXCLUDED := $(ASAN_GTEST_EXCLUDED):Hamiltonian.OnePortFormsVerifyExactlyUpToD6
ASAN_GTEST_EXCLUDED := $(ASAN_GTEST_EXCLUDED):Hamiltonian.VerifiesExactlyAtD10
ASAN_GTEST_EXCLUDED := $(ASAN_GTEST_EXCLUDED):Hamiltonian.VerifiesExactlyOnEveryCubeUpToD7
ASAN_GTEST_EXCLUDED := $(ASAN_GTEST_EXCLUDED):HypercubeRooted.GatherBcastVerifiesAtD10
ASAN_GTEST_EXCLUDED := $(ASAN_GTEST_EXCLUDED):InteropMscclRoundTrip.EveryAlgorithmP2To16
ASAN_GTEST_EXCLUDED := $(ASAN_GTEST_EXCLUDED):HypercubeRooted.OnePortFormsVerifyExactlyUpToD5
ASAN_GTEST_EXCLUDED := $(ASAN_GTEST_EXCLUDED):HypercubeRooted.RootedCollectivesVerifyAtP4096
ASAN_GTEST_EXCLUDED := $(ASAN_GTEST_EXCLUDED):HypercubeRooted.VerifiesExactlyForD1ToD7AndTheRequiredRoots
ASAN_GTEST_EXCLUDED := $(ASAN_GTEST_EXCLUDED):PersonalizedAlltoall.BineSendsContiguousDataInLogSteps
ASAN_GTEST_EXCLUDED := $(ASAN_GTEST_EXCLUDED):PersonalizedAlltoall.BineShortensTheDistanceTravelledAgainstBruck
ASAN_GTEST_EXCLUDED := $(ASAN_GTEST_EXCLUDED):PersonalizedAlltoall.BruckFingerprintAt4096
ASAN_GTEST_EXCLUDED := $(ASAN_GTEST_EXCLUDED):PersonalizedAlltoall.EveryAlgorithmEveryP
ASAN_GTEST_EXCLUDED := $(ASAN_GTEST_EXCLUDED):PersonalizedAlltoall.PairwiseFingerprintAt4096
ASAN_GTEST_EXCLUDED := $(ASAN_GTEST_EXCLUDED):RecursiveDoubling.VerifiesExactlyForEveryP
ASAN_GTEST_EXCLUDED := $(ASAN_GTEST_EXCLUDED):SwingRing.VerifiesExactlyForEveryPUpTo130
ASAN_GTEST_EXCLUDED := $(ASAN_GTEST_EXCLUDED):SwingTorus.Verifies27x27
ASAN_GTEST_EXCLUDED := $(ASAN_GTEST_EXCLUDED):SwingTorus.VerifiesExactlyOnEveryTestShape
ASAN_GTEST_EXCLUDED := $(ASAN_GTEST_EXCLUDED):TorusTrees.FingerprintAtScale
ASAN_GTEST_EXCLUDED := $(ASAN_GTEST_EXCLUDED):TorusTrees.VerifyExactlyOnRings
ASAN_GTEST_EXCLUDED := $(ASAN_GTEST_EXCLUDED):TorusTrees.VerifyExactlyOnTheFoundationTori
ASAN_GTEST_EXCLUDED := $(ASAN_GTEST_EXCLUDED):TrivanceRing.VerifiesExactlyForEveryNUpTo243
ASAN_GTEST_EXCLUDED := $(ASAN_GTEST_EXCLUDED):TrivanceTorus.VerifiesExactlyOn27x27
ASAN_GTEST_EXCLUDED := $(ASAN_GTEST_EXCLUDED):TrivanceTorus.VerifiesExactlyOnEveryTestShape
ASAN_GTEST_FILTER ?= -$(ASAN_GTEST_EXCLUDED)
ASAN_PRELOAD = $(shell $(CXX) -print-file-name=libasan.so) $(shell $(CXX) -print-file-name=libstdc++.so)
ASAN_PYTESTS := tests/python/test_fuzz.py tests/python/test_robustness.py \
	tests/python/test_broken_schedules.py tests/python/test_cli_options.py \
	tests/python/test_schedule_semantics.py tests/python/test_fuzz_sim.py \
	tests/python/test_sim_inputs.py tests/python/test_sim_limits.py tests/python/test_interop.py

build-asan: venv
	cmake -S . -B $(ASAN_DIR) -DTOPOCOLL_SANITIZE=ON -DTOPOCOLL_TESTS=ON -DTOPOCOLL_PYTHON=ON \
	  -DTOPOCOLL_MPI=OFF \
	  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
	  -DPython_EXECUTABLE=$(abspath $(PY)) >/dev/null
	cmake --build $(ASAN_DIR) -j$(JOBS) --target topocoll_tests _core
	rm -rf $(ASAN_PKG) && mkdir -p $(ASAN_PKG)/topocoll
	cp -r python/topocoll/. $(ASAN_PKG)/topocoll/  # the package with its subpackages and data
	cp $(ASAN_DIR)/_core*.so $(ASAN_PKG)/topocoll/

test-asan: build-asan build-python
	$(ASAN_ENV) $(ASAN_DIR)/topocoll_tests --gtest_filter='$(ASAN_GTEST_FILTER)' --gtest_brief=1
	$(ASAN_ENV) LD_PRELOAD="$(ASAN_PRELOAD)" PYTHONPATH=$(ASAN_PKG) \
	  $(VENV)/bin/python -c 'import topocoll._core as c, sys; sys.exit("$(ASAN_PKG)" not in c.__file__)'
	$(ASAN_ENV) LD_PRELOAD="$(ASAN_PRELOAD)" PYTHONPATH=$(ASAN_PKG) \
	  TOPOCOLL_FUZZ_EXAMPLES=100 $(VENV)/bin/pytest -q -p no:cacheprovider $(ASAN_PYTESTS)

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
