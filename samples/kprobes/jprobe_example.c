// SPDX-License-Identifier: GPL-2.0-only
/*
 * Here's a sample kernel module showing the use of jprobes to dump
 * the arguments of kernel_clone().
 *
 * A jprobe's handler has the prototype of the probed function and runs
 * at its entry with (copies of) its arguments.  jprobes were removed
 * from upstream in 4.15; the Rust kprobes core offers them again with
 * CONFIG_KPROBES_RUST_JPROBES: see include/linux/jprobes.h.
 *
 * You will see the trace data in /var/log/messages and on the console
 * whenever kernel_clone() is invoked to create a new process.
 */

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/sched/task.h>
#include <linux/jprobes.h>

/*
 * The handler below has kernel_clone()'s prototype: a jprobe on another
 * function needs a handler with that function's prototype.
 */
static char symbol[KSYM_NAME_LEN] = "kernel_clone";
module_param_string(symbol, symbol, KSYM_NAME_LEN, 0644);
MODULE_PARM_DESC(symbol, "Function to jprobe (it must take a struct kernel_clone_args *)");

/*
 * Jumper probe for kernel_clone.
 * Mirror principle enables access to arguments of the probed routine
 * from the probe handler.
 */

/* Proxy routine having the same arguments as actual kernel_clone() routine */
static pid_t j_kernel_clone(struct kernel_clone_args *args)
{
	pr_info("jprobe: clone_flags = 0x%llx, stack_start = 0x%lx, exit_signal = %d\n",
		args->flags, args->stack, args->exit_signal);

	/* Old handlers end with jprobe_return(); it does nothing now. */
	jprobe_return();
	/* The return value is ignored. */
	return 0;
}

static struct jprobe my_jprobe = {
	.entry		= j_kernel_clone,
	.kp = {
		.symbol_name	= symbol,
	},
};

static int __init jprobe_init(void)
{
	int ret;

	ret = register_jprobe(&my_jprobe);
	if (ret < 0) {
		pr_err("register_jprobe failed, returned %d\n", ret);
		return ret;
	}
	pr_info("Planted jprobe at %pS, handler addr %p\n",
		my_jprobe.kp.addr, my_jprobe.entry);
	return 0;
}

static void __exit jprobe_exit(void)
{
	unregister_jprobe(&my_jprobe);
	pr_info("jprobe at %pS unregistered\n", my_jprobe.kp.addr);
}

module_init(jprobe_init)
module_exit(jprobe_exit)
MODULE_DESCRIPTION("sample kernel module showing the use of jprobes");
MODULE_LICENSE("GPL");
