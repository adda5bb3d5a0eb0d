#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""test_classify.py: self-test of classify.py's Rust checks (scripts/hostdiff.sh
runs it before the sweep; no driver needed).

For each recorded upstream anomaly (classify.py: finding-1, finding-3,
finding-5, finding-6, and 7.3's finding-7) a C trace and the Rust trace the
drivers print for MODEL.md section 5's reproducer (copied here from
hostdiff-c and hostdiff-rust), and
hand-made Rust traces that do something other than what the intended
divergence in docs/divergences.md specifies: the real pair must be "intended", every wrong one
"real" with the reason of the Rust check (or, where the Rust trace shows
the anomaly itself, of the older check).  Each case is classified as the
C trace of each tree it names (both trees' anomalies for findings 1 to 6;
finding-7 exists on 7.3 only, and its C trace is real on 6.12).

Prints one line per finding, `PASS hostdiff/classify-finding-N` or
`FAIL hostdiff/classify-finding-N CASE: ...`, and exits 1 if one failed.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, HERE)
import classify  # noqa: E402

BOOT = """\
> boot
  log info: kprobes: kprobe jump-optimization is enabled. All kprobes are optimized if possible.
"""

# Finding 1: reg K0 sym=f9 pre=ok; reg K1 sym=f9 pre=ok post=ok; unreg K1;
# then OP (unreg K0, disable K0 or debugfs-enabled 0).
F1_HEAD = BOOT + """\
> reg K0 sym=f9 pre=ok
  arch_prepare_kprobe_ftrace f9+0x0 = 0
  ftrace_set_filter_ip ftrace_ops f9+0x0 remove=0 reset=0 = 0
  register_ftrace_function ftrace_ops = 0
  = 0
> reg K1 sym=f9 pre=ok post=ok
  = 0
> unreg K1
  ~synchronize_rcu
"""
F1_C = F1_HEAD + """\
> unreg K0
  ftrace_set_filter_ip ipmodify_ops f9+0x0 remove=1 reset=0 = -2
  WARN
  ~synchronize_rcu
  !leaked K0 (still registered after unregister)
> check
  ftrace ftrace_ops registered filter: f9+0x0
  live K0 flags=0x18
"""
F1_RUST = F1_HEAD + """\
> unreg K0
  unregister_ftrace_function ftrace_ops = 0
  ftrace_set_filter_ip ftrace_ops f9+0x0 remove=1 reset=0 = 0
  ~synchronize_rcu
  arch_remove_optimized_kprobe f9+0x0 slot=null
  arch_remove_kprobe f9+0x0 slot=null
> check
"""
F1D_C = F1_HEAD + """\
> disable K0
  ftrace_set_filter_ip ipmodify_ops f9+0x0 remove=1 reset=0 = -2
  WARN
  = -2
"""
F1D_RUST = F1_HEAD + """\
> disable K0
  unregister_ftrace_function ftrace_ops = 0
  ftrace_set_filter_ip ftrace_ops f9+0x0 remove=1 reset=0 = 0
  = 0
"""
F1E_C = F1_HEAD + """\
> debugfs-enabled 0
  ftrace_set_filter_ip ipmodify_ops f9+0x0 remove=1 reset=0 = -2
  WARN
  log warn: kprobes: Kprobes globally disabled, but failed to disable 1 out of 1 probes. Please check which kprobes are kept enabled via debugfs.
  = -2
"""
F1E_RUST = F1_HEAD + """\
> debugfs-enabled 0
  unregister_ftrace_function ftrace_ops = 0
  ftrace_set_filter_ip ftrace_ops f9+0x0 remove=1 reset=0 = 0
  log info: kprobes: Kprobes globally disabled
  = 1
"""
F1_DISARM = "  ftrace_set_filter_ip ftrace_ops f9+0x0 remove=1 reset=0 = 0\n"

