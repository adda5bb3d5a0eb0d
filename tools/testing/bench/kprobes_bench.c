// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_bench: the A/B benchmark of the kprobes core.
 *
 * Built out of tree against the `c` variant and loaded unchanged into both
 * kernels.  Meant to run under QEMU -icount shift=0,align=off,sleep=off
 * (scripts/vm.sh with KP_ICOUNT=1): guest nanoseconds then count guest
 * instructions, so ktime_get_ns() deltas of code that does not sleep are
 * instruction counts, repeatable run to run.  Code that waits (msleep,
 * synchronize_rcu in unregistration) also counts the skipped idle time, so
 * those rows are "guest ns", still deterministic.
 *
 * Everything runs at insmod time (module parameter `run`, a comma list of
 * hits,scale,gp,endis,reg,regentry,mem) and the results are lines
 *	KPB <name> <unit> <value>
 * in /sys/kernel/debug/kprobes_bench/results (also printed with pr_info).
 * /sys/kernel/debug/kprobes_bench/now returns ktime_get_ns() at the first
 * read of each open, the time source for the kprobe_events rows timed by
 * the guest job.  A line
 *	KPB-ERROR <what>
 * reports a step that failed (the host script then fails the run).
 */
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/ftrace.h>
#include <linux/ktime.h>
#include <linux/delay.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/vmalloc.h>
#include <linux/vmstat.h>
#include <linux/irqflags.h>
#include <linux/string.h>
#include <linux/slab.h>
#include <linux/hash.h>
#include <linux/sort.h>
#include <linux/fprobe.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/cpumask.h>
#include <linux/version.h>

/*
 * The kernel trees the project builds on (7.3, mainline, and 6.12) differ
 * in three APIs this module uses: fprobe's entry handler, x86's irq_stat,
 * and kvfree_rcu_barrier().
 */
#define KPB_TREE_7_3 (LINUX_VERSION_CODE >= KERNEL_VERSION(7, 3, 0))

#define KPB_MAIN
#include "kpb_funcs.h"	/* the probe targets, in the kpb_fns*.ko modules */

static char *run = "hits,reg,mem";
module_param(run, charp, 0444);
MODULE_PARM_DESC(run, "comma list of: hits, scale, scaleall, gp, endis, reg, regentry, regbatch, regall, mem, cost4");
static int iters = 20000;
module_param(iters, int, 0444);
MODULE_PARM_DESC(iters, "loop iterations per hit-path measurement");
static int maxn = 5000;
module_param(maxn, int, 0444);
MODULE_PARM_DESC(maxn, "largest N of the registration and scale rows");
static int memn = 2000;
module_param(memn, int, 0444);
MODULE_PARM_DESC(memn, "probes registered per memory row");

/* ---- output ------------------------------------------------------------ */
#define KPB_OUT_SZ 65536
static char *kpb_out;
static size_t kpb_len;
static int kpb_errors;

static __printf(1, 2) void kpb_line(const char *fmt, ...)
{
	char buf[160];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vscnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	pr_info("%s\n", buf);
	if (kpb_out && kpb_len + n + 1 < KPB_OUT_SZ) {
		memcpy(kpb_out + kpb_len, buf, n);
		kpb_len += n;
		kpb_out[kpb_len++] = '\n';
	}
}

#define kpb_err(fmt, ...) do { kpb_errors++; kpb_line("KPB-ERROR " fmt, ##__VA_ARGS__); } while (0)

/* value in hundredths, printed as a decimal with two places */
static void kpb_result(const char *name, const char *unit, s64 v100)
{
	const char *sign = v100 < 0 ? "-" : "";
	u64 a = v100 < 0 ? -v100 : v100;

	kpb_line("KPB %s %s %s%llu.%02llu", name, unit, sign, a / 100, a % 100);
}

/* ---- helpers ----------------------------------------------------------- */
static int kpb_write_file(const char *path, const char *s)
{
	struct file *f = filp_open(path, O_WRONLY, 0);
	loff_t pos = 0;
	ssize_t r;

	if (IS_ERR(f))
		return PTR_ERR(f);
	r = kernel_write(f, s, strlen(s), &pos);
	filp_close(f, NULL);
	return r < 0 ? r : 0;
}

/* debug.kprobes-optimization: the jump optimizer on or off. */
static bool kpb_optimizing = IS_ENABLED(CONFIG_OPTPROBES);

static int kpb_set_optimization(int on)
{
	int r;

	if (!IS_ENABLED(CONFIG_OPTPROBES))
		return 0;	/* no such sysctl: nothing to switch */
	r = kpb_write_file("/proc/sys/debug/kprobes-optimization", on ? "1\n" : "0\n");

	if (r)
		kpb_err("set debug.kprobes-optimization=%d: %d", on, r);
	else
		kpb_optimizing = on;
	return r;
}

/*
 * Optimization happens to the aggregate probe the core puts in front of ours
 * (so our kprobe's own flags never say OPTIMIZED): look at the text instead,
 * an optimized probe is a jmp rel32 where an armed one is an int3.
 */
static bool kpb_is_jump(void *addr)
{
#ifdef CONFIG_X86
	u8 op = 0;

	return !copy_from_kernel_nofault(&op, addr, 1) && op == 0xe9;
#else
	return false;	/* no jump optimizer (arm64 has no OPTPROBES in 6.12) */
#endif
}

static volatile int kpb_sink;
static atomic_t kpb_hits = ATOMIC_INIT(0);

static int kpb_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&kpb_hits);
	return 0;
}

static void kpb_post(struct kprobe *p, struct pt_regs *regs, unsigned long flags)
{
}

static int kpb_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_inc(&kpb_hits);
	return 0;
}

#ifdef CONFIG_FUNCTION_TRACER
static void kpb_ftrace_cb(unsigned long ip, unsigned long parent_ip,
			  struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	atomic_inc(&kpb_hits);
}
#endif

/* ---- hit paths --------------------------------------------------------- */
/*
 * One target function per measurement, all with the same body.  On x86_64:
 * endbr64, the ftrace site (+4), then four 64-bit `lea` (+9 ...) and the
 * return; 64-bit on purpose: an address-size prefix (32-bit lea) makes an
 * instruction unboostable, hence not optimizable either.  On arm64: the
 * patchable entry (two NOPs, the ftrace site), then four 64-bit `add`
 * immediates; the "mid" probe goes on the first of them (kpb_mid_off, found
 * at load time: the compiler decides what comes before it), a BRK probe
 * stepped out of line (arm64 has no boosting and no jump optimizer; its
 * "entry" probes are BRK probes on the first NOP, as it has no
 * KPROBES_ON_FTRACE).
 */
#ifdef CONFIG_ARM64
#define KPB_BODY4 "add %0, %0, #1\n\tadd %0, %0, #2\n\tadd %0, %0, #3\n\tadd %0, %0, #4"
#elif defined(CONFIG_RISCV)
/* riscv64: uncompressed `addi`s, found by kpb_find_mid_off() as on arm64 */
#define KPB_BODY4 ".option push\n\t.option norvc\n\taddi %0, %0, 1\n\taddi %0, %0, 2\n\t"	\
		  "addi %0, %0, 3\n\taddi %0, %0, 4\n\t.option pop"
#else
#define KPB_BODY4 "lea 1(%0), %0\n\tlea 2(%0), %0\n\tlea 3(%0), %0\n\tlea 4(%0), %0"
#endif
#define KPB_TARGET(name, k)						\
static noinline int name(int x)						\
{									\
	long v = x;							\
									\
	asm volatile(KPB_BODY4 : "+r"(v));				\
	return v + k;							\
}
KPB_TARGET(kpb_t_entry, 1)
KPB_TARGET(kpb_t_entry_post, 2)
KPB_TARGET(kpb_t_mid, 3)
KPB_TARGET(kpb_t_mid_post, 4)
KPB_TARGET(kpb_t_opt, 5)
KPB_TARGET(kpb_t_ret, 6)
KPB_TARGET(kpb_t_both, 7)
KPB_TARGET(kpb_t_ftrace, 8)
KPB_TARGET(kpb_t_agg, 9)

/*
 * The "mid" probe point: the first body instruction.  x86_64: after endbr64
 * (4 bytes) and the 5-byte ftrace site.  arm64: the first `add xN, xN, #1`
 * of the body, found by kpb_find_mid_off() at load time.
 */
static unsigned int kpb_mid_off = 9;
#define KPB_MID_OFF kpb_mid_off

