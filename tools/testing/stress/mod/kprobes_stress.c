// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_stress.ko: the in-guest stress driver (tools/testing/stress/).
 *
 * `echo setup > /sys/kernel/debug/kprobes_stress/ctl` registers the stable
 * probes, one of each kind, on this module's functions:
 *   entry   a kprobe at a function's entry (ftrace-based with
 *           KPROBES_ON_FTRACE),
 *   boost   a kprobe without post_handler in a function too short for the
 *           jump optimizer (int3, boosted),
 *   post    a kprobe with a post_handler (int3, single-stepped),
 *   opt     a kprobe without post_handler mid-function (jump-optimized),
 *   ret     a kretprobe with maxactive 2 on a function that sleeps (called
 *           by four threads: instances run out, nmissed counts),
 * and `echo start > .../ctl` starts threads that, until `stop`:
 *   hit     call every probed function (4 threads, unbound, so CPU hotplug
 *           moves them), counting the calls (kprobes_stress_target.ko calls
 *           its own function from a thread of its own while loaded);
 *   sleep   call the sleeping function (4 threads);
 *   churn   register and unregister single kprobes and kretprobes at every
 *           instruction boundary found in the probed functions;
 *   batch   register_kprobes()/unregister_kprobes() batches of 8, and
 *           register_kretprobes()/unregister_kretprobes() batches of 4;
 *   toggle  disable_kprobe()/enable_kprobe() of aggregate members (second
 *           probes at the stable probes' addresses);
 *   modreg  register_kprobe() on kprobes_stress_target.ko's function while
 *           the job loads and unloads that module (the CVE-2024-35955
 *           shape), then unregister it.
 * The job meanwhile writes kprobes/enabled and debug.kprobes-optimization,
 * defines and removes kprobe_events, loads and unloads the target module
 * and takes CPUs offline and online.
 *
 * Every churned probe lives in its own allocation, marked dead when its
 * unregister returned and freed one round later: a handler that runs on a
 * dead probe, or is still running when it is marked, is counted (`late`),
 * one that runs after the kfree is a KASAN report.  `echo stop > ctl` stops the threads, then checks, with nothing
 * else running, that the stable probes count exactly: calls == hits +
 * nmissed (kretprobe: entry hits + nmissed == calls, return hits == entry
 * hits; kprobe with post_handler: post hits == pre hits); during the storm
 * a probe may miss calls (kprobes/enabled is 0 at times) but never count
 * more hits than calls.  Results are `KPS <name> <value>` lines in
 * /sys/kernel/debug/kprobes_stress/out.
 */
#define pr_fmt(fmt) "kprobes_stress: " fmt
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/debugfs.h>
#include <linux/kthread.h>
#include <linux/delay.h>
#include <linux/slab.h>
#include <linux/stringify.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/seq_buf.h>
#include <linux/vmalloc.h>
#include <linux/kallsyms.h>
#include <linux/linkage.h>
#ifdef CONFIG_X86
#include <asm/ibt.h>
#endif

static bool upstream_bugs;
module_param(upstream_bugs, bool, 0444);
MODULE_PARM_DESC(upstream_bugs, "also do what hits known upstream bugs (upstream-findings.txt)");

#define KPS_HITTERS 4
#define KPS_SLEEPERS 4
#define KPS_RET_MAXACTIVE 2
#define KPS_BATCH 8
#define KPS_RBATCH 4
#define KPS_QUIET_CALLS 2000
#define KPS_QUIET_SLEEPS 50

/* ---- probed functions -------------------------------------------------- */

static volatile int kps_sink;

noinline int kps_f_entry(int x)
{
	kps_sink = kps_sink + x * 3;
	return kps_sink ^ 0x11;
}

/*
 * kps_f_boost(x) returns x + 1.  In assembly, so that the probed `lea` is
 * followed by only 4 bytes before the next symbol: too few for the jump
 * optimizer's 5-byte jump, so its probe stays an int3 whose instruction the
 * x86 booster runs out of line without trapping back (no post_handler).
 */
int kps_f_boost(int x);
/*
 * With kCFI, kps_f[] calls it through a pointer, which checks the type id
 * in front of it: the preamble of an assembly function (the kernel's
 * SYM_TYPED_FUNC_START()), with the id clang gives its declaration above
 * (__kcfi_typeid_kps_f_boost, defined because kps_f[] takes its address).
 */
#if defined(CONFIG_CFI) || defined(CONFIG_CFI_CLANG)
#ifdef CONFIG_ARM64
#define KPS_CFI_TYPE ".4byte __kcfi_typeid_kps_f_boost\n"
#elif defined(CONFIG_CALL_PADDING)
#define KPS_CFI_TYPE ".balign 16, 0x90\n__cfi_kps_f_boost:\n.byte 0xb8\n" \
	".long __kcfi_typeid_kps_f_boost\n.skip " __stringify(CONFIG_FUNCTION_PADDING_BYTES) ", 0x90\n"
#else
#define KPS_CFI_TYPE ".balign 16, 0x90\n__cfi_kps_f_boost:\n.skip " \
	__stringify(CONFIG_FUNCTION_PADDING_BYTES) ", 0x90\n.byte 0xb8\n.long __kcfi_typeid_kps_f_boost\n"
#endif
#else
#define KPS_CFI_TYPE ""
#endif
#ifdef CONFIG_ARM64
/* arm64: the same shape, an `add` and a `ret`. */
asm(".pushsection .text, \"ax\"\n"
    ".globl kps_f_boost\n"
    ".type kps_f_boost, %function\n"
    ".balign 4\n"
    KPS_CFI_TYPE
    "kps_f_boost:\n"
    "add w0, w0, #1\n"
    "ret\n"
    ".size kps_f_boost, . - kps_f_boost\n"
    ".type kps_f_boost_end, %function\n"
    "kps_f_boost_end:\n"
    "ret\n"
    ".size kps_f_boost_end, . - kps_f_boost_end\n"
    ".popsection\n");
#elif defined(CONFIG_RISCV)
/* riscv64: the same shape, an `addiw` and a `ret` (no kCFI with Rust). */
asm(".pushsection .text, \"ax\"\n"
    ".globl kps_f_boost\n"
    ".type kps_f_boost, %function\n"
    ".balign 4\n"
    "kps_f_boost:\n"
    "addiw a0, a0, 1\n"
    "ret\n"
    ".size kps_f_boost, . - kps_f_boost\n"
    ".type kps_f_boost_end, %function\n"
    "kps_f_boost_end:\n"
    "ret\n"
    ".size kps_f_boost_end, . - kps_f_boost_end\n"
    ".popsection\n");
#else
asm(".pushsection .text, \"ax\"\n"
    ".globl kps_f_boost\n"
    ".type kps_f_boost, @function\n"
    KPS_CFI_TYPE
    "kps_f_boost:\n"
    ASM_ENDBR
    "leal 1(%rdi), %eax\n"
    ASM_RET
    ".size kps_f_boost, . - kps_f_boost\n"
    ".type kps_f_boost_end, @function\n"
    "kps_f_boost_end:\n"
    ASM_ENDBR
    ASM_RET
    ".size kps_f_boost_end, . - kps_f_boost_end\n"
    ".popsection\n");
#endif

noinline int kps_f_post(int x)
{
	kps_sink = kps_sink + x * 5;
	kps_sink = kps_sink ^ (x + 7);
	return kps_sink + 1;
}

noinline int kps_f_opt(int x)
{
	kps_sink = kps_sink + x * 7;
	kps_sink = kps_sink ^ (x + 11);
	kps_sink = kps_sink + (x >> 1);
	return kps_sink + 2;
}

noinline int kps_f_sleep(int x)
{
	usleep_range(100, 200);
	return x + 2;
}

enum { F_ENTRY, F_BOOST, F_POST, F_OPT, F_SLEEP, NR_F };
static int (*const kps_f[NR_F])(int) = { kps_f_entry, kps_f_boost, kps_f_post, kps_f_opt, kps_f_sleep };
static const char *const kps_f_name[NR_F] = { "kps_f_entry", "kps_f_boost", "kps_f_post", "kps_f_opt", "kps_f_sleep" };
static atomic_long_t kps_calls[NR_F];

/* Instruction boundaries of each probed function, found at start. */
#define KPS_MAX_OFFS 24
static unsigned int kps_offs[NR_F][KPS_MAX_OFFS];
static int kps_noffs[NR_F];

/* ---- counters ------------------------------------------------------------ */

static atomic_long_t kps_ops;		/* API calls made by the threads */
static atomic_long_t kps_hits;		/* handler runs, all probes */
static atomic_long_t kps_late;		/* handlers run on a probe whose unregister returned */
static atomic_long_t kps_reg_fail;	/* registrations refused (not counted as wrong) */
static atomic_long_t kps_mod_reg[4];	/* modreg: 0, -ENOENT, -EINVAL, other */
static atomic_long_t kps_mod_hits;

/* ---- stable probes ------------------------------------------------------- */

struct kps_stable {
	struct kprobe kp;
	atomic_long_t pre, post;
};

static int kps_stable_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_long_inc(&container_of(p, struct kps_stable, kp)->pre);
	atomic_long_inc(&kps_hits);
	return 0;
}

