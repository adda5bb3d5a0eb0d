#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make run`: build the rust variant, boot it, show kprobes/list and probes
# firing (samples/kprobes and a kprobe_events probe), and exit.
. "$(dirname "$0")/lib.sh"
"$ROOT/scripts/build.sh" rust
KP_LIVE=1 "$ROOT/scripts/vm.sh" rust "$ROOT/tools/testing/guest/run-job.sh" run