#if defined(CONFIG_ARM64)
static int kpb_find_mid_off(const void *fn)
{
	u32 insn;
	int i;

	for (i = 0; i < 16; i++) {
		if (copy_from_kernel_nofault(&insn, fn + 4 * i, 4))
			return -EFAULT;
		/* add Xd, Xn, #1 with d == n (ADD immediate, 64-bit, no shift) */
		if ((insn & 0xfffffc00) == 0x91000400 && (insn & 31) == ((insn >> 5) & 31))
			return 4 * i;
	}
	return -ENOENT;
}
#elif defined(CONFIG_RISCV)
/* riscv64: compressed instructions before the body, so 2-byte steps */
static int kpb_find_mid_off(const void *fn)
{
	u32 insn;
	int i;

	for (i = 0; i < 32; i++) {
		if (copy_from_kernel_nofault(&insn, fn + 2 * i, 4))
			return -EFAULT;
		/* addi rd, rs1, 1 with rd == rs1 (OP-IMM, funct3 0, imm 1) */
		if ((insn & 0xfff0707f) == 0x00100013 && ((insn >> 7) & 31) == ((insn >> 15) & 31))
			return 2 * i;
	}
	return -ENOENT;
}
#endif
#if defined(CONFIG_ARM64) || defined(CONFIG_RISCV)

/* Every target and generated function has its mid point where kpb_t_mid has. */
static int kpb_init_mid_off(void)
{
	const void *fns[] = { kpb_t_mid, kpb_t_mid_post, kpb_t_agg };
	int off = kpb_find_mid_off(kpb_t_mid), i;

	if (off < 0) {
		kpb_err("no `add(i) #1` in %ps: %d", kpb_t_mid, off);
		return off;
	}
	for (i = 0; i < ARRAY_SIZE(fns) + KPB_NFUNCS; i++) {
		const void *fn = i < ARRAY_SIZE(fns) ? fns[i] : (const void *)kpb_func(i - ARRAY_SIZE(fns));

		if (kpb_find_mid_off(fn) != off) {
			kpb_err("%ps: its `add(i) #1` is not at +%d", fn, off);
			return -EINVAL;
		}
	}
	kpb_mid_off = off;
	return 0;
}
#else
static int kpb_init_mid_off(void)
{
	return 0;
}
#endif

#ifdef CONFIG_FUNCTION_TRACER
/*
 * The ftrace site of fn: after endbr64 on x86_64; on arm64 the second NOP
 * of the patchable entry (after `bti c` with BTI), which is where
 * ftrace_set_filter_ip() finds a record (ftrace_location() is not exported).
 */
static unsigned long kpb_ftrace_site(int (*fn)(int))
{
	if (IS_ENABLED(CONFIG_ARM64_BTI_KERNEL))
		return (unsigned long)fn + 8;
	return (unsigned long)fn + 4;
}
#endif

static noinline u64 kpb_loop(int (*fn)(int), int n)
{
	unsigned long flags;
	u64 t0, t1;
	int i, s = 0;

	local_irq_save(flags);
	t0 = ktime_get_ns();
	for (i = 0; i < n; i++)
		s += fn(i);
	t1 = ktime_get_ns();
	local_irq_restore(flags);
	kpb_sink = s;
	return t1 - t0;
}

/*
 * With two vCPUs under icount the virtual clock also advances while the
 * other vCPU executes (its timer tick, kworkers): a long loop would count
 * some of that.  So the loop runs in chunks of KPB_CHUNK calls and the
 * fastest chunk is kept: a chunk (< 1 ms) that no tick on the other vCPU
 * overlapped counts only this loop's instructions.
 */
#define KPB_CHUNK 1000
static u64 kpb_loop_min(int (*fn)(int), int n)
{
	u64 best = U64_MAX, t;
	int done;

	for (done = 0; done < n; done += KPB_CHUNK) {
		t = kpb_loop(fn, KPB_CHUNK);
		best = min(best, t);
	}
	return best;
}

/* Loop cost without a probe: warm once, then measure. */
static u64 kpb_base(int (*fn)(int))
{
	kpb_loop(fn, 100);
	return kpb_loop_min(fn, iters);
}

/* Per-hit cost with whatever is registered on fn now, base subtracted. */
static void kpb_hit_report(const char *name, int (*fn)(int), u64 base, int expect_per_call)
{
	int hits, calls = DIV_ROUND_UP(iters, KPB_CHUNK) * KPB_CHUNK;
	u64 t;

	kpb_loop(fn, 100);
	atomic_set(&kpb_hits, 0);
	t = kpb_loop_min(fn, iters);
	hits = atomic_read(&kpb_hits);
	if (hits != calls * expect_per_call)
		kpb_err("%s: %d handler calls for %d calls (expected %d per call)",
			name, hits, calls, expect_per_call);
	kpb_result(name, "ins/hit", div_s64(((s64)t - (s64)base) * 100, KPB_CHUNK));
	kpb_line("KPB-INFO %s best chunk=%llu base chunk=%llu calls/chunk=%d chunks=%d",
		 name, t, base, KPB_CHUNK, calls / KPB_CHUNK);
}

/*
 * What a hit helper does once its probe (at addr in fn) is registered:
 * kpb_report_one() reports the hit cost (the hit rows), kpb_scale_report()
 * registers filler probes and reports it at each N (the scale rows).
 */
typedef void (*kpb_report_t)(const char *name, int (*fn)(int), void *addr,
			     u64 base, int expect_per_call);

static void kpb_report_one(const char *name, int (*fn)(int), void *addr,
			   u64 base, int expect_per_call)
{
	kpb_hit_report(name, fn, base, expect_per_call);
}

static void kpb_kp_init(struct kprobe *kp, void *addr, bool post)
{
	memset(kp, 0, sizeof(*kp));
	kp->addr = addr;
	kp->pre_handler = kpb_pre;
	if (post)
		kp->post_handler = kpb_post;
}

static void kpb_hit_kprobe(const char *name, int (*fn)(int), unsigned int off, bool post,
			   kpb_report_t report)
{
	static struct kprobe kp;
	u64 base = kpb_base(fn);
	int r;

	kpb_kp_init(&kp, (void *)fn + off, post);
	r = register_kprobe(&kp);
	if (r) {
		kpb_err("%s: register_kprobe at %ps+%u: %d", name, fn, off, r);
		return;
	}
	if (kpb_is_jump(kp.addr))
		kpb_err("%s: probe is optimized, expected int3/ftrace", name);
	kpb_line("KPB-INFO %s addr=%pS flags=%#x", name, kp.addr, kp.flags);
	report(name, fn, kp.addr, base, 1);
	unregister_kprobe(&kp);
}

/*
 * The jump-optimized probe: find the first instruction boundary in the body
 * that the optimizer takes (as lib.sh's optimized_probe does from the shell).
 */
static void kpb_hit_optimized(const char *name, kpb_report_t report)
{
	static struct kprobe kp;
	int (*fn)(int) = kpb_t_opt;
	u64 base = kpb_base(fn);
	unsigned int off;
	int r, w;

	if (!IS_ENABLED(CONFIG_OPTPROBES)) {
		kpb_line("KPB-SKIP %s no jump optimizer (!CONFIG_OPTPROBES)", name);
		return;
	}

	for (off = KPB_MID_OFF; off < 32; off++) {
		kpb_kp_init(&kp, (void *)fn + off, false);
		r = register_kprobe(&kp);
		if (r)
			continue;	/* not an instruction boundary */
		for (w = 0; w < 50 && !kpb_is_jump(kp.addr); w++)
			msleep(20);
		if (kpb_is_jump(kp.addr))
			break;
		unregister_kprobe(&kp);
	}
	if (off >= 32) {
		kpb_err("%s: no offset of %ps was optimized", name, fn);
		return;
	}
	kpb_line("KPB-INFO %s addr=%pS flags=%#x", name, kp.addr, kp.flags);
	report(name, fn, kp.addr, base, 1);
	unregister_kprobe(&kp);
	msleep(100);	/* let the optimizer free the unoptimized probe */
}

static void kpb_krp_init(struct kretprobe *krp, void *addr, int maxactive)
{
	memset(krp, 0, sizeof(*krp));
	krp->kp.addr = addr;
	krp->handler = kpb_ret;
	krp->maxactive = maxactive;
}

static void kpb_hit_kretprobe(const char *name, kpb_report_t report)
{
	static struct kretprobe krp;
	int (*fn)(int) = kpb_t_ret;
	u64 base = kpb_base(fn);
	int r;

	kpb_krp_init(&krp, fn, 0);
	r = register_kretprobe(&krp);
	if (r) {
		kpb_err("%s: register_kretprobe: %d", name, r);
		return;
	}
	report(name, fn, krp.kp.addr, base, 1);
	if (krp.nmissed)
		kpb_err("%s: nmissed=%d", name, krp.nmissed);
	unregister_kretprobe(&krp);
}