static void kps_stable_post(struct kprobe *p, struct pt_regs *regs, unsigned long flags)
{
	atomic_long_inc(&container_of(p, struct kps_stable, kp)->post);
}

enum { S_ENTRY, S_BOOST, S_POST, S_OPT, NR_S };
static struct kps_stable kps_s[NR_S];
static const int kps_s_func[NR_S] = { F_ENTRY, F_BOOST, F_POST, F_OPT };
static const char *const kps_s_name[NR_S] = { "entry", "boost", "post", "opt" };
/* Aggregate members at the stable probes' addresses (the toggle thread's). */
static struct kps_stable kps_member[NR_S];

struct kps_ret {
	struct kretprobe rp;
	atomic_long_t entry, ret;
};
static struct kps_ret kps_sret;

static int kps_ret_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_long_inc(&container_of(get_kretprobe(ri), struct kps_ret, rp)->entry);
	atomic_long_inc(&kps_hits);
	return 0;
}

static int kps_ret_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_long_inc(&container_of(get_kretprobe(ri), struct kps_ret, rp)->ret);
	return 0;
}

/* ---- churned probes -------------------------------------------------------- */

/* A churned kprobe or kretprobe: marked dead after its unregister returned. */
struct kps_dyn {
	union {
		struct kprobe kp;
		struct kretprobe rp;
	};
	bool is_ret;
	int dead;
};