# Finding 3: reg K0 sym=f2 off=8 pre=ok; optimize; disable K0; enable K0;
# hit f2+8; optimize; check.
F3_HEAD = BOOT + """\
> reg K0 sym=f2 off=8 pre=ok
  perf_event_ksymbol type=2 page0+0x0 len=4096 register kprobe_insn_page
  arch_prepare_kprobe f2+0x8 = 0 slot=page0+0x0
  arch_arm_kprobe f2+0x8
  perf_event_ksymbol type=2 page1+0x0 len=4096 register kprobe_optinsn_page
  arch_prepare_optimized_kprobe f2+0x8 = 0 size=8 slot=page1+0x0
  arch_check_optimized_kprobe f2+0x8 = 0
  ~work queued
  = 0
> optimize
  ~work run
  ~synchronize_rcu_tasks
  arch_optimize_kprobes f2+0x8
> disable K0
  ~work queued
  = 0
"""
F3_C = F3_HEAD + """\
> enable K0
  arch_arm_kprobe f2+0x8
  !text int3-on-jump f2+0x8
  arch_check_optimized_kprobe f2+0x8 = 0
  = 0
> hit f2+8
  trap int3 f2+0x8
  !text int3 over the jump of f2+0x8: resumes inside the jump
  pre K0
> optimize
  ~work run
  ~synchronize_rcu_tasks
> check
  text int3 f2+0x8
  text jump f2+0x8 size=8
  live K0 flags=0x0
"""
F3_ENABLE = """\
> enable K0
  arch_check_optimized_kprobe f2+0x8 = 0
  = 0
"""
F3_REST = """\
> hit f2+8
  trap jump f2+0x8
  pre K0
> optimize
  ~work run
  ~synchronize_rcu_tasks
> check
  text jump f2+0x8 size=8
  live K0 flags=0x0
"""
F3_RUST = F3_HEAD + F3_ENABLE + F3_REST

# Finding 5: reg K0 sym=f2 off=8 pre=ok disabled; debugfs-enabled 0;
# enable K0; debugfs-enabled 1; hit f2+8; check.
F5_HEAD = BOOT + """\
> reg K0 sym=f2 off=8 pre=ok disabled
  perf_event_ksymbol type=2 page0+0x0 len=4096 register kprobe_insn_page
  arch_prepare_kprobe f2+0x8 = 0 slot=page0+0x0
  perf_event_ksymbol type=2 page1+0x0 len=4096 register kprobe_optinsn_page
  arch_prepare_optimized_kprobe f2+0x8 = 0 size=8 slot=page1+0x0
  = 0
> debugfs-enabled 0
  log info: kprobes: Kprobes globally disabled
  = 1
"""
F5_C = F5_HEAD + """\
> enable K0
  = 0
  !enable K0 returned 0 but the probe stays disabled
> debugfs-enabled 1
  log info: kprobes: Kprobes globally enabled
  = 1
> hit f2+8
  trap none f2+0x8
> check
  live K0 flags=0x0
"""
F5_ENABLE = """\
> enable K0
  = 0
"""
F5_REST = """\
> debugfs-enabled 1
  arch_arm_kprobe f2+0x8
  arch_check_optimized_kprobe f2+0x8 = 0
  ~work queued
  log info: kprobes: Kprobes globally enabled
  = 1
> hit f2+8
  trap int3 f2+0x8
  pre K0
> check
  text int3 f2+0x8
  optimizer work pending
  live K0 flags=0x0
"""
F5_RUST = F5_HEAD + F5_ENABLE + F5_REST

# Finding 6: reg K0 sym=f2 pre=ok; optimize; disable K0; reg K1 sym=f2
# pre=ok post=ok; debugfs-enabled 0; hit f2; check.
F6_HEAD = BOOT + """\
> reg K0 sym=f2 pre=ok
  perf_event_ksymbol type=2 page0+0x0 len=4096 register kprobe_insn_page
  arch_prepare_kprobe f2+0x0 = 0 slot=page0+0x0
  arch_arm_kprobe f2+0x0
  perf_event_ksymbol type=2 page1+0x0 len=4096 register kprobe_optinsn_page
  arch_prepare_optimized_kprobe f2+0x0 = 0 size=8 slot=page1+0x0
  arch_check_optimized_kprobe f2+0x0 = 0
  ~work queued
  = 0
> optimize
  ~work run
  ~synchronize_rcu_tasks
  arch_optimize_kprobes f2+0x0
> disable K0
  ~work queued
  = 0
> reg K1 sym=f2 pre=ok post=ok
  arch_unoptimize_kprobe f2+0x0
  arch_arm_kprobe f2+0x0
  !text int3-twice f2+0x0
  = 0
"""
F6_NOTE = "  !kprobes/enabled is 0 but the int3 at f2+0x0 stays armed\n"
F6_C = F6_HEAD + """\
> debugfs-enabled 0
  log info: kprobes: Kprobes globally disabled
  = 1
""" + F6_NOTE + """\
> hit f2
  trap int3 f2+0x0
  pre K1
  post K1
> check
  text int3 f2+0x0
  optimizer work pending
  live K0 flags=0x12
  live K1 flags=0x10
"""
F6_DISARM = "  arch_disarm_kprobe f2+0x0\n"
F6_OFF = """\
> debugfs-enabled 0
  arch_disarm_kprobe f2+0x0
  log info: kprobes: Kprobes globally disabled
  = 1
"""
F6_REST = """\
> hit f2
  trap none f2+0x0
> check
  optimizer work pending
  live K0 flags=0x12
  live K1 flags=0x10
"""
F6_RUST = F6_HEAD + F6_OFF + F6_REST

