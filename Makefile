# SPDX-License-Identifier: GPL-2.0
# The Rust kprobes core for Linux 7.3 (mainline) and 6.12 LTS: top-level targets.  See README.md.
# Everything generated goes to build/ (override with KP_WORK=/path).

.PHONY: all run test bench matrix jumplabel-tcg differential stress faults clients hostdiff patches upstream-fixes setup tree build \
	build-c build-rust expectations host-test clean distclean help

all: help

help:
	@echo "make run           build the rust variant, boot it, show probes firing"
	@echo "                   (ARCH=arm64: the arm64 kernel under qemu-system-aarch64;"
	@echo "                   ARCH=riscv64: the riscv64 kernel under qemu-system-riscv64)"
	@echo "make test          everything: host tests, series, both variants' suites"
	@echo "make bench         A/B benchmark of the two variants (bench/results.*)"
	@echo "make matrix        build, boot and test both variants in every config"
	@echo "                   (KP_MATRIX=\"debug preempt\" for some rows; tools/testing/matrix/)"
	@echo "make jumplabel-tcg how often JUMP_LABEL kernels oops per TCG mode"
	@echo "                   (KP_JL_RUNS=5; tools/testing/matrix/jumplabel.md)"
	@echo "make differential  scenario suite on both variants, diffed (part of test)"
	@echo "make stress        probes of every kind under load, both variants (KP_CONFIG=debug"
	@echo "                   KP_STRESS_S=600 for ten minutes; with KP_TEST_CONFIGS=debug make test, 20 s)"
	@echo "make faults        allocation failures injected into registrations, both variants"
	@echo "                   (KP_CONFIG, default debug; and with KP_TEST_CONFIGS=debug make test)"
	@echo "make clients       perf probe, bpftrace, fail_function on both (part of test)"
	@echo "make hostdiff      upstream kprobes.c on the host, random sequences (part of test)"
	@echo "make patches       write the git format-patch series to build/7.3/patches/ (KP_TREE=6.12: build/patches/)"
	@echo "make upstream-fixes  the C fixes for upstream kprobes.c: series, checkpatch, reproducers"
	@echo "                   without and with them on 7.3 (build/upstream-fixes/; docs/upstream-fixes.md)"
	@echo "make setup         install prerequisites (idempotent; run by the others)"
	@echo "make build         build both variants (build-c, build-rust for one)"
	@echo "make expectations  re-record tools/testing/expectations/ from the c variant"
	@echo "                   (KP_CONFIG=arm64: expectations/arm64/, that row's; riscv64 alike)"
	@echo "make host-test     cargo test only"
	@echo "make clean         remove build outputs (keeps the unpacked kernel tree)"
	@echo "make distclean     remove build/ entirely"

# `make run ARCH=arm64`: the arm64 config (scripts/kconfig/arm64.config),
# cross-built and booted with qemu-system-aarch64; ARCH=riscv64 the riscv64
# one with qemu-system-riscv64.
run:
	@$(if $(filter arm64 riscv64,$(ARCH)),KP_CONFIG=$(ARCH) )scripts/run.sh

test:
	@scripts/test.sh

bench:
	@scripts/bench.sh

matrix:
	@scripts/matrix.sh

jumplabel-tcg:
	@scripts/jumplabel-tcg.sh

differential:
	@scripts/differential.sh

stress:
	@KP_CONFIG=$${KP_CONFIG:-debug} scripts/build.sh c rust
	@KP_CONFIG=$${KP_CONFIG:-debug} scripts/stress.sh

faults:
	@KP_CONFIG=$${KP_CONFIG:-debug} scripts/build.sh c rust
	@KP_CONFIG=$${KP_CONFIG:-debug} scripts/faults.sh

clients:
	@scripts/clients.sh

hostdiff:
	@scripts/hostdiff.sh

patches:
	@scripts/patches.sh

upstream-fixes:
	@scripts/upstream-fixes.sh

setup:
	@scripts/setup.sh

tree: setup
	@scripts/kernel-tree.sh

build:
	@scripts/build.sh c rust
build-c:
	@scripts/build.sh c
build-rust:
	@scripts/build.sh rust

# KP_CONFIG=arm64 make expectations: that row's own
# (tools/testing/expectations/arm64/ftracetest.txt).
expectations:
	@scripts/expectations.sh

host-test:
	@cargo test --workspace

clean:
	rm -rf build/out-* build/results build/patches build/logs target

distclean:
	rm -rf build target