/*
 * A handler of a churned probe is checked on entry and again after a short
 * spin: unregister must not return while a handler of the probe is still
 * running (its grace period waits for it), so the probe must not have been
 * marked dead meanwhile.  The spin widens the window in which a missing
 * grace period shows: on single-threaded TCG another vCPU runs only when
 * this one is switched out, which a longer handler makes likelier.
 */
#define KPS_HANDLER_SPIN_US 20

static void kps_dyn_hit(struct kps_dyn *d)
{
	if (READ_ONCE(d->dead)) {
		atomic_long_inc(&kps_late);
	} else {
		udelay(KPS_HANDLER_SPIN_US);
		if (READ_ONCE(d->dead))
			atomic_long_inc(&kps_late);
	}
	atomic_long_inc(&kps_hits);
}

static int kps_dyn_pre(struct kprobe *p, struct pt_regs *regs)
{
	kps_dyn_hit(container_of(p, struct kps_dyn, kp));
	return 0;
}

static void kps_dyn_post(struct kprobe *p, struct pt_regs *regs, unsigned long flags)
{
	kps_dyn_hit(container_of(p, struct kps_dyn, kp));
}

static int kps_dyn_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);

	/* get_kretprobe() is NULL once the kretprobe is unregistered. */
	if (rp)
		kps_dyn_hit(container_of(rp, struct kps_dyn, rp));
	return 0;
}

/* A random churned probe on one of the probed functions. */
static struct kps_dyn *kps_dyn_new(bool ret)
{
	struct kps_dyn *d = kzalloc(sizeof(*d), GFP_KERNEL);
	int f;