static void kpb_hit_both(void)
{
	static struct kretprobe krp;
	static struct kprobe kp;
	int (*fn)(int) = kpb_t_both;
	u64 base = kpb_base(fn);
	int r;

	kpb_kp_init(&kp, fn, false);
	kpb_krp_init(&krp, fn, 0);
	r = register_kprobe(&kp);
	if (r) {
		kpb_err("hit_kprobe_kretprobe: register_kprobe: %d", r);
		return;
	}
	r = register_kretprobe(&krp);
	if (r) {
		kpb_err("hit_kprobe_kretprobe: register_kretprobe: %d", r);
		unregister_kprobe(&kp);
		return;
	}
	kpb_hit_report("hit_kprobe_kretprobe", fn, base, 2);
	unregister_kretprobe(&krp);
	unregister_kprobe(&kp);
}

/* Two kprobes on one mid-function address: the aggregate handler path. */
static void kpb_hit_aggr(void)
{
	static struct kprobe kp1, kp2;
	int (*volatile fn)(int) = kpb_t_agg;
	u64 base = kpb_base(fn);
	int r;

	kpb_kp_init(&kp1, (void *)fn + KPB_MID_OFF, false);
	kpb_kp_init(&kp2, (void *)fn + KPB_MID_OFF, false);
	r = register_kprobe(&kp1);
	if (!r) {
		r = register_kprobe(&kp2);
		if (r)
			unregister_kprobe(&kp1);
	}
	if (r) {
		kpb_err("hit_mid_int3_aggr2: register_kprobe: %d", r);
		return;
	}
	kpb_hit_report("hit_mid_int3_aggr2", fn, base, 2);
	unregister_kprobe(&kp2);
	unregister_kprobe(&kp1);
}

#ifdef CONFIG_FUNCTION_TRACER
static struct ftrace_ops kpb_fops = {
	.func = kpb_ftrace_cb,
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_REGS
	.flags = FTRACE_OPS_FL_SAVE_REGS,
#endif
};

static void kpb_hit_ftrace(void)
{
	/* volatile: the address is computed at run time (no !ENDBR relocation) */
	int (*volatile fn)(int) = kpb_t_ftrace;
	u64 base = kpb_base(fn);
	int r;

	r = ftrace_set_filter_ip(&kpb_fops, kpb_ftrace_site(fn), 0, 0);
	if (r) {
		kpb_err("hit_ftrace_ops_floor: ftrace_set_filter_ip: %d", r);
		return;
	}
	r = register_ftrace_function(&kpb_fops);
	if (r) {
		kpb_err("hit_ftrace_ops_floor: register_ftrace_function: %d", r);
		ftrace_set_filter_ip(&kpb_fops, kpb_ftrace_site(fn), 1, 0);
		return;
	}
	kpb_hit_report("hit_ftrace_ops_floor", fn, base, 1);
	unregister_ftrace_function(&kpb_fops);
	ftrace_set_filter_ip(&kpb_fops, kpb_ftrace_site(fn), 1, 0);
}
#else
/* riscv64's config: no function tracer, so no ftrace floor either */
static void kpb_hit_ftrace(void)
{
	kpb_line("KPB-SKIP hit_ftrace_ops_floor no function tracer (!CONFIG_FUNCTION_TRACER)");
}
#endif

static void kpb_hit_all(void)
{
	u64 base = kpb_base(kpb_t_entry);

	kpb_result("loop_base", "ins/iter", div_u64(base * 100, KPB_CHUNK));

	/* jump optimizer on (the default): entry probes are on ftrace anyway */
	kpb_set_optimization(1);
	kpb_hit_kprobe("hit_entry_ftrace", kpb_t_entry, 0, false, kpb_report_one);
	kpb_hit_kprobe("hit_entry_ftrace_post", kpb_t_entry_post, 0, true, kpb_report_one);
	kpb_hit_optimized("hit_mid_optimized", kpb_report_one);
	kpb_hit_kretprobe("hit_kretprobe", kpb_report_one);
	kpb_hit_both();
	kpb_hit_ftrace();

	/* int3 paths: keep the optimizer away */
	kpb_set_optimization(0);
	kpb_hit_kprobe("hit_mid_int3_boosted", kpb_t_mid, KPB_MID_OFF, false, kpb_report_one);
	kpb_hit_kprobe("hit_mid_int3_post", kpb_t_mid_post, KPB_MID_OFF, true, kpb_report_one);
	kpb_hit_aggr();
	kpb_set_optimization(1);
}

/* ---- registration ------------------------------------------------------ */
static struct kprobe *kpb_kps;		/* KPB_NFUNCS probes */
static struct kprobe **kpb_kpp;		/* pointers to them */

static void kpb_prepare(int n, unsigned int off)
{
	int i;

	for (i = 0; i < n; i++) {
		kpb_kp_init(&kpb_kps[i], (void *)kpb_func(i) + off, false);
		kpb_kpp[i] = &kpb_kps[i];
	}
}

static int kpb_register_one_by_one(int n, const char *what)
{
	int i, r;

	for (i = 0; i < n; i++) {
		r = register_kprobe(&kpb_kps[i]);
		if (r) {
			kpb_err("%s: register_kprobe #%d at %pS: %d", what, i, kpb_kps[i].addr, r);
			while (--i >= 0)
				unregister_kprobe(&kpb_kps[i]);
			return r;
		}
	}
	return 0;
}

/* The N of the registration rows (and of fprobe's, their floor). */
static const int kpb_reg_ns[] = { 10, 100, 1000, 5000 };
static bool kpb_want(const char *what);

/*
 * Run token `regall`: one more step of the registration and fprobe rows, N
 * = every generated function (KPB_NFUNCS, about as many as the kernel has
 * probeable functions: vmlinux's ~27,500 plus the generated 5,000 of the
 * scale rows).  The probes go on the generated functions, which nothing
 * calls: on vmlinux's functions they would fire during the measurement.
 */
static int kpb_reg_all(void)
{
	int last = kpb_reg_ns[ARRAY_SIZE(kpb_reg_ns) - 1];

	return kpb_want("regall") && KPB_NFUNCS > last && maxn >= last ? KPB_NFUNCS : 0;
}

/*
 * A step of N = all is run only where the same kernel's step at 5,000 says
 * it takes at most KPB_ALL_LIMIT_S of guest time (its time at 5,000 times
 * N/5,000, a lower bound: the per-probe ftrace update grows with the
 * filter): one-by-one entry probes on both kernels, C's batch (a loop of
 * them) too, take about ten minutes, an hour under TCG.  A step not run
 * says so (KPB-SKIP, which report.py shows); nothing is extrapolated.
 */
#define KPB_ALL_LIMIT_S 120

static bool kpb_all_fits(const char *row, int n, u64 ns_at_last)
{
	int last = kpb_reg_ns[ARRAY_SIZE(kpb_reg_ns) - 1];
	u64 bound = div_u64(ns_at_last * n, last);

	if (bound <= (u64)KPB_ALL_LIMIT_S * NSEC_PER_SEC)
		return true;
	kpb_line("KPB-SKIP %s at least %llu s of guest time (%llu ns at N=%d, times N/%d); limit %d s",
		 row, div_u64(bound, NSEC_PER_SEC), ns_at_last, last, last, KPB_ALL_LIMIT_S);
	return false;
}

/*
 * The registration rows at N <= KPB_REP_MAXN are measured KPB_REPS times in
 * a row and each row reports its median (the values are logged as
 * KPB-INFO reps lines): such a row holds a few grace periods, and how long
 * one lasts depends on where it meets the tick, which a few hundred
 * instructions more or less before it move.  A single run of either kernel
 * can land far from its usual value (full run at fe3b1f7:
 * unreg_int3_one_10 1.203 of C, with an equal core cost).
 */
#define KPB_REPS 5
#define KPB_REP_MAXN 100

static int kpb_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* The row NAME: the median of the reps values V (sorted here), logged. */
static u64 kpb_median_result(const char *name, u64 *v, int reps)
{
	char vals[KPB_REPS * 21 + 1] = "";
	int i, len = 0;

	if (reps > 1) {
		for (i = 0; i < reps; i++)
			len += scnprintf(vals + len, sizeof(vals) - len, " %llu", v[i]);
		kpb_line("KPB-INFO reps %s%s", name, vals);
	}
	sort(v, reps, sizeof(*v), kpb_cmp_u64, NULL);
	kpb_result(name, "ns", v[reps / 2] * 100);
	return v[reps / 2];
}