CHECK = "does not do what the intended divergence in docs/divergences.md specifies"
TOO = "shows the upstream anomaly"


def sub(text, old, new):
    """text with old replaced by new (exactly once: a broken fixture fails)."""
    assert text.count(old) == 1, f"fixture: {old!r} occurs {text.count(old)} times"
    return text.replace(old, new)


# (finding, case, C trace, Rust trace, expected exit code, substrings of
# the verdict, all required).
CASES = [
    # finding-1, unregister_kprobe()
    (1, "unreg: the Rust trace of the reproducer", F1_C, F1_RUST, 3, ["finding-1", "through ftrace_ops"]),
    (1, "unreg: Rust fails the same way", F1_C, F1_C.split("> check")[0] + "> check\n", 1, [TOO]),
    (1, "unreg: Rust disarms through ipmodify_ops (successfully)", F1_C,
     sub(F1_RUST, F1_DISARM, F1_DISARM.replace("ftrace_ops", "ipmodify_ops")), 1,
     [CHECK, "not through ftrace_ops"]),
    (1, "unreg: Rust's disarm fails with another error", F1_C,
     sub(F1_RUST, F1_DISARM, F1_DISARM.replace("= 0", "= -16")), 1, [CHECK, "with result 0"]),
    (1, "unreg: Rust does not disarm", F1_C,
     sub(F1_RUST, "  unregister_ftrace_function ftrace_ops = 0\n" + F1_DISARM, ""), 1,
     [CHECK, "does not disarm f9+0x0"]),
    (1, "unreg: Rust WARNs after the disarm", F1_C,
     sub(F1_RUST, F1_DISARM, F1_DISARM + "  WARN\n"), 1, [CHECK, "WARNs after disarming"]),
    (1, "unreg: Rust WARNs elsewhere in the op", F1_C,
     sub(F1_RUST, "  arch_remove_kprobe f9+0x0 slot=null\n",
         "  arch_remove_kprobe f9+0x0 slot=null\n  WARN\n"), 1, [CHECK, "1 WARN line(s)"]),
    (1, "unreg: Rust disarms but the probe stays registered", F1_C,
     sub(F1_RUST, "  arch_remove_kprobe f9+0x0 slot=null\n",
         "  arch_remove_kprobe f9+0x0 slot=null\n  !leaked K0 (still registered after unregister)\n"), 1,
     [CHECK, "leaves the probe registered"]),
    (1, "unreg: Rust shows another anomaly", F1_C,
     sub(F1_RUST, "  arch_remove_kprobe f9+0x0 slot=null\n",
         "  arch_remove_kprobe f9+0x0 slot=null\n  !text no-int3 f9+0x0\n"), 1,
     [CHECK, "an anomaly upstream's op does not show"]),
    (1, "unreg: Rust's unregister_ftrace_function fails", F1_C,
     sub(F1_RUST, "  unregister_ftrace_function ftrace_ops = 0\n",
         "  unregister_ftrace_function ftrace_ops = -16\n"), 1, [CHECK, "failed ftrace disarm"]),
    # finding-1, disable_kprobe()
    (1, "disable: the Rust trace of the reproducer", F1D_C, F1D_RUST, 3, ["finding-1"]),
    (1, "disable: Rust returns upstream's error", F1D_C,
     sub(F1D_RUST, F1_DISARM + "  = 0\n", F1_DISARM + "  = -2\n"), 1, [CHECK, "returns = -2, expected = 0"]),
    # finding-1, kprobes/enabled = 0
    (1, "debugfs-enabled 0: the Rust trace of the reproducer", F1E_C, F1E_RUST, 3, ["finding-1"]),
    (1, "debugfs-enabled 0: Rust returns upstream's error", F1E_C, sub(F1E_RUST, "  = 1\n", "  = -2\n"), 1,
     [CHECK, "returns = -2, expected = 1"]),
    (1, "debugfs-enabled 0: Rust reports a failed disarm", F1E_C,
     sub(F1E_RUST, "  log info: kprobes: Kprobes globally disabled\n",
         "  log warn: kprobes: Kprobes globally disabled, but failed to disable 1 out of 1 probes. "
         "Please check which kprobes are kept enabled via debugfs.\n"), 1,
     [CHECK, "Kprobes globally disabled`"]),
    # finding-3
    (3, "the Rust trace of the reproducer", F3_C, F3_RUST, 3, ["finding-3", "no int3"]),
    (3, "Rust writes the int3 over the jump too", F3_C, F3_C.split("> hit")[0] + F3_REST, 1, [TOO]),
    (3, "Rust writes an int3 at the jump (model note missing)", F3_C,
     F3_HEAD + sub(F3_ENABLE, "> enable K0\n", "> enable K0\n  arch_arm_kprobe f2+0x8\n") + F3_REST, 1,
     [CHECK, "writes an int3 over the live jump at f2+0x8"]),
    (3, "Rust unoptimizes at once instead of cancelling", F3_C,
     F3_HEAD + sub(F3_ENABLE, "> enable K0\n", "> enable K0\n  arch_unoptimize_kprobe f2+0x8\n") + F3_REST, 1,
     [CHECK, "`arch_unoptimize_kprobe f2+0x8` instead of cancelling"]),
    (3, "Rust disarms instead of cancelling", F3_C,
     F3_HEAD + sub(F3_ENABLE, "> enable K0\n", "> enable K0\n  arch_disarm_kprobe f2+0x8\n") + F3_REST, 1,
     [CHECK, "`arch_disarm_kprobe f2+0x8` instead of cancelling"]),
    (3, "Rust does not call optimize_kprobe()", F3_C,
     F3_HEAD + sub(F3_ENABLE, "  arch_check_optimized_kprobe f2+0x8 = 0\n", "") + F3_REST, 1,
     [CHECK, "optimize_kprobe() is not called"]),
    (3, "Rust returns an error", F3_C, F3_HEAD + sub(F3_ENABLE, "  = 0\n", "  = -22\n") + F3_REST, 1,
     [CHECK, "not upstream's without the int3 write"]),
    (3, "Rust shows another text anomaly at the address", F3_C,
     F3_HEAD + sub(F3_ENABLE, "  = 0\n", "  = 0\n  !text int3-twice f2+0x8\n") + F3_REST, 1,
     [CHECK, "text anomaly at f2+0x8"]),
    # finding-5
    (5, "the Rust trace of the reproducer", F5_C, F5_RUST, 3, ["finding-5", "nothing armed"]),
    (5, "Rust leaves the probe disabled too", F5_C, F5_C.split("> debugfs-enabled 1")[0] + F5_REST, 1, [TOO]),
    (5, "Rust arms while kprobes/enabled is 0", F5_C,
     F5_HEAD + sub(F5_ENABLE, "> enable K0\n", "> enable K0\n  arch_arm_kprobe f2+0x8\n") + F5_REST, 1,
     [CHECK, "arms while kprobes/enabled is 0"]),
    (5, "Rust returns an error", F5_C, F5_HEAD + sub(F5_ENABLE, "  = 0\n", "  = -22\n") + F5_REST, 1,
     [CHECK, "returns = -22, expected = 0"]),
    (5, "Rust does something else in the op", F5_C,
     F5_HEAD + sub(F5_ENABLE, "  = 0\n", "  ~synchronize_rcu\n  = 0\n") + F5_REST, 1,
     [CHECK, "not upstream's without the note"]),
    # finding-6
    (6, "the Rust trace of the reproducer", F6_C, F6_RUST, 3, ["finding-6", "disarms f2+0x0 at once"]),
    (6, "Rust leaves the int3 armed too", F6_C, F6_C.split("> hit")[0] + F6_REST, 1, [TOO]),
    (6, "Rust does not disarm (and prints no note)", F6_C,
     F6_HEAD + sub(F6_OFF, F6_DISARM, "") + F6_REST, 1, [CHECK, "does not disarm f2+0x0"]),
    (6, "Rust disarms twice", F6_C, F6_HEAD + sub(F6_OFF, F6_DISARM, F6_DISARM * 2) + F6_REST, 1,
     [CHECK, "2 `arch_disarm_kprobe f2+0x0` lines, expected 1"]),
    (6, "Rust leaves a jump armed instead", F6_C,
     F6_HEAD + F6_OFF + "  !kprobes/enabled is 0 but the jump at f2+0x0 stays armed\n" + F6_REST, 1,
     [CHECK, "an anomaly upstream's op does not show"]),
    (6, "Rust disarms an int3 that is not there", F6_C,
     F6_HEAD + sub(F6_OFF, F6_DISARM, F6_DISARM + "  !text no-int3 f2+0x0\n") + F6_REST, 1,
     [CHECK, "an anomaly upstream's op does not show"]),
    (6, "Rust unoptimizes as well", F6_C,
     F6_HEAD + sub(F6_OFF, F6_DISARM, "  arch_unoptimize_kprobe f2+0x0\n" + F6_DISARM) + F6_REST, 1,
     [CHECK, "not upstream's without the note"]),
    (6, "Rust reports a failed disarm", F6_C,
     F6_HEAD + sub(F6_OFF, "  log info: kprobes: Kprobes globally disabled\n",
                   "  log warn: kprobes: Kprobes globally disabled, but failed to disable 1 out of 1 probes. "
                   "Please check which kprobes are kept enabled via debugfs.\n") + F6_REST, 1,
     [CHECK, "not upstream's without the note"]),
    (6, "Rust returns an error", F6_C, F6_HEAD + sub(F6_OFF, "  = 1\n", "  = -2\n") + F6_REST, 1,
     [CHECK, "not upstream's without the note"]),
]