	if (!d)
		return NULL;
	d->is_ret = ret;
	if (ret) {
		f = get_random_u32_below(NR_F);
		d->rp.kp.symbol_name = kps_f_name[f];
		d->rp.handler = kps_dyn_ret;
		d->rp.maxactive = 1 + get_random_u32_below(8);
		d->rp.data_size = get_random_u32_below(2) ? 16 : 0;
	} else {
		f = get_random_u32_below(NR_F);
		d->kp.symbol_name = kps_f_name[f];
		if (kps_noffs[f])
			d->kp.offset = kps_offs[f][get_random_u32_below(kps_noffs[f])];
		d->kp.pre_handler = kps_dyn_pre;
		/*
		 * A post_handler probe joining an aggregate at an ftrace site
		 * is the upstream bug div.ftrace_aggr_post_handler_joins (the C
		 * kernel then WARNs, double-counts and leaves freed probes
		 * hashed, after which its run means nothing): only with
		 * upstream_bugs=1.  Past +8 is past the ftrace site.
		 */
		if (get_random_u32_below(3) == 0 && (upstream_bugs || d->kp.offset > 8))
			d->kp.post_handler = kps_dyn_post;
	}
	return d;
}

static int kps_dyn_register(struct kps_dyn *d)
{
	atomic_long_inc(&kps_ops);
	return d->is_ret ? register_kretprobe(&d->rp) : register_kprobe(&d->kp);
}

static void kps_dyn_unregister(struct kps_dyn *d)
{
	atomic_long_inc(&kps_ops);
	if (d->is_ret)
		unregister_kretprobe(&d->rp);
	else
		unregister_kprobe(&d->kp);
	WRITE_ONCE(d->dead, 1);
}

/* ---- threads ----------------------------------------------------------------- */

static int kps_hit_fn(void *arg)
{
	unsigned long i = 0;

	while (!kthread_should_stop()) {
		kps_f_entry(i);
		atomic_long_inc(&kps_calls[F_ENTRY]);
		kps_f_boost(i);
		atomic_long_inc(&kps_calls[F_BOOST]);
		kps_f_post(i);
		atomic_long_inc(&kps_calls[F_POST]);
		kps_f_opt(i);
		atomic_long_inc(&kps_calls[F_OPT]);
		i++;
		/*
		 * A quiescent state for RCU Tasks too: in a preemptible kernel
		 * cond_resched() does nothing, and a task that never sleeps
		 * would hold back the optimizer's synchronize_rcu_tasks().
		 */
		cond_resched_tasks_rcu_qs();
	}
	return 0;
}

static int kps_sleep_fn(void *arg)
{
	while (!kthread_should_stop()) {
		kps_f_sleep(1);
		atomic_long_inc(&kps_calls[F_SLEEP]);
	}
	return 0;
}

/* The probes a churn thread keeps for one more round before freeing them. */
static void kps_free_dead(struct kps_dyn **dead, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		kfree(dead[i]);
		dead[i] = NULL;
	}
}

static int kps_churn_fn(void *arg)
{
	struct kps_dyn *d, *prev = NULL;

	while (!kthread_should_stop()) {
		d = kps_dyn_new(get_random_u32_below(4) == 0);
		if (!d) {
			msleep(1);
			continue;
		}
		if (kps_dyn_register(d)) {
			atomic_long_inc(&kps_reg_fail);
			kfree(d);
		} else {
			usleep_range(50, 500);
			kps_dyn_unregister(d);
			kfree(prev);
			prev = d;
		}
		cond_resched();
	}
	kfree(prev);
	return 0;
}