/*
 * Wait for the next tick before a timed phase.  A phase that waits for a
 * grace period lasts as long as where that grace period meets the tick
 * decides, and without this the phase before it decides where it starts:
 * a faster registration then moves the unregistration's grace period, in
 * either direction (unreg_int3_batch_10, one grace period, took 8.1 M or
 * 11.7 M guest ns from one repetition to the next on either kernel).
 * After the wait each phase starts at the same point of the tick on both
 * kernels, so only the work before its grace period moves it.
 */
static void kpb_tick_align(void)
{
	schedule_timeout_uninterruptible(1);
}

/*
 * Repetition REP of a registration (T0 to T1) and, after a tick wait,
 * an unregistration (T1B to T2); regunreg is the sum of the two.
 */
static void kpb_rep_times(u64 d[3][KPB_REPS], int rep, u64 t0, u64 t1, u64 t1b, u64 t2)
{
	d[0][rep] = t1 - t0;
	d[1][rep] = t2 - t1b;
	d[2][rep] = d[0][rep] + d[1][rep];
}

/*
 * The rows reg_, unreg_ and regunreg_TAG_HOW_N of reps (un)registrations:
 * d[0], d[1] and d[2] hold each one's ns; returns regunreg's median.
 */
static u64 kpb_reg_results(const char *tag, const char *how, int n, u64 d[3][KPB_REPS], int reps)
{
	static const char *const what[] = { "reg", "unreg", "regunreg" };
	char name[64];
	u64 m = 0;
	int j;

	for (j = 0; j < 3; j++) {
		snprintf(name, sizeof(name), "%s_%s_%s_%d", what[j], tag, how, n);
		m = kpb_median_result(name, d[j], reps);
	}
	return m;
}

static void kpb_reg_rows(const char *tag, unsigned int off, bool one_by_one)
{
	u64 t0, t1, t1b, t2, one_ns = 0, batch_ns = 0, d[3][KPB_REPS];
	int k, n, r, rep, reps;
	char row[64];

	for (k = 0; k <= ARRAY_SIZE(kpb_reg_ns); k++) {
		n = k < ARRAY_SIZE(kpb_reg_ns) ? kpb_reg_ns[k] : kpb_reg_all();
		if (!n || (n > maxn && k < ARRAY_SIZE(kpb_reg_ns)) || n > KPB_NFUNCS)
			break;
		reps = n <= KPB_REP_MAXN ? KPB_REPS : 1;

		snprintf(row, sizeof(row), "regunreg_%s_one_%d", tag, n);
		if (one_by_one && (k < ARRAY_SIZE(kpb_reg_ns) || kpb_all_fits(row, n, one_ns))) {
			for (rep = 0; rep < reps; rep++) {
				kpb_prepare(n, off);
				kpb_tick_align();
				t0 = ktime_get_ns();
				r = kpb_register_one_by_one(n, tag);
				t1 = ktime_get_ns();
				if (r)
					return;
				kpb_tick_align();
				t1b = ktime_get_ns();
				for (int i = 0; i < n; i++)
					unregister_kprobe(&kpb_kps[i]);
				t2 = ktime_get_ns();
				kpb_rep_times(d, rep, t0, t1, t1b, t2);
			}
			one_ns = kpb_reg_results(tag, "one", n, d, reps);
		}

		snprintf(row, sizeof(row), "regunreg_%s_batch_%d", tag, n);
		if (k == ARRAY_SIZE(kpb_reg_ns) && !kpb_all_fits(row, n, batch_ns))
			break;
		for (rep = 0; rep < reps; rep++) {
			kpb_prepare(n, off);
			kpb_tick_align();
			t0 = ktime_get_ns();
			r = register_kprobes(kpb_kpp, n);
			t1 = ktime_get_ns();
			if (r) {
				kpb_err("%s: register_kprobes(%d): %d", tag, n, r);
				return;
			}
			kpb_tick_align();
			t1b = ktime_get_ns();
			unregister_kprobes(kpb_kpp, n);
			t2 = ktime_get_ns();
			kpb_rep_times(d, rep, t0, t1, t1b, t2);
		}
		batch_ns = kpb_reg_results(tag, "batch", n, d, reps);
	}
}

/*
 * The floor of the batch rows: fprobe (CONFIG_FPROBE) on the same kernel
 * attaches the same entry set with one ftrace_set_filter_ips() and
 * register_ftrace_function(), without the kprobes core: rows
 * reg_fprobe_batch_N (register_fprobe_ips()) and unreg_fprobe_batch_N
 * (unregister_fprobe()).  Without CONFIG_FPROBE there are no such rows.
 */
/* 7.3's fprobe runs on fgraph and passes ftrace_regs, 6.12's pt_regs. */
#if KPB_TREE_7_3
static int kpb_fprobe_entry(struct fprobe *fp, unsigned long entry_ip, unsigned long ret_ip,
			    struct ftrace_regs *fregs, void *entry_data)
#else
static int kpb_fprobe_entry(struct fprobe *fp, unsigned long entry_ip, unsigned long ret_ip,
			    struct pt_regs *regs, void *entry_data)
#endif
{
	return 0;
}

static void kpb_fprobe_rows(void)
{
	static struct fprobe fp;
	unsigned long *addrs;
	u64 t0, t1, t1b, t2, d[3][KPB_REPS];
	int k, n, i, r, rep, reps;

	if (!IS_ENABLED(CONFIG_FPROBE))
		return;
	addrs = vmalloc(array_size(KPB_NFUNCS, sizeof(*addrs)));
	if (!addrs) {
		kpb_err("fprobe: no memory");
		return;
	}
	for (k = 0; k <= ARRAY_SIZE(kpb_reg_ns); k++) {
		n = k < ARRAY_SIZE(kpb_reg_ns) ? kpb_reg_ns[k] : kpb_reg_all();
		if (!n || (n > maxn && k < ARRAY_SIZE(kpb_reg_ns)) || n > KPB_NFUNCS)
			break;
		for (i = 0; i < n; i++)
			addrs[i] = (unsigned long)kpb_func(i);
		reps = n <= KPB_REP_MAXN ? KPB_REPS : 1;
		for (rep = 0; rep < reps; rep++) {
			memset(&fp, 0, sizeof(fp));
			fp.entry_handler = kpb_fprobe_entry;
			kpb_tick_align();
			t0 = ktime_get_ns();
			r = register_fprobe_ips(&fp, addrs, n);
			t1 = ktime_get_ns();
			if (r) {
				kpb_err("fprobe: register_fprobe_ips(%d): %d", n, r);
				goto out;
			}
			kpb_tick_align();
			t1b = ktime_get_ns();
			r = unregister_fprobe(&fp);
			t2 = ktime_get_ns();
			if (r) {
				kpb_err("fprobe: unregister_fprobe(%d): %d", n, r);
				goto out;
			}
			kpb_rep_times(d, rep, t0, t1, t1b, t2);
		}
		kpb_reg_results("fprobe", "batch", n, d, reps);
	}
out:
	vfree(addrs);
}

/* ---- hit cost at scale ----------------------------------------------------- */
/*
 * The scale rows: the hit cost of one probe with N other probes registered.
 * The measured probe (on a kpb_t_* function of this module, as in the hit
 * rows) is registered first, so that upstream's hash buckets, which prepend,
 * put it behind every filler of its bucket; then kpb_scale_report() adds
 * filler kprobes at +9 of kpb_fn_0 .. kpb_fn_{N-1} (never the measured
 * probe's function) up to N = 0, 64, 640 and maxn, measures at each N as the
 * hit rows do, and unregisters the fillers in one batch.  The fillers are
 * registered in the row's optimizer state: off (int3 probes) except in the
 * optimized row, where it waits until they are all jump-optimized too, so
 * that the optimizer is idle while it measures.
 */
#define KPB_UPSTREAM_HASH_BITS 6	/* KPROBE_HASH_BITS of kernel/kprobes.c */

/*
 * The last step of a scale row (run token `scaleall`): N = every probeable
 * function of the kernel.  To the maxn fillers in the generated modules it
 * adds a kprobe at +0 of every text symbol of vmlinux (/proc/kallsyms as
 * the guest job copied it, `t` and `T` without a module, one per address)
 * that register_kprobe()
 * accepts, registered one by one and disabled: a probe on every function
 * of the running kernel would trap in everything the measurement does,
 * and a disabled probe is registered (hashed, indexed) like any other, so
 * get_kprobe() searches past it the same.  The accepted count is the N of
 * the row (the same on both kernels if they accept the same addresses:
 * report.py fails on rows only one log has).
 */
