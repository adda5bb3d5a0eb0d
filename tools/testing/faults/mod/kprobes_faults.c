// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_faults.ko: one step of the allocation-failure sweep
 * (tools/testing/faults/).
 *
 * `echo "CASE N" > /sys/kernel/debug/kprobes_faults/ctl` sets up CASE's
 * preconditions, makes the N-th allocation of its one API call fail (the
 * writer's task_struct fail_nth, which /proc/self/fail-nth writes: only the
 * allocations of that call count), makes the call, and prints to
 * /sys/kernel/debug/kprobes_faults/out one line
 *	KPF CASE n=N ret=R injected=0|1 fired=F
 * R the call's return value, injected 0 once N is past the call's last
 * allocation (the sweep ends there), F how many of the case's probes fired
 * when their functions were called after the call (the probes the call
 * registered, and those set up before it).  Then everything is
 * unregistered, so kprobes/list is empty between steps.  Nothing printed
 * depends on addresses or timing: the C and Rust kernels must print the
 * same lines.
 */
#define pr_fmt(fmt) "kprobes_faults: " fmt
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/debugfs.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

static volatile int kpf_sink;

/* Straight-line bodies: an ftrace site at the entry, long enough to optimize. */
#define KPF_FN(name, k)						\
	noinline int name(int x)				\
	{							\
		kpf_sink = kpf_sink + x * (k);			\
		kpf_sink = kpf_sink ^ ((k) + x);		\
		kpf_sink = kpf_sink + (x >> 1);			\
		return kpf_sink + (k);				\
	}
KPF_FN(kpf_f0, 3)
KPF_FN(kpf_f1, 5)
KPF_FN(kpf_f2, 7)
KPF_FN(kpf_f3, 11)
KPF_FN(kpf_f4, 13)
KPF_FN(kpf_f5, 17)
KPF_FN(kpf_f6, 19)
KPF_FN(kpf_f7, 23)
static int (*const kpf_f[8])(int) = { kpf_f0, kpf_f1, kpf_f2, kpf_f3, kpf_f4, kpf_f5, kpf_f6, kpf_f7 };
static const char *const kpf_name[8] = { "kpf_f0", "kpf_f1", "kpf_f2", "kpf_f3",
					 "kpf_f4", "kpf_f5", "kpf_f6", "kpf_f7" };

#define KPF_NP 8
static struct kprobe kpf_kp[KPF_NP];
static struct kretprobe kpf_rp;
static atomic_t kpf_hits;

static int kpf_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&kpf_hits);
	return 0;
}

static void kpf_post(struct kprobe *p, struct pt_regs *regs, unsigned long flags)
{
}

static int kpf_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_inc(&kpf_hits);
	return 0;
}

/* A probe on kpf_name[f] at the first instruction boundary >= off. */
static void kpf_init_kp(struct kprobe *p, int f, unsigned int off, bool post)
{
	memset(p, 0, sizeof(*p));
	p->symbol_name = kpf_name[f];
	p->offset = off;
	p->pre_handler = kpf_pre;
	if (post)
		p->post_handler = kpf_post;
}

/* The mid-function offset: past endbr64 + the 5-byte ftrace call. */
#define KPF_MID 9

static char kpf_buf[256];
static DEFINE_MUTEX(kpf_lock);

struct kpf_case {
	const char *name;
	/* Preconditions (no fault); then the call under test. */
	int (*setup)(void);
	int (*call)(void);
	int nfuncs;	/* kpf_f[0..nfuncs) are called after the step */
};

static bool kpf_reg[KPF_NP], kpf_rreg;

static int kpf_register(int i)
{
	int ret = register_kprobe(&kpf_kp[i]);

	kpf_reg[i] = !ret;
	return ret;
}