static int kps_batch_fn(void *arg)
{
	struct kps_dyn *d[KPS_BATCH], *dead[KPS_BATCH] = {};
	struct kprobe *kps[KPS_BATCH];
	struct kretprobe *rps[KPS_RBATCH];
	bool ret;
	int i, n, err;

	while (!kthread_should_stop()) {
		ret = get_random_u32_below(3) == 0;
		n = ret ? KPS_RBATCH : KPS_BATCH;
		for (i = 0; i < n; i++) {
			d[i] = kps_dyn_new(ret);
			if (!d[i])
				break;
			if (ret)
				rps[i] = &d[i]->rp;
			else
				kps[i] = &d[i]->kp;
		}
		if (i < n) {
			while (i--)
				kfree(d[i]);
			msleep(1);
			continue;
		}
		atomic_long_inc(&kps_ops);
		err = ret ? register_kretprobes(rps, n) : register_kprobes(kps, n);
		if (err) {
			/* A failed batch unregistered what it had registered. */
			atomic_long_inc(&kps_reg_fail);
			for (i = 0; i < n; i++)
				kfree(d[i]);
			continue;
		}
		usleep_range(100, 1000);
		atomic_long_inc(&kps_ops);
		if (ret)
			unregister_kretprobes(rps, n);
		else
			unregister_kprobes(kps, n);
		kps_free_dead(dead, KPS_BATCH);
		for (i = 0; i < n; i++) {
			WRITE_ONCE(d[i]->dead, 1);
			dead[i] = d[i];
		}
		cond_resched();
	}
	kps_free_dead(dead, KPS_BATCH);
	return 0;
}

static int kps_toggle_fn(void *arg)
{
	int i;

	while (!kthread_should_stop()) {
		i = get_random_u32_below(NR_S);
		atomic_long_inc(&kps_ops);
		if (kprobe_disabled(&kps_member[i].kp))
			enable_kprobe(&kps_member[i].kp);
		else
			disable_kprobe(&kps_member[i].kp);
		usleep_range(100, 300);
	}
	return 0;
}

static int kps_mod_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_long_inc(&kps_mod_hits);
	return kps_dyn_pre(p, regs);
}

static int kps_modreg_fn(void *arg)
{
	struct kps_dyn *d, *prev = NULL;
	int err;

	while (!kthread_should_stop()) {
		d = kzalloc(sizeof(*d), GFP_KERNEL);
		if (!d) {
			msleep(1);
			continue;
		}
		d->kp.symbol_name = "kps_t_func";
		d->kp.pre_handler = kps_mod_pre;
		err = kps_dyn_register(d);
		atomic_long_inc(&kps_mod_reg[err == 0 ? 0 : err == -ENOENT ? 1 : err == -EINVAL ? 2 : 3]);
		if (err) {
			kfree(d);
			usleep_range(200, 500);
			continue;
		}
		usleep_range(200, 2000);
		kps_dyn_unregister(d);
		kfree(prev);
		prev = d;
	}
	kfree(prev);
	return 0;
}

/* ---- start, stop, results ------------------------------------------------------- */

#define KPS_OUT_SZ (64 << 10)
static char *kps_out;
static struct seq_buf kps_sb;
static DEFINE_MUTEX(kps_lock);
static struct task_struct *kps_threads[KPS_HITTERS + KPS_SLEEPERS + 4];
static int kps_nthreads;
static enum { KPS_IDLE, KPS_SETUP, KPS_RUNNING } kps_state;
static long kps_failures;

#define OUT(fmt, ...) seq_buf_printf(&kps_sb, "KPS " fmt "\n", ##__VA_ARGS__)