/* the guest job's copy of /proc/kallsyms (a seq_file: no kernel_read()) */
#define KPB_KALLSYMS "/tmp/kpb.kallsyms"
static unsigned long *kpb_vm_addr;	/* vmlinux text symbols, ascending */
static int kpb_vm_nr;
static struct kprobe *kpb_vm_kps;
static struct kprobe **kpb_vm_kpp;

static int kpb_vm_symbols(void)
{
	struct file *f;
	char *buf, *line, *nl;
	unsigned long a, last = 0;
	size_t have = 0;
	int cap = 1 << 16, r = 0;
	loff_t pos = 0;
	ssize_t got;
	char type;

	if (kpb_vm_addr)
		return 0;
	buf = kvmalloc(8192, GFP_KERNEL);
	kpb_vm_addr = vmalloc(array_size(cap, sizeof(*kpb_vm_addr)));
	f = filp_open(KPB_KALLSYMS, O_RDONLY, 0);
	if (!buf || !kpb_vm_addr || IS_ERR(f)) {
		r = IS_ERR(f) ? PTR_ERR(f) : -ENOMEM;
		goto out;
	}
	while ((got = kernel_read(f, buf + have, 8191 - have, &pos)) > 0) {
		have += got;
		buf[have] = 0;
		for (line = buf; (nl = strchr(line, '\n')); line = nl + 1) {
			*nl = 0;
			/* "ffffffff81000000 T _stext", modules add "\t[mod]" */
			if (sscanf(line, "%lx %c", &a, &type) != 2 || strchr(line, '['))
				continue;
			if ((type != 't' && type != 'T') || !a || a == last)
				continue;
			if (kpb_vm_nr == cap) {
				r = -E2BIG;
				goto out;
			}
			kpb_vm_addr[kpb_vm_nr++] = last = a;
		}
		have = buf + have - line;
		memmove(buf, line, have);
	}
	if (got < 0)
		r = got;
	else if (!kpb_vm_nr || !last)
		r = -ENOENT;	/* no addresses: kptr_restrict? */
out:
	if (!IS_ERR_OR_NULL(f))
		filp_close(f, NULL);
	kvfree(buf);
	if (r) {
		kpb_err("reading %s: %d (%d symbols)", KPB_KALLSYMS, r, kpb_vm_nr);
		vfree(kpb_vm_addr);
		kpb_vm_addr = NULL;
		kpb_vm_nr = 0;
	}
	return r;
}

/* Registers the vmlinux fillers; the number accepted, or -errno. */
static int kpb_vm_fill(const char *name)
{
	int i, r, n = 0, einval = 0, other = 0, last_err = 0;

	if (kpb_vm_symbols())
		return -ENOENT;
	kpb_vm_kps = vzalloc(array_size(kpb_vm_nr, sizeof(*kpb_vm_kps)));
	kpb_vm_kpp = vmalloc(array_size(kpb_vm_nr, sizeof(*kpb_vm_kpp)));
	if (!kpb_vm_kps || !kpb_vm_kpp) {
		kpb_err("%s: no memory for %d vmlinux fillers", name, kpb_vm_nr);
		return -ENOMEM;
	}
	for (i = 0; i < kpb_vm_nr; i++) {
		struct kprobe *kp = &kpb_vm_kps[n];

		kpb_kp_init(kp, (void *)kpb_vm_addr[i], false);
		kp->flags = KPROBE_FLAG_DISABLED;
		r = register_kprobe(kp);
		if (!r)
			kpb_vm_kpp[n++] = kp;
		else if (r == -EINVAL)
			einval++;
		else
			other++, last_err = r;
		cond_resched();
	}
	kpb_line("KPB-INFO %s vmlinux text symbols=%d registered=%d refused: EINVAL=%d other=%d (last %d)",
		 name, kpb_vm_nr, n, einval, other, last_err);
	return n;
}

static void kpb_vm_unfill(int n)
{
	if (n > 0)
		unregister_kprobes(kpb_vm_kpp, n);
	vfree(kpb_vm_kps);
	vfree(kpb_vm_kpp);
	kpb_vm_kps = NULL;
	kpb_vm_kpp = NULL;
}

static int kpb_scale_fill(const char *name, int have, int n)
{
	int i, r, w;

	r = register_kprobes(kpb_kpp + have, n - have);
	if (r) {
		kpb_err("%s: register_kprobes of fillers %d..%d: %d", name, have, n - 1, r);
		return r;
	}
	if (!kpb_optimizing)
		return 0;
	/* the optimizer works in rounds of up to 256 probes */
	for (w = 0; w < 1000; w++) {
		for (i = 0; i < n; i++)
			if (!kpb_is_jump(kpb_kps[i].addr))
				break;
		if (i == n)
			return 0;
		msleep(20);
	}
	kpb_err("%s: filler #%d (%pS) not optimized", name, i, kpb_kps[i].addr);
	unregister_kprobes(kpb_kpp + have, n - have);
	return -ETIMEDOUT;
}

static void kpb_scale_report(const char *name, int (*fn)(int), void *addr,
			     u64 base, int expect_per_call)
{
	int max = min(maxn, KPB_NFUNCS), ns[] = { 0, 64, 640, max };
	u32 bucket = hash_ptr(addr, KPB_UPSTREAM_HASH_BITS);
	bool jump = kpb_is_jump(addr);
	int k, i, n, ahead, have = 0;
	char row[48];
	u64 t0, t1;

	kpb_prepare(max, KPB_MID_OFF);
	for (k = 0; k < ARRAY_SIZE(ns); k++) {
		n = ns[k];
		if (n > max || (n == have && k))
			continue;	/* a small maxn: the sizes above it are left out */
		t0 = ktime_get_ns();
		if (n > have && kpb_scale_fill(name, have, n))
			break;
		t1 = ktime_get_ns();
		have = n;
		/* a filler at +9 of another function must not change how ours is armed */
		if (kpb_is_jump(addr) != jump) {
			kpb_err("%s_%d: the measured probe at %pS is %s now", name, n, addr,
				jump ? "no longer optimized" : "optimized");
			break;
		}
		for (i = 0, ahead = 0; i < n; i++)
			ahead += hash_ptr(kpb_kps[i].addr, KPB_UPSTREAM_HASH_BITS) == bucket;
		snprintf(row, sizeof(row), "%s_%d", name, n);
		/* ahead: fillers in front of ours in its bucket of upstream's hash */
		kpb_line("KPB-INFO %s fillers=%d fill_ns=%llu ahead=%d text=%s",
			 row, n, t1 - t0, ahead, jump ? "jmp" : "int3/ftrace");
		kpb_hit_report(row, fn, base, expect_per_call);
	}
	if (kpb_want("scaleall") && have == max) {
		int vm;

		t0 = ktime_get_ns();
		vm = kpb_vm_fill(name);
		t1 = ktime_get_ns();
		if (vm >= 0) {
			n = max + vm;
			for (i = 0, ahead = 0; i < vm; i++)
				ahead += hash_ptr(kpb_vm_kpp[i]->addr, KPB_UPSTREAM_HASH_BITS) == bucket;
			snprintf(row, sizeof(row), "%s_%d", name, n);
			kpb_line("KPB-INFO %s fillers=%d (%d generated, %d vmlinux, disabled) fill_ns=%llu ahead=+%d text=%s",
				 row, n, max, vm, t1 - t0, ahead, jump ? "jmp" : "int3/ftrace");
			if (kpb_is_jump(addr) != jump)
				kpb_err("%s: the measured probe at %pS changed", row, addr);
			else
				kpb_hit_report(row, fn, base, expect_per_call);
		}
		kpb_vm_unfill(vm);
	}
	unregister_kprobes(kpb_kpp, have);
}

static void kpb_scale_all(void)
{
	/* entry and int3 rows: fillers and the int3 probe unoptimized */
	kpb_set_optimization(0);
	kpb_hit_kprobe("scale_entry_ftrace", kpb_t_entry, 0, false, kpb_scale_report);
	kpb_hit_kprobe("scale_int3_boosted", kpb_t_mid, KPB_MID_OFF, false, kpb_scale_report);
	kpb_set_optimization(1);
	kpb_hit_optimized("scale_optimized", kpb_scale_report);
	/*
	 * Wait for the optimizer to unoptimize and free the optimized fillers
	 * (unoptimize_all_kprobes() waits for it), as after the memory rows.
	 */
	kpb_set_optimization(0);
	kpb_hit_kretprobe("scale_kretprobe", kpb_scale_report);
	kpb_set_optimization(1);
}

