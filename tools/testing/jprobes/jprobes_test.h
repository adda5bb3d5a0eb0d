/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by jprobes_test.ko and jprobes_test_target.ko: the prototype of
 * every probed function, and the arguments the target module passes to
 * jpt_mod_target() when the job writes its `call` parameter.
 */
#ifndef _JPROBES_TEST_H
#define _JPROBES_TEST_H

#include <linux/types.h>
#include <linux/limits.h>

/* int, long, a pointer, a negative int, a 64-bit and a negative 64-bit value */
#define JPT_PROTO(name) int name(int a, long b, const void *p, int neg, u64 big, s64 nbig)

#define JPT_MOD_A	0x5a5a5a5a
#define JPT_MOD_B	(-0x1234567890L)
#define JPT_MOD_P	((const void *)0xffffffff81000000UL)
#define JPT_MOD_NEG	(-7)
#define JPT_MOD_BIG	0x8000000000000001ULL
#define JPT_MOD_NBIG	(-0x7edcba9876543210LL)

/* in jprobes_test_target.ko; jprobes_test.ko finds it by name */
JPT_PROTO(jpt_mod_target);

#endif
