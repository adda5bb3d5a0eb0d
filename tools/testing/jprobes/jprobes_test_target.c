// SPDX-License-Identifier: GPL-2.0
/*
 * jprobes_test_target.ko: a function that jprobes_test.ko probes by
 * symbol (jpt_mod_target) and that goes away with this module while the
 * jprobe is live: kprobes/list must then show the jprobe [GONE], and
 * unregister_jprobe() must still work.  Writing anything to
 * /sys/module/jprobes_test_target/parameters/call calls it with the
 * arguments of jprobes_test.h.  The two modules are not linked: the
 * prober finds the function through kallsyms, so this one can be
 * unloaded while probed.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include "jprobes_test.h"

static long jpt_mod_sink;

noinline JPT_PROTO(jpt_mod_target)
{
	WRITE_ONCE(jpt_mod_sink, READ_ONCE(jpt_mod_sink) + a + b + (long)p + neg + (long)big + (long)nbig);
	return (int)READ_ONCE(jpt_mod_sink);
}

static int jpt_call_set(const char *val, const struct kernel_param *kp)
{
	jpt_mod_target(JPT_MOD_A, JPT_MOD_B, JPT_MOD_P, JPT_MOD_NEG, JPT_MOD_BIG, JPT_MOD_NBIG);
	return 0;
}

static const struct kernel_param_ops jpt_call_ops = {
	.set = jpt_call_set,
};
module_param_cb(call, &jpt_call_ops, NULL, 0200);
MODULE_PARM_DESC(call, "write anything: call jpt_mod_target() once");

MODULE_DESCRIPTION("jprobes test: a probed function in a module that goes away");
MODULE_LICENSE("GPL");