/* ---- RCU grace periods -------------------------------------------------- */
/*
 * The floor of unregistering one by one: each unregister_kprobe() waits for
 * a grace period.  Guest ns of one synchronize_rcu() and of one
 * synchronize_rcu_expedited(), averaged over KPB_GP_N calls (informational
 * rows, the same kernel code on both variants).
 */
#define KPB_GP_N 50

static void kpb_gp_rows(void)
{
	u64 t0, t1;
	int i;

	t0 = ktime_get_ns();
	for (i = 0; i < KPB_GP_N; i++)
		synchronize_rcu();
	t1 = ktime_get_ns();
	kpb_result("gp_synchronize_rcu", "ns", div_u64((t1 - t0) * 100, KPB_GP_N));
	t0 = ktime_get_ns();
	for (i = 0; i < KPB_GP_N; i++)
		synchronize_rcu_expedited();
	t1 = ktime_get_ns();
	kpb_result("gp_synchronize_rcu_expedited", "ns", div_u64((t1 - t0) * 100, KPB_GP_N));
}

/* ---- the grace periods' cost on the other CPUs (run token cost4) -------- */
/*
 * What waiting for grace periods in unregister_kprobe() costs the rest of
 * the system, under the RCU policy the guest job set (the job suffixes the
 * rows with it): KPB_COST_N disabled kprobes at +9 of the generated
 * functions are unregistered one by one from CPU 0 while every other online
 * CPU runs a kthread that calls a function with an enabled kprobe in a loop
 * (the hit loop).  Disabled probes: unregistering them patches no text, so
 * the only cross-CPU work is the grace period's.  Rows:
 *   cost4_unreg_one_N        guest ns of the N unregistrations
 *   cost4_call_ipis_per_unreg  function-call IPIs (x86 irq_call_count: what
 *                            an expedited grace period sends; /proc/interrupts
 *                            "CAL") received by all CPUs, per unregistration
 *   cost4_resched_ipis_per_unreg  rescheduling IPIs ("RES"), the same way
 *   cost4_hitloop_slowdown_pct  how much slower the hit loops ran during the
 *                            unregistrations than during a baseline window
 *                            before them (iterations per guest ns, summed
 *                            over the loop CPUs), in percent
 * Each loop reports a quiescent state every KPB_COST_QS calls (below).
 * Under -icount the vCPUs share one instruction clock (each advances it
 * while it runs), so a CPU that idles gives its share to the others.  To
 * keep the shares fixed, CPU 0 also runs a nice-19 spinner that takes the
 * CPU whenever the unregistering task sleeps (in a normal grace period),
 * and the baseline window has the spinner alone on CPU 0.
 */
#define KPB_COST_N 1000
#define KPB_COST_QS 100
#define KPB_COST_BASE_MS 200

static unsigned long kpb_cost_iters[NR_CPUS];
static struct kprobe kpb_cost_kp;

static int kpb_cost_loop(void *arg)
{
	unsigned long *n = arg;
	int (*fn)(int) = kpb_func(KPB_NFUNCS - 1);

	while (!kthread_should_stop()) {
		kpb_sink += fn(kpb_sink);
		WRITE_ONCE(*n, *n + 1);
		/*
		 * A quiescent state every KPB_COST_QS calls, as a task that
		 * returns to user space between its system calls would have
		 * (__schedule() reports one even when it picks the same task):
		 * without it, a grace period waits until RCU forces the loop
		 * out (~190 ms of guest time each, measured).
		 */
		if (!(*n % KPB_COST_QS))
			schedule();
	}
	return 0;
}

/* CPU 0's filler: runs whenever the unregistering task sleeps. */
static int kpb_cost_spin(void *arg)
{
	while (!kthread_should_stop())
		schedule();	/* a quiescent state each time, as the loops */
	return 0;
}

static unsigned long kpb_cost_sum(void)
{
	unsigned long sum = 0;
	int cpu;

	for_each_online_cpu(cpu)
		sum += READ_ONCE(kpb_cost_iters[cpu]);
	return sum;
}

/* The IPIs received so far, all CPUs; false where they are not counted. */
#ifdef CONFIG_X86
static bool kpb_cost_ipis(u64 *call, u64 *resched)
{
	int cpu;

	*call = *resched = 0;
	for_each_online_cpu(cpu) {
#if KPB_TREE_7_3
		/* 7.3's irq_stat is an array of counts, 6.12's has named fields. */
		*call += READ_ONCE(per_cpu(irq_stat, cpu).counts[IRQ_COUNT_CALL_FUNCTION]);
		*resched += READ_ONCE(per_cpu(irq_stat, cpu).counts[IRQ_COUNT_RESCHEDULE]);
#else
		*call += READ_ONCE(per_cpu(irq_stat, cpu).irq_call_count);
		*resched += READ_ONCE(per_cpu(irq_stat, cpu).irq_resched_count);
#endif
	}
	return true;
}
#else
static bool kpb_cost_ipis(u64 *call, u64 *resched)
{
	*call = *resched = 0;
	return false;
}
#endif

static void kpb_cost_rows(void)
{
	struct task_struct *tasks[NR_CPUS] = {}, *spin;
	u64 t0, t1, t2, c0, c1, r0, r1;
	unsigned long i0, i1, i2;
	bool unregistered = false, counted;
	int cpu, i, r;

	if (num_online_cpus() < 2 || !cpu_online(0)) {
		kpb_line("KPB-SKIP cost4 needs CPU 0 and another CPU online (%u online)",
			 num_online_cpus());
		return;
	}
	r = set_cpus_allowed_ptr(current, cpumask_of(0));
	if (r) {
		kpb_err("cost4: moving to CPU 0: %d", r);
		return;
	}
	kpb_kp_init(&kpb_cost_kp, (void *)kpb_func(KPB_NFUNCS - 1) + KPB_MID_OFF, false);
	r = register_kprobe(&kpb_cost_kp);
	if (r) {
		kpb_err("cost4: the hit loop's kprobe: %d", r);
		goto out_cpu;
	}
	kpb_prepare(KPB_COST_N, KPB_MID_OFF);
	for (i = 0; i < KPB_COST_N; i++)
		kpb_kps[i].flags = KPROBE_FLAG_DISABLED;
	r = register_kprobes(kpb_kpp, KPB_COST_N);
	if (r) {
		kpb_err("cost4: register_kprobes(%d): %d", KPB_COST_N, r);
		goto out_kp;
	}
	memset(kpb_cost_iters, 0, sizeof(kpb_cost_iters));
	for_each_online_cpu(cpu) {
		if (cpu == 0)
			continue;
		tasks[cpu] = kthread_create_on_cpu(kpb_cost_loop, &kpb_cost_iters[cpu], cpu,
						   "kpb_loop/%u");
		if (IS_ERR(tasks[cpu])) {
			kpb_err("cost4: hit loop thread on CPU %d: %ld", cpu, PTR_ERR(tasks[cpu]));
			tasks[cpu] = NULL;
			goto out_threads;
		}
		wake_up_process(tasks[cpu]);
	}
	spin = kthread_create_on_cpu(kpb_cost_spin, NULL, 0, "kpb_spin/%u");
	if (IS_ERR(spin)) {
		kpb_err("cost4: spinner thread: %ld", PTR_ERR(spin));
		goto out_threads;
	}
	sched_set_normal(spin, MAX_NICE);
	wake_up_process(spin);

	msleep(20);	/* the loops run */
	t0 = ktime_get_ns();
	i0 = kpb_cost_sum();
	msleep(KPB_COST_BASE_MS);
	t1 = ktime_get_ns();
	i1 = kpb_cost_sum();
	kpb_cost_ipis(&c0, &r0);
	for (i = 0; i < KPB_COST_N; i++)
		unregister_kprobe(&kpb_kps[i]);
	unregistered = true;
	t2 = ktime_get_ns();
	i2 = kpb_cost_sum();
	counted = kpb_cost_ipis(&c1, &r1);
	kthread_stop(spin);

	kpb_result("cost4_unreg_one_" __stringify(KPB_COST_N), "ns", (t2 - t1) * 100);
	if (counted) {
		kpb_result("cost4_call_ipis_per_unreg", "IPIs", div_u64((c1 - c0) * 100, KPB_COST_N));
		kpb_result("cost4_resched_ipis_per_unreg", "IPIs", div_u64((r1 - r0) * 100, KPB_COST_N));
	} else {
		kpb_line("KPB-INFO cost4: IPIs are counted on x86 only");
	}
	if (i1 > i0 && t1 > t0 && t2 > t1) {
		/* rates in iterations per guest second; the row in hundredths of a percent */
		u64 base = div64_u64((u64)(i1 - i0) * 1000000000ULL, t1 - t0);
		u64 during = div64_u64((u64)(i2 - i1) * 1000000000ULL, t2 - t1);

		kpb_line("KPB-INFO cost4 loops on %u CPUs: baseline %lu iterations in %llu ns, during the unregistrations %lu in %llu ns",
			 num_online_cpus() - 1, i1 - i0, t1 - t0, i2 - i1, t2 - t1);
		kpb_result("cost4_hitloop_slowdown_pct", "%",
			   div64_s64(((s64)base - (s64)during) * 10000, base));
	} else {
		kpb_err("cost4: the hit loops did not run (%lu, %lu iterations)", i1 - i0, i2 - i1);
	}
out_threads:
	for_each_online_cpu(cpu)
		if (tasks[cpu])
			kthread_stop(tasks[cpu]);
	if (!unregistered)
		unregister_kprobes(kpb_kpp, KPB_COST_N);
out_kp:
	unregister_kprobe(&kpb_cost_kp);
out_cpu:
	set_cpus_allowed_ptr(current, cpu_possible_mask);
}