# Batched ftrace arming: register_kprobes() of two entry probes
# and one mid-function one; then a rolled-back batch; then unregs.
B_REGS_C = BOOT + """\
> regs K0 K1 K2
  arch_prepare_kprobe_ftrace f9+0x0 = 0
  ftrace_set_filter_ip ftrace_ops f9+0x0 remove=0 reset=0 = 0
  register_ftrace_function ftrace_ops = 0
  arch_prepare_kprobe_ftrace f8+0x0 = 0
  ftrace_set_filter_ip ftrace_ops f8+0x0 remove=0 reset=0 = 0
  arch_prepare_kprobe f2+0x8 = 0
  arch_arm_kprobe f2+0x8
  = 0
> regs K3 K4
  arch_prepare_kprobe_ftrace f7+0x0 = 0
  ftrace_set_filter_ip ipmodify_ops f7+0x0 remove=0 reset=0 = 0
  register_ftrace_function ipmodify_ops = 0
  unregister_ftrace_function ipmodify_ops = 0
  ftrace_set_filter_ip ipmodify_ops f7+0x0 remove=1 reset=0 = 0
  ~synchronize_rcu
  arch_remove_kprobe f7+0x0 slot=null
  = -22
"""
B_UNREGS_C = """\
> unregs K0 K1
  ftrace_set_filter_ip ftrace_ops f9+0x0 remove=1 reset=0 = 0
  unregister_ftrace_function ftrace_ops = 0
  ftrace_set_filter_ip ftrace_ops f8+0x0 remove=1 reset=0 = 0
  ~synchronize_rcu
> hit f9+0x0
"""
B_REGS_RUST = BOOT + """\
> regs K0 K1 K2
  arch_prepare_kprobe_ftrace f9+0x0 = 0
  arch_prepare_kprobe_ftrace f8+0x0 = 0
  arch_prepare_kprobe f2+0x8 = 0
  arch_arm_kprobe f2+0x8
  ftrace_set_filter_ips ftrace_ops f9+0x0,f8+0x0 remove=0 reset=0 = 0
  register_ftrace_function ftrace_ops = 0
  = 0
> regs K3 K4
  arch_prepare_kprobe_ftrace f7+0x0 = 0
  ~synchronize_rcu
  arch_remove_kprobe f7+0x0 slot=null
  = -22
"""
B_UNREGS_RUST = """\
> unregs K0 K1
  unregister_ftrace_function ftrace_ops = 0
  ftrace_set_filter_ips ftrace_ops f9+0x0,f8+0x0 remove=1 reset=0 = 0
  ~synchronize_rcu
> hit f9+0x0
"""
B_C, B_RUST = B_REGS_C + B_UNREGS_C, B_REGS_RUST + B_UNREGS_RUST
BATCH = "intended: batched ftrace arming (issue 17) in 3 operation(s)"
NOBATCH = "real: no recorded upstream anomaly"
CASES += [
    ("batch", "the batched Rust trace", B_C, B_RUST, 3, [BATCH]),
    ("batch", "Rust leaves an address out of the batch", B_C,
     sub(B_RUST, "f9+0x0,f8+0x0 remove=0", "f9+0x0 remove=0"), 1, [NOBATCH]),
    ("batch", "Rust arms through the other ops", B_C,
     sub(B_RUST, "ftrace_set_filter_ips ftrace_ops f9+0x0,f8+0x0 remove=0", "ftrace_set_filter_ips ipmodify_ops f9+0x0,f8+0x0 remove=0"), 1,
     [NOBATCH]),
    ("batch", "Rust does not register the ops", B_C, sub(B_RUST, "  register_ftrace_function ftrace_ops = 0\n", ""), 1,
     [NOBATCH]),
    ("batch", "Rust does not unregister the ops", B_C, sub(B_RUST, "  unregister_ftrace_function ftrace_ops = 0\n", ""), 1,
     [NOBATCH]),
    ("batch", "Rust leaves the rolled-back member armed", B_C,
     sub(B_RUST, "  ~synchronize_rcu\n  arch_remove_kprobe f7",
         "  ftrace_set_filter_ips ipmodify_ops f7+0x0 remove=0 reset=0 = 0\n"
         "  register_ftrace_function ipmodify_ops = 0\n  ~synchronize_rcu\n  arch_remove_kprobe f7"), 1, [NOBATCH]),
    ("batch", "Rust's batch fails", B_C, sub(B_RUST, "f9+0x0,f8+0x0 remove=1 reset=0 = 0", "f9+0x0,f8+0x0 remove=1 reset=0 = -2"),
     1, [NOBATCH]),
    ("batch", "Rust batches a single unregister", sub(B_C, "> unregs K0 K1", "> unreg K0 K1"),
     sub(B_RUST, "> unregs K0 K1", "> unreg K0 K1"), 1, [NOBATCH]),
    ("batch", "Rust moves another line", B_C, sub(B_RUST, "  arch_prepare_kprobe f2+0x8 = 0\n  arch_arm_kprobe f2+0x8\n",
                                                  "  arch_arm_kprobe f2+0x8\n  arch_prepare_kprobe f2+0x8 = 0\n"), 1, [NOBATCH]),
]