/* CHECK(NAME, KIND, COND, ...): a `KPS check NAME.KIND PASS|FAIL detail` line. */
#define CHECK(name, kind, cond, fmt, ...)						\
	do {										\
		bool __ok = (cond);							\
		if (!__ok)								\
			kps_failures++;							\
		OUT("check %s.%s %s " fmt, name, kind, __ok ? "PASS" : "FAIL", ##__VA_ARGS__);	\
	} while (0)

/* Instruction boundaries: the offsets where a probe registers. */
static void kps_find_offsets(void)
{
	struct kprobe kp;
	unsigned int off;
	char sym[KSYM_NAME_LEN + 32];
	size_t len;
	int f;

	for (f = 0; f < NR_F; f++) {
		kps_noffs[f] = 0;
		for (off = 0; off < 48 && kps_noffs[f] < KPS_MAX_OFFS; off++) {
			memset(&kp, 0, sizeof(kp));
			kp.symbol_name = kps_f_name[f];
			kp.offset = off;
			if (register_kprobe(&kp))
				continue;
			/* Past the function's end, the offset lands in the next symbol. */
			snprintf(sym, sizeof(sym), "%ps", kp.addr);
			unregister_kprobe(&kp);
			len = strlen(kps_f_name[f]);
			if (strncmp(sym, kps_f_name[f], len) || (sym[len] && sym[len] != ' '))
				break;
			kps_offs[f][kps_noffs[f]++] = off;
		}
	}
}

/* The first boundary past the entry's ftrace site (mid-function). */
static unsigned int kps_mid_offset(int f, unsigned int min)
{
	int i;

	for (i = 0; i < kps_noffs[f]; i++)
		if (kps_offs[f][i] >= min)
			return kps_offs[f][i];
	return 0;
}

static int kps_start_thread(int (*fn)(void *), const char *name, int i)
{
	struct task_struct *t = kthread_run(fn, NULL, "kps_%s/%d", name, i);

	if (IS_ERR(t))
		return PTR_ERR(t);
	kps_threads[kps_nthreads++] = t;
	return 0;
}

static int kps_setup(void)
{
	int i, err, f;

	kps_find_offsets();
	for (f = 0; f < NR_F; f++)
		OUT("offsets %s %d", kps_f_name[f], kps_noffs[f]);
	for (i = 0; i < NR_S; i++) {
		f = kps_s_func[i];
		memset(&kps_s[i], 0, sizeof(kps_s[i]));
		kps_s[i].kp.symbol_name = kps_f_name[f];
		/*
		 * entry at +0; boost at the lea (past its endbr64); the others
		 * past the ftrace site (+9 = endbr64 + the 5-byte call).
		 */
		if (i == S_ENTRY)
			kps_s[i].kp.offset = 0;
		else if (i == S_BOOST)
			kps_s[i].kp.offset = IS_ENABLED(CONFIG_X86_KERNEL_IBT) ? 4 : 0;
		else
			kps_s[i].kp.offset = kps_mid_offset(f, 9);
		kps_s[i].kp.pre_handler = kps_stable_pre;
		if (i == S_POST)
			kps_s[i].kp.post_handler = kps_stable_post;
		err = register_kprobe(&kps_s[i].kp);
		if (err) {
			OUT("error register-stable-%s %d", kps_s_name[i], err);
			goto fail;
		}
		memset(&kps_member[i], 0, sizeof(kps_member[i]));
		kps_member[i].kp.addr = kps_s[i].kp.addr;
		kps_member[i].kp.pre_handler = kps_stable_pre;
		err = register_kprobe(&kps_member[i].kp);
		if (err) {
			OUT("error register-member-%s %d", kps_s_name[i], err);
			unregister_kprobe(&kps_s[i].kp);
			goto fail;
		}
		OUT("stable %s %s+%u", kps_s_name[i], kps_f_name[f], kps_s[i].kp.offset);
	}
	memset(&kps_sret, 0, sizeof(kps_sret));
	kps_sret.rp.kp.symbol_name = "kps_f_sleep";
	kps_sret.rp.entry_handler = kps_ret_entry;
	kps_sret.rp.handler = kps_ret_handler;
	kps_sret.rp.maxactive = KPS_RET_MAXACTIVE;
	err = register_kretprobe(&kps_sret.rp);
	if (err) {
		OUT("error register-stable-ret %d", err);
		goto fail;
	}
	kps_state = KPS_SETUP;
	return 0;
fail:
	while (i--) {
		unregister_kprobe(&kps_member[i].kp);
		unregister_kprobe(&kps_s[i].kp);
	}
	return err;
}

static void kps_start(void)
{
	int i;

	kps_nthreads = 0;
	for (i = 0; i < KPS_HITTERS; i++)
		kps_start_thread(kps_hit_fn, "hit", i);
	for (i = 0; i < KPS_SLEEPERS; i++)
		kps_start_thread(kps_sleep_fn, "sleep", i);
	kps_start_thread(kps_churn_fn, "churn", 0);
	kps_start_thread(kps_batch_fn, "batch", 0);
	kps_start_thread(kps_toggle_fn, "toggle", 0);
	kps_start_thread(kps_modreg_fn, "modreg", 0);
	OUT("threads %d", kps_nthreads);
	kps_state = KPS_RUNNING;
}

/* Snapshot of the stable counters. */
struct kps_snap {
	long calls[NR_F], pre[NR_S], post[NR_S], nmissed[NR_S];
	long rentry, rret, rmissed;
};

static void kps_snap(struct kps_snap *s)
{
	int i;

	for (i = 0; i < NR_F; i++)
		s->calls[i] = atomic_long_read(&kps_calls[i]);
	for (i = 0; i < NR_S; i++) {
		s->pre[i] = atomic_long_read(&kps_s[i].pre);
		s->post[i] = atomic_long_read(&kps_s[i].post);
		s->nmissed[i] = READ_ONCE(kps_s[i].kp.nmissed);
	}
	s->rentry = atomic_long_read(&kps_sret.entry);
	s->rret = atomic_long_read(&kps_sret.ret);
	s->rmissed = READ_ONCE(kps_sret.rp.nmissed);
}

static struct task_struct *kps_quiet_sleepers[KPS_SLEEPERS];

static int kps_quiet_sleep_fn(void *arg)
{
	int i;

	for (i = 0; i < KPS_QUIET_SLEEPS; i++) {
		kps_f_sleep(i);
		atomic_long_inc(&kps_calls[F_SLEEP]);
	}
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static void kps_stop(void)
{
	struct kps_snap a, b;
	int i, f, n;

	for (i = 0; i < kps_nthreads; i++)
		kthread_stop(kps_threads[i]);
	kps_nthreads = 0;
	kps_state = KPS_IDLE;
	kps_snap(&a);

	/* The storm: never more hits than calls. */
	OUT("ops %ld", atomic_long_read(&kps_ops));
	OUT("hits %ld", atomic_long_read(&kps_hits));
	OUT("registrations-refused %ld", atomic_long_read(&kps_reg_fail));
	OUT("modreg ok=%ld enoent=%ld einval=%ld other=%ld", atomic_long_read(&kps_mod_reg[0]),
	    atomic_long_read(&kps_mod_reg[1]), atomic_long_read(&kps_mod_reg[2]),
	    atomic_long_read(&kps_mod_reg[3]));
	OUT("module-hits %ld", atomic_long_read(&kps_mod_hits));
	for (i = 0; i < NR_S; i++) {
		f = kps_s_func[i];
		OUT("storm %s calls=%ld hits=%ld nmissed=%ld post=%ld", kps_s_name[i], a.calls[f],
		    a.pre[i], a.nmissed[i], a.post[i]);
		CHECK("storm-hits-at-most-calls", kps_s_name[i], a.pre[i] + a.nmissed[i] <= a.calls[f],
		      "calls=%ld hits=%ld nmissed=%ld", a.calls[f], a.pre[i], a.nmissed[i]);
	}
	OUT("storm ret calls=%ld entry=%ld nmissed=%ld ret=%ld", a.calls[F_SLEEP], a.rentry,
	    a.rmissed, a.rret);
	CHECK("storm-hits-at-most-calls", "ret", a.rentry + a.rmissed <= a.calls[F_SLEEP],
	      "calls=%ld entry=%ld nmissed=%ld", a.calls[F_SLEEP], a.rentry, a.rmissed);
	CHECK("storm-nmissed-counted", "ret", a.rmissed > 0, "maxactive %d exhausted: nmissed=%ld",
	      KPS_RET_MAXACTIVE, a.rmissed);
	CHECK("no-handler-after-unregister", "churn", atomic_long_read(&kps_late) == 0, "late=%ld",
	      atomic_long_read(&kps_late));

	/* Quiet: every member enabled, nothing else running; exact counts. */
	for (i = 0; i < NR_S; i++)
		if (kprobe_disabled(&kps_member[i].kp))
			enable_kprobe(&kps_member[i].kp);
	kps_snap(&a);
	for (n = 0; n < KPS_QUIET_CALLS; n++) {
		for (f = 0; f < F_SLEEP; f++) {
			kps_f[f](n);
			atomic_long_inc(&kps_calls[f]);
		}
	}
	for (i = 0; i < KPS_SLEEPERS; i++)
		kps_quiet_sleepers[i] = kthread_run(kps_quiet_sleep_fn, NULL, "kps_quiet/%d", i);
	msleep(50);
	for (i = 0; i < KPS_SLEEPERS; i++)
		if (!IS_ERR(kps_quiet_sleepers[i]))
			kthread_stop(kps_quiet_sleepers[i]);
	kps_snap(&b);
	for (i = 0; i < NR_S; i++) {
		long calls, pre, post, miss;

		f = kps_s_func[i];
		calls = b.calls[f] - a.calls[f];
		pre = b.pre[i] - a.pre[i];
		post = b.post[i] - a.post[i];
		miss = b.nmissed[i] - a.nmissed[i];
		CHECK("quiet-hits-plus-nmissed-equal-calls", kps_s_name[i], pre + miss == calls,
		      "calls=%ld hits=%ld nmissed=%ld", calls, pre, miss);
		if (i == S_POST)
			CHECK("quiet-post-equals-pre", kps_s_name[i], post == pre, "post=%ld pre=%ld", post, pre);
	}
	{
		long calls = b.calls[F_SLEEP] - a.calls[F_SLEEP], entry = b.rentry - a.rentry;
		long ret = b.rret - a.rret, miss = b.rmissed - a.rmissed;

		CHECK("quiet-hits-plus-nmissed-equal-calls", "ret", entry + miss == calls,
		      "calls=%ld entry=%ld nmissed=%ld", calls, entry, miss);
		CHECK("quiet-return-equals-entry", "ret", ret == entry, "return=%ld entry=%ld", ret, entry);
	}

	unregister_kretprobe(&kps_sret.rp);
	for (i = 0; i < NR_S; i++) {
		unregister_kprobe(&kps_member[i].kp);
		unregister_kprobe(&kps_s[i].kp);
	}
	OUT("failures %ld", kps_failures);
}

static ssize_t kps_ctl_write(struct file *file, const char __user *ubuf, size_t count, loff_t *ppos)
{
	char cmd[16] = {};
	int err = 0;

	if (copy_from_user(cmd, ubuf, min(count, sizeof(cmd) - 1)))
		return -EFAULT;
	mutex_lock(&kps_lock);
	if (sysfs_streq(cmd, "setup") && kps_state == KPS_IDLE) {
		seq_buf_init(&kps_sb, kps_out, KPS_OUT_SZ);
		kps_failures = 0;
		err = kps_setup();
	} else if (sysfs_streq(cmd, "start") && kps_state == KPS_SETUP) {
		kps_start();
	} else if (sysfs_streq(cmd, "stop") && kps_state != KPS_IDLE) {
		kps_stop();
	} else {
		err = -EINVAL;
	}
	mutex_unlock(&kps_lock);
	return err ?: count;
}

static ssize_t kps_out_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	ssize_t n;

	mutex_lock(&kps_lock);
	n = simple_read_from_buffer(ubuf, count, ppos, kps_out, seq_buf_used(&kps_sb));
	mutex_unlock(&kps_lock);
	return n;
}

static const struct file_operations kps_ctl_fops = { .write = kps_ctl_write };
static const struct file_operations kps_out_fops = { .read = kps_out_read };
static struct dentry *kps_dir;

static int __init kps_init(void)
{
	kps_out = vzalloc(KPS_OUT_SZ);
	if (!kps_out)
		return -ENOMEM;
	seq_buf_init(&kps_sb, kps_out, KPS_OUT_SZ);
	kps_dir = debugfs_create_dir("kprobes_stress", NULL);
	debugfs_create_file("ctl", 0200, kps_dir, NULL, &kps_ctl_fops);
	debugfs_create_file("out", 0400, kps_dir, NULL, &kps_out_fops);
	return 0;
}

static void __exit kps_exit(void)
{
	debugfs_remove_recursive(kps_dir);
	mutex_lock(&kps_lock);
	if (kps_state != KPS_IDLE)
		kps_stop();
	mutex_unlock(&kps_lock);
	vfree(kps_out);
}

module_init(kps_init);
module_exit(kps_exit);
MODULE_DESCRIPTION("kprobes stress driver (tools/testing/stress)");
MODULE_LICENSE("GPL");