/* ---- enable/disable ------------------------------------------------------ */
/*
 * disable_kprobe() and enable_kprobe() of one registered probe at +9 of a
 * target function (an int3 probe, optimizer off, as kprobe_events' enable
 * and disable write do per probe): guest instructions per call, averaged
 * over KPB_ENDIS_N pairs.  Also with a second probe at the same address
 * (the aggregate path).
 */
#define KPB_ENDIS_N 2000

static void kpb_endis_rows(void)
{
	struct kprobe kp1, kp2;
	u64 t0, t1, dis = 0, en = 0;
	const char *tag;
	int i, r, round;

	kpb_set_optimization(0);
	for (round = 0; round < 2; round++) {
		tag = round ? "aggr2" : "int3";
		kpb_kp_init(&kp1, (void *)kpb_func(0) + KPB_MID_OFF, false);
		kpb_kp_init(&kp2, (void *)kpb_func(0) + KPB_MID_OFF, false);
		r = register_kprobe(&kp1);
		if (!r && round)
			r = register_kprobe(&kp2);
		if (r) {
			kpb_err("endis %s: register_kprobe: %d", tag, r);
			break;
		}
		dis = en = 0;
		for (i = 0; i < KPB_ENDIS_N && !r; i++) {
			t0 = ktime_get_ns();
			r = disable_kprobe(&kp1);
			t1 = ktime_get_ns();
			dis += t1 - t0;
			if (r)
				break;
			t0 = ktime_get_ns();
			r = enable_kprobe(&kp1);
			t1 = ktime_get_ns();
			en += t1 - t0;
		}
		if (r)
			kpb_err("endis %s: %d", tag, r);
		if (round)
			unregister_kprobe(&kp2);
		unregister_kprobe(&kp1);
		if (r)
			break;
		{
			char name[48];

			snprintf(name, sizeof(name), "disable_kprobe_%s", tag);
			kpb_result(name, "ins/call", div_u64(dis * 100, KPB_ENDIS_N));
			snprintf(name, sizeof(name), "enable_kprobe_%s", tag);
			kpb_result(name, "ins/call", div_u64(en * 100, KPB_ENDIS_N));
		}
	}
	kpb_set_optimization(1);
}

/* ---- memory ------------------------------------------------------------ */
struct kpb_mem {
	long slab, vmalloc, free;	/* pages */
};

/*
 * VmallocUsed of /proc/meminfo, in pages (vmalloc_nr_pages() is not
 * exported): the index's tables beyond two pages are vmalloc()ed on the
 * Rust core, and the instruction-slot pages are vmalloc()ed on both.
 */
static long kpb_vmalloc_pages(void)
{
	struct file *f = filp_open("/proc/meminfo", O_RDONLY, 0);
	static char buf[4096];
	loff_t pos = 0;
	ssize_t got;
	char *v;
	long kb;

	if (IS_ERR(f)) {
		kpb_err("/proc/meminfo: %ld", PTR_ERR(f));
		return 0;
	}
	got = kernel_read(f, buf, sizeof(buf) - 1, &pos);
	filp_close(f, NULL);
	buf[got > 0 ? got : 0] = 0;
	v = strstr(buf, "VmallocUsed:");
	if (!v || sscanf(v, "VmallocUsed: %ld kB", &kb) != 1) {
		kpb_err("/proc/meminfo: no VmallocUsed (read %zd)", got);
		return 0;
	}
	return kb / (PAGE_SIZE / 1024);
}

/*
 * kvfree_rcu_barrier(): 6.12 exports it; 7.3 does not, but destroying a
 * cache runs kvfree_rcu_barrier_on_cache(), which waits for every
 * kfree_rcu() batch in flight (rcu sheaves only of that cache, which is
 * empty here).
 */
static void kpb_kvfree_rcu_barrier(void)
{
#if KPB_TREE_7_3
	struct kmem_cache *c = kmem_cache_create("kpb_barrier", 8, 0, 0, NULL);

	if (c)
		kmem_cache_destroy(c);
	else
		kpb_err("kvfree_rcu barrier: no cache");
#else
	kvfree_rcu_barrier();
#endif
}

static void kpb_mem_snap(struct kpb_mem *m)
{
	int r;

	/*
	 * Let pending RCU frees of earlier steps land (call_rcu() callbacks,
	 * then kfree_rcu()'s batches, which rcu_barrier() does not wait for),
	 * then fold the per-cpu counters.
	 */
	rcu_barrier();
	kpb_kvfree_rcu_barrier();
	r = kpb_write_file("/proc/sys/vm/stat_refresh", "1\n");

	if (r)
		kpb_err("vm.stat_refresh: %d", r);
	m->slab = global_node_page_state_pages(NR_SLAB_UNRECLAIMABLE_B) +
		  global_node_page_state_pages(NR_SLAB_RECLAIMABLE_B);
	m->vmalloc = kpb_vmalloc_pages();
	m->free = global_zone_page_state(NR_FREE_PAGES);
}

/*
 * Slab (kmalloc() of any size) and vmalloc bytes per probe.  The free-page
 * difference (everything allocated) is only logged: pages freed earlier to
 * per-cpu lists make it noisy.
 */
static void kpb_mem_report(const char *name, struct kpb_mem *a, struct kpb_mem *b, int n)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "mem_%s_slab_vmalloc", name);
	kpb_result(buf, "B/probe", div_s64((s64)(b->slab - a->slab + b->vmalloc - a->vmalloc) *
					    PAGE_SIZE * 100, n));
	kpb_line("KPB-INFO mem_%s slab pages %ld -> %ld, vmalloc pages %ld -> %ld", name,
		 a->slab, b->slab, a->vmalloc, b->vmalloc);
	kpb_line("KPB-INFO mem_%s free pages %ld -> %ld (%ld B/probe, noisy)", name,
		 a->free, b->free, (a->free - b->free) * (long)PAGE_SIZE / n);
}

/*
 * A second kprobe on each of the n addresses the first n probes hold: the
 * core links it into an aggregate (creating one unless the address already
 * has it, as an optimizable int3 probe does).
 */
static void kpb_mem_second(const char *name, int n)
{
	struct kprobe *second = vzalloc(array_size(n, sizeof(*second)));
	struct kpb_mem a, b;
	int i, r = 0;

	if (!second) {
		kpb_err("mem %s: no memory", name);
		return;
	}
	for (i = 0; i < n; i++)
		kpb_kp_init(&second[i], kpb_kps[i].addr, false);
	kpb_mem_snap(&a);
	for (i = 0; i < n; i++) {
		r = register_kprobe(&second[i]);
		if (r) {
			kpb_err("mem %s: register_kprobe #%d: %d", name, i, r);
			break;
		}
	}
	kpb_mem_snap(&b);
	if (!r)
		kpb_mem_report(name, &a, &b, n);
	while (--i >= 0)
		unregister_kprobe(&second[i]);
	vfree(second);
}