# finding-1 in a rolled-back batch (hostdiff seed 665): upstream arms K5 at
# once, then its rollback disarms it through ipmodify_ops and leaks it; the
# Rust batch never gave it to ftrace.
B1_C = BOOT + """\
> reg K8 sym=no_such_fn off=8 pre=ok
  = -2
> set K4 sym=f0 off=0 pre=ok
> set K5 addr=f0+0 pre=ok post=ok
> regs K4 K5 K8
  arch_prepare_kprobe_ftrace f0+0x0 = 0
  ftrace_set_filter_ip ftrace_ops f0+0x0 remove=0 reset=0 = 0
  ftrace_set_filter_ip ipmodify_ops f0+0x0 remove=1 reset=0 = -2
  WARN
  ~synchronize_rcu
  !leaked K5 (still registered after unregister)
  = -2
"""
B1_RUST = BOOT + """\
> reg K8 sym=no_such_fn off=8 pre=ok
  = -2
> set K4 sym=f0 off=0 pre=ok
> set K5 addr=f0+0 pre=ok post=ok
> regs K4 K5 K8
  arch_prepare_kprobe_ftrace f0+0x0 = 0
  ~synchronize_rcu
  arch_remove_optimized_kprobe f0+0x0 slot=null
  arch_remove_kprobe f0+0x0 slot=null
  = -2
"""
CHECK1 = "does not do what the intended divergence in docs/divergences.md specifies"
CASES += [
    ("batch-finding-1", "the Rust trace of seed 665", B1_C, B1_RUST, 3, ["finding-1", "never (the rolled-back batch"]),
    ("batch-finding-1", "Rust leaks the member too", B1_C,
     sub(B1_RUST, "  arch_remove_optimized_kprobe f0+0x0 slot=null\n  arch_remove_kprobe f0+0x0 slot=null\n",
         "  !leaked K5 (still registered after unregister)\n"), 1, [CHECK1, "leaves the probe registered"]),
    ("batch-finding-1", "Rust arms the member and leaves it armed", B1_C,
     sub(B1_RUST, "  ~synchronize_rcu\n", "  ftrace_set_filter_ips ftrace_ops f0+0x0 remove=0 reset=0 = 0\n  ~synchronize_rcu\n"),
     1, [CHECK1, "does not disarm f0+0x0"]),
    ("batch-finding-1", "Rust returns another error", B1_C,
     sub(B1_RUST, "slot=null\n  = -2\n", "slot=null\n  = -22\n"), 1, [CHECK1, "returns"]),
    ("batch-finding-1", "not a batch operation", sub(B1_C, "> regs K4 K5 K8", "> reg K5 K4 K8"),
     sub(B1_RUST, "> regs K4 K5 K8", "> reg K5 K4 K8"), 1, [CHECK1, "does not disarm f0+0x0"]),
]