static void kpf_unregister_all(void)
{
	int i;

	for (i = 0; i < KPF_NP; i++)
		if (kpf_reg[i]) {
			unregister_kprobe(&kpf_kp[i]);
			kpf_reg[i] = false;
		}
	if (kpf_rreg) {
		unregister_kretprobe(&kpf_rp);
		kpf_rreg = false;
	}
}

static int none(void)
{
	return 0;
}

/* int3: mid-function with a post_handler (not optimizable). */
static int call_int3(void)
{
	kpf_init_kp(&kpf_kp[0], 0, KPF_MID, true);
	return kpf_register(0);
}

/* ftrace entry. */
static int call_ftrace(void)
{
	kpf_init_kp(&kpf_kp[0], 0, 0, false);
	return kpf_register(0);
}

/* Optimizable: mid-function, no post_handler (prepares an optimized_kprobe). */
static int call_opt(void)
{
	kpf_init_kp(&kpf_kp[0], 0, KPF_MID, false);
	return kpf_register(0);
}

/* Joining an aggregate: a second probe where one is registered. */
static int setup_aggr(void)
{
	kpf_init_kp(&kpf_kp[1], 0, KPF_MID, true);
	return kpf_register(1);
}

static int call_aggr(void)
{
	kpf_init_kp(&kpf_kp[0], 0, KPF_MID, true);
	return kpf_register(0);
}

/* Joining an ftrace aggregate. */
static int setup_aggr_ftrace(void)
{
	kpf_init_kp(&kpf_kp[1], 0, 0, false);
	return kpf_register(1);
}

static int call_aggr_ftrace(void)
{
	kpf_init_kp(&kpf_kp[0], 0, 0, false);
	return kpf_register(0);
}

static int kpf_kretprobe(int maxactive, size_t data_size)
{
	int ret;

	memset(&kpf_rp, 0, sizeof(kpf_rp));
	kpf_rp.kp.symbol_name = kpf_name[0];
	kpf_rp.handler = kpf_ret;
	kpf_rp.maxactive = maxactive;
	kpf_rp.data_size = data_size;
	ret = register_kretprobe(&kpf_rp);
	kpf_rreg = !ret;
	return ret;
}

static int call_kretprobe_1(void)
{
	return kpf_kretprobe(1, 0);
}

static int call_kretprobe_64(void)
{
	return kpf_kretprobe(64, 0);
}

static int call_kretprobe_data(void)
{
	return kpf_kretprobe(4, 64);
}

/* A batch of 8: int3, ftrace and optimizable probes on eight functions. */
static int call_batch(void)
{
	struct kprobe *kps[KPF_NP];
	int i, ret;

	for (i = 0; i < KPF_NP; i++) {
		kpf_init_kp(&kpf_kp[i], i, i % 3 == 0 ? 0 : KPF_MID, i % 3 == 1);
		kps[i] = &kpf_kp[i];
	}
	ret = register_kprobes(kps, KPF_NP);
	for (i = 0; i < KPF_NP; i++)
		kpf_reg[i] = !ret;
	return ret;
}

/* enable_kprobe() of a probe registered disabled. */
static int setup_enable(void)
{
	kpf_init_kp(&kpf_kp[0], 0, KPF_MID, false);
	kpf_kp[0].flags = KPROBE_FLAG_DISABLED;
	return kpf_register(0);
}

static int call_enable(void)
{
	return enable_kprobe(&kpf_kp[0]);
}

static const struct kpf_case kpf_cases[] = {
	{ "register_kprobe.int3", none, call_int3, 1 },
	{ "register_kprobe.ftrace", none, call_ftrace, 1 },
	{ "register_kprobe.optimizable", none, call_opt, 1 },
	{ "register_kprobe.join_aggregate", setup_aggr, call_aggr, 1 },
	{ "register_kprobe.join_ftrace_aggregate", setup_aggr_ftrace, call_aggr_ftrace, 1 },
	{ "register_kretprobe.maxactive_1", none, call_kretprobe_1, 1 },
	{ "register_kretprobe.maxactive_64", none, call_kretprobe_64, 1 },
	{ "register_kretprobe.data_size", none, call_kretprobe_data, 1 },
	{ "register_kprobes.batch_8", none, call_batch, KPF_NP },
	{ "enable_kprobe", setup_enable, call_enable, 1 },
};