static void kpb_mem(void)
{
	struct kretprobe *krps;
	struct kpb_mem a, b;
	int n = min(memn, KPB_NFUNCS), i, r = 0, w;

	kpb_set_optimization(0);

	/* mid-function int3 kprobes, optimizer off */
	kpb_prepare(n, KPB_MID_OFF);
	kpb_mem_snap(&a);
	r = register_kprobes(kpb_kpp, n);
	kpb_mem_snap(&b);
	if (r) {
		kpb_err("mem kprobe_int3: register_kprobes: %d", r);
	} else {
		kpb_mem_report("kprobe_int3", &a, &b, n);
		kpb_mem_second("aggr_second_int3", n);
		unregister_kprobes(kpb_kpp, n);
	}

	/* function-entry (ftrace) kprobes */
	kpb_prepare(n, 0);
	kpb_mem_snap(&a);
	r = register_kprobes(kpb_kpp, n);
	kpb_mem_snap(&b);
	if (r) {
		kpb_err("mem kprobe_ftrace: register_kprobes: %d", r);
	} else {
		kpb_mem_report("kprobe_ftrace", &a, &b, n);
		kpb_mem_second("aggr_second_ftrace", n);
		unregister_kprobes(kpb_kpp, n);
	}

	/* jump-optimized kprobes (optimizer on, wait until it is done) */
	kpb_set_optimization(1);
	kpb_prepare(n, KPB_MID_OFF);
	kpb_mem_snap(&a);
	r = IS_ENABLED(CONFIG_OPTPROBES) ? register_kprobes(kpb_kpp, n) : -EOPNOTSUPP;
	if (r == -EOPNOTSUPP) {
		kpb_line("KPB-SKIP mem_kprobe_optimized no jump optimizer (!CONFIG_OPTPROBES)");
	} else if (r) {
		kpb_err("mem kprobe_optimized: register_kprobes: %d", r);
	} else {
		/* the optimizer works in rounds of up to 256 probes */
		for (w = 0; w < 1000; w++) {
			for (i = 0; i < n; i++)
				if (!kpb_is_jump(kpb_kps[i].addr))
					break;
			if (i == n)
				break;
			msleep(20);
		}
		kpb_mem_snap(&b);
		if (i < n)
			kpb_err("mem kprobe_optimized: probe #%d (%pS) not optimized", i, kpb_kps[i].addr);
		else
			kpb_mem_report("kprobe_optimized", &a, &b, n);
		unregister_kprobes(kpb_kpp, n);
	}
	/*
	 * The unregistered optimized probes are unoptimized and freed later by
	 * the optimizer (with a grace period per ~26 freed optinsn slots).  A
	 * fixed sleep let that overlap the next row's window on the slower
	 * kernel, which then counted the frees against the kretprobes.
	 * Writing debug.kprobes-optimization=0 waits for the optimizer
	 * (unoptimize_all_kprobes() -> wait_for_kprobe_optimizer()), and the
	 * next snapshot's rcu_barrier() for the RCU frees.
	 */
	kpb_set_optimization(0);

	/* kretprobes, maxactive 16, at function entry */
	krps = vzalloc(array_size(n, sizeof(*krps)));
	if (!krps)
		return;
	kpb_mem_snap(&a);
	for (i = 0; i < n; i++) {
		kpb_krp_init(&krps[i], kpb_func(i), 16);
		r = register_kretprobe(&krps[i]);
		if (r) {
			kpb_err("mem kretprobe: register_kretprobe #%d: %d", i, r);
			break;
		}
	}
	kpb_mem_snap(&b);
	if (!r)
		kpb_mem_report("kretprobe_maxactive16", &a, &b, n);
	while (--i >= 0)
		unregister_kretprobe(&krps[i]);
	vfree(krps);
}

/* ---- debugfs ----------------------------------------------------------- */
static struct dentry *kpb_dir;

/*
 * The time is taken at the first read of an open file and kept in its
 * private_data: the shell's `read` builtin reads one byte per read(), so
 * a time taken at each call would give digits of different instants (a
 * carry between two of them made the value off by a power of ten, or
 * negative for a read pair).
 */
static ssize_t kpb_now_read(struct file *f, char __user *ubuf, size_t len, loff_t *ppos)
{
	char buf[32];
	int n;

	if (*ppos == 0)
		f->private_data = (void *)(uintptr_t)ktime_get_ns();
	n = scnprintf(buf, sizeof(buf), "%llu\n", (u64)(uintptr_t)f->private_data);
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static const struct file_operations kpb_now_fops = {
	.owner = THIS_MODULE,
	.read = kpb_now_read,
	.llseek = default_llseek,
};

/*
 * The tick file: a read() waits for the next tick (kpb_tick_align()) and
 * returns end of file, so that the shell's kprobe_events phases start at
 * the same point of the tick on both kernels, as the module's own
 * registration phases do.
 */
static ssize_t kpb_tick_read(struct file *f, char __user *ubuf, size_t len, loff_t *ppos)
{
	kpb_tick_align();
	return 0;
}

static const struct file_operations kpb_tick_fops = {
	.owner = THIS_MODULE,
	.read = kpb_tick_read,
	.llseek = noop_llseek,
};

static ssize_t kpb_results_read(struct file *f, char __user *ubuf, size_t len, loff_t *ppos)
{
	return simple_read_from_buffer(ubuf, len, ppos, kpb_out, kpb_len);
}

static const struct file_operations kpb_results_fops = {
	.owner = THIS_MODULE,
	.read = kpb_results_read,
	.llseek = default_llseek,
};

static bool kpb_want(const char *what)
{
	const char *p = run;
	size_t l = strlen(what);

	while ((p = strstr(p, what))) {
		if ((p == run || p[-1] == ',') && (p[l] == ',' || !p[l]))
			return true;
		p += l;
	}
	return false;
}

static int __init kpb_init(void)
{
	u64 t0 = ktime_get_ns();

	kpb_out = kvzalloc(KPB_OUT_SZ, GFP_KERNEL);
	kpb_kps = vzalloc(array_size(KPB_NFUNCS, sizeof(*kpb_kps)));
	kpb_kpp = vzalloc(array_size(KPB_NFUNCS, sizeof(*kpb_kpp)));
	if (!kpb_out || !kpb_kps || !kpb_kpp) {
		kvfree(kpb_out);
		vfree(kpb_kps);
		vfree(kpb_kpp);
		return -ENOMEM;
	}
	kpb_dir = debugfs_create_dir("kprobes_bench", NULL);
	debugfs_create_file("now", 0444, kpb_dir, NULL, &kpb_now_fops);
	debugfs_create_file("tick", 0444, kpb_dir, NULL, &kpb_tick_fops);
	debugfs_create_file("results", 0444, kpb_dir, NULL, &kpb_results_fops);

	kpb_line("KPB-INFO run=%s iters=%d maxn=%d memn=%d nfuncs=%d",
		 run, iters, maxn, memn, KPB_NFUNCS);
	if (kpb_init_mid_off())
		goto out;
	kpb_line("KPB-INFO mid probe point +%u", kpb_mid_off);
	if (kpb_want("hits"))
		kpb_hit_all();
	/*
	 * The int3 registration rows before the scale rows: a registration
	 * that finds no clean instruction slot waits for a grace period to
	 * collect the garbage ones, so these rows depend on the slot caches'
	 * state, which the scale rows at N=all can leave different on each
	 * kernel (they probe every vmlinux function, and the two vmlinux
	 * differ).  Here both kernels start them from the same state.
	 */
	if (kpb_want("reg")) {
		kpb_set_optimization(0);
		kpb_reg_rows("int3", KPB_MID_OFF, true);
		kpb_set_optimization(1);
	}
	if (kpb_want("scale"))
		kpb_scale_all();
	if (kpb_want("gp"))
		kpb_gp_rows();
	if (kpb_want("endis"))
		kpb_endis_rows();
	if (kpb_want("regentry"))
		kpb_reg_rows("ftrace", 0, true);
	/* The batch rows of regentry alone (one-by-one: ~80 s of guest time). */
	if (kpb_want("regbatch"))
		kpb_reg_rows("ftrace", 0, false);
	if (kpb_want("regentry") || kpb_want("regbatch"))
		kpb_fprobe_rows();
	if (kpb_want("mem"))
		kpb_mem();
	if (kpb_want("cost4"))
		kpb_cost_rows();
	kpb_set_optimization(1);
out:
	kpb_line("KPB-INFO done errors=%d in %llu ns", kpb_errors, ktime_get_ns() - t0);
	return 0;
}

static void __exit kpb_exit(void)
{
	debugfs_remove_recursive(kpb_dir);
	kvfree(kpb_out);
	vfree(kpb_kps);
	vfree(kpb_kpp);
}

module_init(kpb_init);
module_exit(kpb_exit);
MODULE_DESCRIPTION("A/B benchmark of the kprobes core");
MODULE_LICENSE("GPL");