BOTH = ("6.12", "7.3")
CASES = [(f, case, c, r, code, want, BOTH) for f, case, c, r, code, want in CASES]

# Finding 7 (7.3): ftrace-fail register -16 (another IPMODIFY ops, a
# livepatch, claims f9); reg K0 sym=f9 pre=ok post=ok; dump-list; hit f9.
F7_HEAD = BOOT + """\
> ftrace-fail register -16
> reg K0 sym=f9 pre=ok post=ok
  arch_prepare_kprobe_ftrace f9+0x0 = 0
  ftrace_set_filter_ip ipmodify_ops f9+0x0 remove=0 reset=0 = 0
  register_ftrace_function ipmodify_ops = -16
  ftrace_set_filter_ip ipmodify_ops f9+0x0 remove=1 reset=0 = 0
  ~synchronize_rcu
"""
F7_REST = """\
> dump-list
  | end
> hit f9
  trap none f9+0x0
"""
F7_C = F7_HEAD + "  = 0\n" + F7_REST
F7_RUST = F7_HEAD + "  = -16\n" + F7_REST
# ftrace-fail filter -12; kret-reg R0 sym=f9 handler=ok; dump-list.
F7K_HEAD = BOOT + """\
> ftrace-fail filter -12
> kret-reg R0 sym=f9 handler=ok
  rethook_alloc num=10 = 0
  arch_prepare_kprobe_ftrace f9+0x0 = 0
  ftrace_set_filter_ip ftrace_ops f9+0x0 remove=0 reset=0 = -12
  ~synchronize_rcu
"""
F7K_REST = """\
> dump-list
  | end
"""
F7K_C = F7K_HEAD + "  = 0\n" + F7K_REST
F7K_RUST = F7K_HEAD + "  rethook_free\n  = -12\n" + F7K_REST
# set K0 sym=f9 pre=ok post=ok; set K1 sym=f0 pre=ok; ftrace-fail filter -16;
# regs K0 K1; dump-list: upstream goes on with K1, the Rust batch rolls back.
F7B_C = BOOT + """\
> set K0 sym=f9 pre=ok post=ok
> set K1 sym=f0 pre=ok
> ftrace-fail filter -16
> regs K0 K1
  arch_prepare_kprobe_ftrace f9+0x0 = 0
  ftrace_set_filter_ip ipmodify_ops f9+0x0 remove=0 reset=0 = -16
  ~synchronize_rcu
  arch_prepare_kprobe_ftrace f0+0x0 = 0
  ftrace_set_filter_ip ftrace_ops f0+0x0 remove=0 reset=0 = 0
  register_ftrace_function ftrace_ops = 0
  = 0
> dump-list
  | ffffffff81000000  k  f0+0x0    [FTRACE]
  | end
"""
F7B_RUST = BOOT + """\
> set K0 sym=f9 pre=ok post=ok
> set K1 sym=f0 pre=ok
> ftrace-fail filter -16
> regs K0 K1
  arch_prepare_kprobe_ftrace f9+0x0 = 0
  arch_prepare_kprobe_ftrace f0+0x0 = 0
  ftrace_set_filter_ips ftrace_ops f0+0x0 remove=0 reset=0 = -16
  ~synchronize_rcu
  arch_remove_kprobe f9+0x0 slot=null
  arch_remove_kprobe f0+0x0 slot=null
  = -16
> dump-list
  | end
"""
T73 = ("7.3",)
CASES += [
    (7, "the Rust trace of the reproducer", F7_C, F7_RUST, 3, ["finding-7", "returns the arm's error -16"], T73),
    (7, "on 6.12 the same traces are real (no divergence 7 there)", F7_C, F7_RUST, 1,
     ["real: no recorded upstream anomaly"], ("6.12",)),
    (7, "6.12's upstream trace and the Rust trace are identical", F7_RUST, F7_RUST, 0, ["identical"], BOTH),
    (7, "Rust returns 0 too", F7_C, F7_C, 0, ["identical"], T73),
    (7, "Rust returns 0 and differs later", F7_C, F7_C + "> check\n", 1, [TOO], T73),
    (7, "Rust returns another error", F7_C, sub(F7_RUST, "  = -16\n", "  = -22\n"), 1,
     [CHECK, "returns = -22, expected = -16"], T73),
    (7, "Rust returns the error but leaves the probe armed", F7_C,
     sub(F7_RUST, "  register_ftrace_function ipmodify_ops = -16\n"
         "  ftrace_set_filter_ip ipmodify_ops f9+0x0 remove=1 reset=0 = 0\n",
         "  register_ftrace_function ipmodify_ops = -16\n"), 1,
     [CHECK, "not upstream's with the arm's error returned"], T73),
    (7, "Rust returns the error without the grace period", F7_C, sub(F7_RUST, "  ~synchronize_rcu\n", ""), 1,
     [CHECK, "not upstream's with the arm's error returned"], T73),
    (7, "kret-reg: the Rust trace", F7K_C, F7K_RUST, 3, ["finding-7", "returns the arm's error -12"], T73),
    (7, "kret-reg: Rust keeps the rethook", F7K_C, sub(F7K_RUST, "  rethook_free\n", ""), 1,
     [CHECK, "not upstream's with the arm's error returned"], T73),
    (7, "kret-reg: Rust frees the rethook twice", F7K_C, sub(F7K_RUST, "  rethook_free\n", "  rethook_free\n" * 2), 1,
     [CHECK, "not upstream's with the arm's error returned"], T73),
    (7, "a batch of two (Rust rolls back, batched): not covered", F7B_C, F7B_RUST, 1,
     [CHECK, "not upstream's with the arm's error returned"], T73),
]


def lines(text):
    return text.split("\n")[:-1]


def main():
    # The Rust checks are tested on the default compared lines.
    os.environ.pop("KP_HOSTDIFF_STRICT", None)
    os.environ.pop("KP_HOSTDIFF_LOOSE", None)
    classify.STRICT = classify.LOOSE = False
    bad = {}
    for finding, case, c, r, code, want, trees in CASES:
        for tree in trees:
            try:
                got, why = classify.verdict_lines(lines(c), lines(r), tree)
            except Exception as e:  # noqa: BLE001 (a crash is a failed case)
                got, why = None, f"exception {e!r}"
            if got != code or not all(w in why for w in want):
                bad.setdefault(finding, []).append(
                    f"{case} ({tree}): expected exit {code} with {want}, got {got}: {why}")
    for finding in sorted({f for f, *_ in CASES}, key=str):
        n = sum(1 for f, *_ in CASES if f == finding)
        if finding in bad:
            print(f"FAIL hostdiff/classify-finding-{finding} {len(bad[finding])} of {n} cases: "
                  + " | ".join(bad[finding]))
        else:
            print(f"PASS hostdiff/classify-finding-{finding}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