static int kpf_step(const struct kpf_case *c, unsigned int n)
{
	unsigned int left;
	int ret, i;

	ret = c->setup();
	if (ret) {
		scnprintf(kpf_buf, sizeof(kpf_buf), "KPF %s n=%u setup_failed=%d\n", c->name, n, ret);
		kpf_unregister_all();
		return 0;
	}
	/* Only the allocations of the call under test count. */
	WRITE_ONCE(current->fail_nth, n);
	ret = c->call();
	left = READ_ONCE(current->fail_nth);
	WRITE_ONCE(current->fail_nth, 0);
	atomic_set(&kpf_hits, 0);
	for (i = 0; i < c->nfuncs; i++)
		kpf_f[i](i);
	scnprintf(kpf_buf, sizeof(kpf_buf), "KPF %s n=%u ret=%d injected=%d fired=%d\n", c->name, n, ret,
		  left == 0, atomic_read(&kpf_hits));
	kpf_unregister_all();
	return 0;
}

static ssize_t kpf_ctl_write(struct file *file, const char __user *ubuf, size_t count, loff_t *ppos)
{
	char cmd[96] = {}, *sp;
	unsigned int n;
	size_t i;
	int err = -EINVAL;

	if (copy_from_user(cmd, ubuf, min(count, sizeof(cmd) - 1)))
		return -EFAULT;
	sp = strchr(strim(cmd), ' ');
	if (!sp || kstrtouint(sp + 1, 10, &n))
		return -EINVAL;
	*sp = '\0';
	mutex_lock(&kpf_lock);
	for (i = 0; i < ARRAY_SIZE(kpf_cases); i++)
		if (!strcmp(cmd, kpf_cases[i].name))
			err = kpf_step(&kpf_cases[i], n);
	mutex_unlock(&kpf_lock);
	return err ?: count;
}

static ssize_t kpf_out_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&kpf_lock);
	ret = simple_read_from_buffer(ubuf, count, ppos, kpf_buf, strlen(kpf_buf));
	mutex_unlock(&kpf_lock);
	return ret;
}

/* The case names, one per line, for the job. */
static ssize_t kpf_cases_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	static char buf[1024];
	size_t i, len = 0;
	ssize_t ret;

	mutex_lock(&kpf_lock);
	for (i = 0; i < ARRAY_SIZE(kpf_cases); i++)
		len += scnprintf(buf + len, sizeof(buf) - len, "%s\n", kpf_cases[i].name);
	ret = simple_read_from_buffer(ubuf, count, ppos, buf, len);
	mutex_unlock(&kpf_lock);
	return ret;
}

static const struct file_operations kpf_ctl_fops = { .write = kpf_ctl_write };
static const struct file_operations kpf_out_fops = { .read = kpf_out_read };
static const struct file_operations kpf_cases_fops = { .read = kpf_cases_read };
static struct dentry *kpf_dir;

static int __init kpf_init(void)
{
	kpf_dir = debugfs_create_dir("kprobes_faults", NULL);
	debugfs_create_file("ctl", 0200, kpf_dir, NULL, &kpf_ctl_fops);
	debugfs_create_file("out", 0400, kpf_dir, NULL, &kpf_out_fops);
	debugfs_create_file("cases", 0400, kpf_dir, NULL, &kpf_cases_fops);
	return 0;
}

static void __exit kpf_exit(void)
{
	debugfs_remove_recursive(kpf_dir);
	kpf_unregister_all();
}

module_init(kpf_init);
module_exit(kpf_exit);
MODULE_DESCRIPTION("kprobes allocation-failure sweep driver (tools/testing/faults)");
MODULE_LICENSE("GPL");
