// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_diff.ko: the in-guest differential scenario driver.
 *
 * Drives the kprobes API (register/unregister_kprobe(s),
 * register/unregister_kretprobe(s), enable/disable_kprobe) through
 * scenarios and writes one canonical line per observable,
 *	KPD <scenario> <what>=<value>
 * to a buffer read from debugfs.  The guest job
 * (tools/testing/differential/job.sh) writes a phase name to
 * /sys/kernel/debug/kprobes_diff/ctl, which runs that phase synchronously,
 * then reads /sys/kernel/debug/kprobes_diff/out; between phases it does the
 * shell-side steps (sysctl, kprobes/enabled, rmmod of the target, reading
 * kprobes/list).  Nothing printed depends on addresses or timing: addresses
 * are shown as symbol+offset (module-relative, so identical on both
 * kernels), concurrency results as booleans.
 */
#define pr_fmt(fmt) "kprobes_diff: " fmt
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/debugfs.h>
#include <linux/vmalloc.h>
#include <linux/kallsyms.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/jiffies.h>
#include <linux/ptrace.h>
#include <linux/slab.h>
#include <linux/ctype.h>
#include <linux/ftrace.h>
#include <linux/seq_file.h>
#include <linux/hash.h>
#include <linux/sched.h>
#include "kprobes_diff.h"

/*
 * The sections that need what only some configs have (the job asks
 * debugfs kprobes_diff/features): jump optimization, written for x86's
 * instruction layout (flush.*, sibling.*), and kprobes on ftrace, which
 * an ftrace_ops of this module can make fail to arm (arm_fail.*).
 */
#if defined(CONFIG_X86_64) && defined(CONFIG_OPTPROBES)
#define KPD_OPTPROBES 1
#include <asm/text-patching.h>
#endif
#ifdef CONFIG_KPROBES_ON_FTRACE
#define KPD_KPROBES_ON_FTRACE 1
#endif

static bool unsafe;
module_param(unsafe, bool, 0444);
MODULE_PARM_DESC(unsafe, "allow the 'unsafe' phase (cases where upstream WARNs or oopses)");

static uint big_div = 1;
module_param(big_div, uint, 0444);
MODULE_PARM_DESC(big_div, "divide the sizes of the phase big batches (1-20; the job's quick form on debug kernels)");

/* ---- output ------------------------------------------------------------ */

#define KPD_BUF_SZ (1 << 20)
static char *kpd_buf;
static size_t kpd_len;
static DEFINE_MUTEX(kpd_lock);

static __printf(2, 3) void R(const char *scn, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (kpd_len + 512 >= KPD_BUF_SZ)
		return;
	n = scnprintf(kpd_buf + kpd_len, KPD_BUF_SZ - kpd_len, "KPD %s ", scn);
	kpd_len += n;
	va_start(ap, fmt);
	n = vscnprintf(kpd_buf + kpd_len, KPD_BUF_SZ - kpd_len, fmt, ap);
	va_end(ap);
	kpd_len += n;
	if (kpd_len < KPD_BUF_SZ - 1)
		kpd_buf[kpd_len++] = '\n';
}

/* symbol+offset[module] of an address, never the raw address. */
static const char *kpd_sym(const void *a, char *buf)
{
	char *s, *e;

	if (!a)
		return "NULL";
	snprintf(buf, KSYM_SYMBOL_LEN + 32, "%pS", a);
	if (buf[0] == '0' && buf[1] == 'x')
		return "NOSYM";
	/* "f+0x4/0x30 [mod]" -> "f+0x4[mod]" (the size differs per build of core code) */
	s = strchr(buf, '/');
	if (s) {
		e = strchr(s, ' ');
		if (e)
			memmove(s, e + 1, strlen(e + 1) + 1);
		else
			*s = 0;
	}
	return buf;
}

static char symbuf[KSYM_SYMBOL_LEN + 32];
/* computed at run time, so objtool sees no reference to a non-ENDBR address */
static volatile long kpd_four = 4, kpd_one = 1;
#define SYM(a) kpd_sym((const void *)(a), symbuf)

/* ---- probed functions ---------------------------------------------------- */

volatile int kpd_sink;
volatile int kpd_sink2;

/*
 * Straight-line bodies: endbr64 at +0, the __fentry__ call at +4 (so +0/+4
 * is the ftrace site), the first body instruction at +9 (a 6-byte
 * RIP-relative load: +10 is inside it), long enough for the jump optimizer.
 */
#define KPD_FN(name, k)						\
	noinline int name(int x)				\
	{							\
		kpd_sink = kpd_sink + x * (k);			\
		kpd_sink2 = kpd_sink2 ^ ((k) + x);		\
		kpd_sink = kpd_sink + kpd_sink2;		\
		return kpd_sink2 + (k);				\
	}
#ifdef CONFIG_ARM64
/* arm64: the two patchable-entry NOPs at +0/+4, the body at +8. */
#define KPD_MID 8
#elif defined(CONFIG_RISCV)
/*
 * riscv64: the frame set-up's four compressed instructions at +0..+6, the
 * body at +8, its first instruction (an auipc, or in kpd_bg_* an addi) 4
 * bytes long, so +10 is inside it.
 */
#define KPD_MID 8
#else
#define KPD_MID 9
#endif
#define KPD_INSIDE 10

KPD_FN(kpd_fa, 3)
KPD_FN(kpd_fb, 5)
KPD_FN(kpd_fc, 7)
KPD_FN(kpd_fd, 11)
KPD_FN(kpd_fe, 13)
KPD_FN(kpd_fopt, 17)
KPD_FN(kpd_fopt2, 19)
KPD_FN(kpd_fopt3, 31)
KPD_FN(kpd_fu1, 37)
KPD_FN(kpd_fu2, 41)
KPD_FN(kpd_fu3, 43)
KPD_FN(kpd_fhot, 23)
KPD_FN(kpd_fowned, 29)
EXPORT_SYMBOL_GPL(kpd_fowned);
KPD_FN(kpd_ffl1, 47)
KPD_FN(kpd_ffl2, 53)
KPD_FN(kpd_ffl3, 59)
KPD_FN(kpd_fi1, 61)
KPD_FN(kpd_fi2, 67)
KPD_FN(kpd_fi3, 71)
KPD_FN(kpd_feq, 73)
KPD_FN(kpd_fr1, 79)
KPD_FN(kpd_fr2, 83)
KPD_FN(kpd_fr3, 89)
KPD_FN(kpd_fr4, 97)
KPD_FN(kpd_fdq, 101)

#ifdef KPD_OPTPROBES
/*
 * Sibling re-optimization (phases sib_*): endbr64 at +0, the ftrace site at
 * +4, then instructions of fixed lengths, x in %edi as the ABI has it:
 * movslq at +9 (3 bytes), lea at +12, +16 and +20 (4 bytes each).  A jump
 * must replace whole instructions covering 5 bytes, so the jump of a probe
 * at +9 replaces +9..+15 and that of a probe at +12 replaces +12..+19: a
 * probe at +12 lies inside the jump of a probe at +9, which is within the
 * MAX_OPTIMIZED_LENGTH bytes before it that get_optimized_kprobe() searches.
 */
#define KPD_SIB_P 9
#define KPD_SIB_Q 12
noinline int kpd_fsib(int x)
{
	long v;

	asm volatile("movslq %k1, %0\n\t"
		     "lea 1(%0), %0\n\t"
		     "lea 2(%0), %0\n\t"
		     "lea 3(%0), %0"
		     : "=a"(v) : "D"(x));
	return v + 73;
}
#endif

#define S(i) KPD_FN(kpd_fs_##i, 100 + i)
#define S8(i) S(i##0) S(i##1) S(i##2) S(i##3) S(i##4) S(i##5) S(i##6) S(i##7)
S8(0) S8(1) S8(2) S8(3) S8(4) S8(5) S8(6) S8(7)
#undef S
#define S(i) kpd_fs_##i,
static int (*const kpd_fs[64])(int) = { S8(0) S8(1) S8(2) S8(3) S8(4) S8(5) S8(6) S8(7) };
#undef S
#define S(i) "kpd_fs_" #i,
static const char *const kpd_fs_name[64] = { S8(0) S8(1) S8(2) S8(3) S8(4) S8(5) S8(6) S8(7) };
#undef S

noinline int kpd_fadd(int a, int b)
{
	kpd_sink2 = kpd_sink2 + a;
	return a + b + (kpd_sink & 0);
}

static int (*volatile kpd_frec_ptr)(int);
noinline int kpd_frec(int n)
{
	kpd_sink = kpd_sink + n;
	if (n <= 0)
		return 0;
	return kpd_frec_ptr(n - 1) + 1;
}

/* Call through a volatile pointer so the compiler keeps every call. */
static noinline int CALL(int (*f)(int), int x)
{
	int (*volatile fp)(int) = f;

	return fp(x);
}

static noinline int CALL2(int (*f)(int, int), int a, int b)
{
	int (*volatile fp)(int, int) = f;

	return fp(a, b);
}

/* ---- probes with counters -------------------------------------------------- */

static char kpd_order[256];
static atomic_t kpd_order_n;

static void order_reset(void)
{
	atomic_set(&kpd_order_n, 0);
	memset(kpd_order, 0, sizeof(kpd_order));
}

static void order_log(char c)
{
	int i = atomic_inc_return(&kpd_order_n) - 1;

	if (i < (int)sizeof(kpd_order) - 1)
		kpd_order[i] = c;
}

static const char *order_str(void)
{
	return kpd_order[0] ? kpd_order : "-";
}

struct kpd_kp {
	struct kprobe kp;
	char tag;		/* pre handler logs tag, post handler tolower(tag) */
	atomic_t pre, post;
	int (*inner)(int);	/* reentrancy: the pre handler calls this */
	int (*inner_post)(int);	/* ... the post handler calls this */
	int live;		/* concurrency: registered and not yet unregistered */
	atomic_t late;		/* handler ran while !live */
	int cpu_hits[NR_CPUS];
};

static int kpd_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct kpd_kp *k = container_of(p, struct kpd_kp, kp);

	atomic_inc(&k->pre);
	order_log(k->tag);
	if (k->inner)
		k->inner(1);
	return 0;
}

static void kpd_post(struct kprobe *p, struct pt_regs *regs, unsigned long flags)
{
	struct kpd_kp *k = container_of(p, struct kpd_kp, kp);

	atomic_inc(&k->post);
	order_log(tolower(k->tag));
	if (k->inner_post)
		k->inner_post(1);
}

static void kpi(struct kpd_kp *k, char tag, const char *sym, unsigned int off, bool pre, bool post)
{
	memset(k, 0, sizeof(*k));
	k->tag = tag;
	k->kp.symbol_name = sym;
	k->kp.offset = off;
	if (pre)
		k->kp.pre_handler = kpd_pre;
	if (post)
		k->kp.post_handler = kpd_post;
}

static int reg(const char *scn, struct kpd_kp *k)
{
	int rc = register_kprobe(&k->kp);

	R(scn, "%c.rc=%d", k->tag, rc);
	return rc;
}

static void show(const char *scn, struct kpd_kp *k)
{
	R(scn, "%c.flags=0x%x", k->tag, k->kp.flags);
	R(scn, "%c.nmissed=%lu", k->tag, k->kp.nmissed);
	R(scn, "%c.pre=%d", k->tag, atomic_read(&k->pre));
	R(scn, "%c.post=%d", k->tag, atomic_read(&k->post));
}

static void show_addr(const char *scn, struct kpd_kp *k)
{
	R(scn, "%c.addr=%s", k->tag, SYM(k->kp.addr));
}

/* Call f once and report the handler order. */
static void call_order(const char *scn, int (*f)(int))
{
	order_reset();
	CALL(f, 1);
	R(scn, "order=%s", order_str());
}

/* A one-shot registration of a kprobe: rc, resolved address, flags; removed again. */
static struct kpd_kp t1;
static void try_kp(const char *scn, const char *sym, void *addr, unsigned int off)
{
	int rc;

	kpi(&t1, 'P', sym, off, true, false);
	t1.kp.addr = addr;
	rc = register_kprobe(&t1.kp);
	R(scn, "rc=%d", rc);
	R(scn, "addr=%s", SYM(t1.kp.addr));
	R(scn, "flags=0x%x", t1.kp.flags);
	if (!rc)
		unregister_kprobe(&t1.kp);
}

/* ---- kretprobes --------------------------------------------------------------- */

struct kpd_rp {
	struct kretprobe rp;
	char tag;
	atomic_t entry, ret, match;
	int entry_ret;		/* entry_handler's return value: 0, 1, or 2 = nonzero for odd args */
	int last_retval;
};

struct kpd_rp_data {
	long arg;
	long magic;
};

static int kpd_rp_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kpd_rp *k = container_of(get_kretprobe(ri), struct kpd_rp, rp);
	long arg = regs_get_kernel_argument(regs, 0);

	atomic_inc(&k->entry);
	order_log('e');
	if (k->rp.data_size >= sizeof(struct kpd_rp_data)) {
		struct kpd_rp_data *d = (void *)ri->data;

		d->arg = arg;
		d->magic = 0x4b5044;
	}
	if (k->entry_ret == 2)
		return arg & 1;
	return k->entry_ret;
}

static int kpd_rp_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kpd_rp *k = container_of(get_kretprobe(ri), struct kpd_rp, rp);

	atomic_inc(&k->ret);
	order_log('r');
	k->last_retval = regs_return_value(regs);
	if (k->rp.data_size >= sizeof(struct kpd_rp_data)) {
		struct kpd_rp_data *d = (void *)ri->data;

		/* kpd_frec(n) returns n; kpd_fadd(a, b) returns a + b */
		if (d->magic == 0x4b5044 && (d->arg == k->last_retval || d->arg + 1000 == k->last_retval))
			atomic_inc(&k->match);
		order_log('0' + (d->arg % 10));
	}
	return 0;
}

static void rpi(struct kpd_rp *k, char tag, const char *sym, unsigned int off, bool entry, size_t data)
{
	memset(k, 0, sizeof(*k));
	k->tag = tag;
	k->rp.kp.symbol_name = sym;
	k->rp.kp.offset = off;
	k->rp.handler = kpd_rp_ret;
	if (entry)
		k->rp.entry_handler = kpd_rp_entry;
	k->rp.data_size = data;
}

static int rreg(const char *scn, struct kpd_rp *k)
{
	int rc = register_kretprobe(&k->rp);

	R(scn, "%c.rc=%d", k->tag, rc);
	return rc;
}

static void rshow(const char *scn, struct kpd_rp *k)
{
	R(scn, "%c.flags=0x%x", k->tag, k->rp.kp.flags);
	R(scn, "%c.nmissed=%d", k->tag, k->rp.nmissed);
	R(scn, "%c.kp_nmissed=%lu", k->tag, k->rp.kp.nmissed);
	R(scn, "%c.entry=%d", k->tag, atomic_read(&k->entry));
	R(scn, "%c.ret=%d", k->tag, atomic_read(&k->ret));
	R(scn, "%c.match=%d", k->tag, atomic_read(&k->match));
}

static struct kpd_rp tr1;
static void try_rp(const char *scn, const char *sym, void *addr, unsigned int off, int maxactive, size_t data)
{
	int rc;

	rpi(&tr1, 'R', sym, off, false, data);
	tr1.rp.kp.addr = addr;
	tr1.rp.maxactive = maxactive;
	rc = register_kretprobe(&tr1.rp);
	R(scn, "rc=%d", rc);
	R(scn, "addr=%s", SYM(tr1.rp.kp.addr));
	R(scn, "flags=0x%x", tr1.rp.kp.flags);
	R(scn, "maxactive=%d", tr1.rp.maxactive);
	if (!rc) {
		CALL2(kpd_fadd, 2, 3);
		R(scn, "ret_value=%d", tr1.last_retval);
		unregister_kretprobe(&tr1.rp);
	}
}

/* ---- phase: bad input ------------------------------------------------------ */

static struct kpd_kp b1, b2, b3, b4;
static struct kpd_rp rb1, rb2, rb3;

static void ph_bad(void)
{
	struct kprobe *kps[4];
	struct kretprobe *rps[3];
	int rc;

	try_kp("bad.addr_and_symbol", "kpd_fa", kpd_fa, 0);
	try_kp("bad.null", NULL, NULL, 0);
	try_kp("bad.unknown_symbol", "kpd_no_such_symbol", NULL, 0);
	try_kp("bad.inside_endbr", "kpd_fa", NULL, 2);
	try_kp("bad.inside_fentry_call", "kpd_fa", NULL, 5);
	try_kp("bad.inside_insn", "kpd_fa", NULL, KPD_INSIDE);
	try_kp("bad.past_function", "kpd_fa", NULL, 0x100000);
	try_kp("bad.offset_into_next_function", "kpd_fa", NULL, 0x40);	/* kpd_fb's entry */
	try_kp("bad.offset_into_next_function_mid", "kpd_fa", NULL, 0x40 + KPD_MID);
	try_kp("bad.symbol_with_module_prefix", "kprobes_diff:kpd_fa", NULL, 0);
	try_kp("bad.symbol_with_wrong_module_prefix", "kprobes_diff_target:kpd_fa", NULL, 0);
	try_kp("bad.data_symbol_jiffies", "jiffies", NULL, 0);
	try_kp("bad.module_data_addr", NULL, (void *)&kpd_sink, 0);
	try_kp("bad.own_get_kprobe", "get_kprobe", NULL, 0);
	try_kp("bad.own_register_kprobe", "register_kprobe", NULL, 0);
	try_kp("bad.arch_kprobe_int3_handler", "kprobe_int3_handler", NULL, 0);
	try_kp("bad.blacklist_do_int3", "do_int3", NULL, 0);
	try_kp("bad.noinstr_exc_int3", "exc_int3", NULL, 0);
	try_kp("bad.noinstr_irqentry_nmi_enter", "irqentry_nmi_enter", NULL, 0);
	try_kp("bad.cfi_pfx_symbol", "__pfx_kpd_fa", NULL, 0);
	try_kp("bad.cfi_padding_before_func", NULL, (void *)((unsigned long)kpd_fb - kpd_one), 0);
	try_kp("ibt.symbol_plus0", "kpd_fa", NULL, 0);
	try_kp("ibt.symbol_plus4", "kpd_fa", NULL, 4);
	try_kp("ibt.addr_plus0", NULL, kpd_fa, 0);
	try_kp("ibt.addr_plus4", NULL, (void *)((unsigned long)kpd_fa + kpd_four), 0);
	try_kp("ibt.mid_function", "kpd_fa", NULL, KPD_MID);
	try_kp("ibt.addr_plus_offset", NULL, kpd_fa, KPD_MID);

	/* Only KPROBE_FLAG_DISABLED of the caller's flags is kept. */
	kpi(&b1, 'A', "kpd_fa", 0, true, false);
	b1.kp.flags = 0xff;
	b1.kp.nmissed = 77;
	rc = reg("bad.flags_garbage", &b1);
	show("bad.flags_garbage", &b1);
	if (!rc)
		unregister_kprobe(&b1.kp);

	/* Re-registering a live probe registered by symbol: addr and symbol are both set now. */
	kpi(&b1, 'A', "kpd_fa", 0, true, false);
	rc = reg("bad.reregister_live_by_symbol", &b1);
	R("bad.reregister_live_by_symbol", "again.rc=%d", register_kprobe(&b1.kp));
	CALL(kpd_fa, 1);
	show("bad.reregister_live_by_symbol", &b1);
	if (!rc)
		unregister_kprobe(&b1.kp);

	/* Never registered: unregister is silent and clears addr; enable/disable fail. */
	kpi(&b1, 'A', NULL, 0, true, false);
	b1.kp.addr = (void *)kpd_fb;
	unregister_kprobe(&b1.kp);
	R("bad.unregister_never_registered", "addr_after=%s", SYM(b1.kp.addr));
	b1.kp.addr = (void *)kpd_fb;
	R("bad.enable_never_registered", "rc=%d", enable_kprobe(&b1.kp));
	R("bad.disable_never_registered", "rc=%d", disable_kprobe(&b1.kp));
	R("bad.disable_never_registered", "flags=0x%x", b1.kp.flags);
	kpi(&b1, 'A', "kpd_fb", 0, true, false);
	R("bad.enable_never_registered_symbol", "rc=%d", enable_kprobe(&b1.kp));

	/* Double unregister of a kprobe (tolerated upstream). */
	kpi(&b1, 'A', "kpd_fb", 0, true, false);
	rc = reg("bad.double_unregister", &b1);
	unregister_kprobe(&b1.kp);
	R("bad.double_unregister", "addr_after_first=%s", SYM(b1.kp.addr));
	unregister_kprobe(&b1.kp);
	R("bad.double_unregister", "addr_after_second=%s", SYM(b1.kp.addr));
	CALL(kpd_fb, 1);
	show("bad.double_unregister", &b1);
	kpi(&b1, 'A', "kpd_fb", KPD_MID, true, false);
	rc = reg("bad.enable_after_unregister", &b1);
	unregister_kprobe(&b1.kp);
	R("bad.enable_after_unregister", "enable.rc=%d", enable_kprobe(&b1.kp));
	R("bad.enable_after_unregister", "disable.rc=%d", disable_kprobe(&b1.kp));
	R("bad.enable_after_unregister", "addr=%s", SYM(b1.kp.addr));

	/* kretprobes */
	try_rp("bad.kretprobe_not_entry", "kpd_fadd", NULL, KPD_MID, 0, 0);
	try_rp("bad.kretprobe_inside_endbr", "kpd_fadd", NULL, 2, 0, 0);
	try_rp("bad.kretprobe_null", NULL, NULL, 0, 0, 0);
	try_rp("bad.kretprobe_addr_and_symbol", "kpd_fadd", kpd_fadd, 0, 0, 0);
	try_rp("bad.kretprobe_unknown_symbol", "kpd_no_such_symbol", NULL, 0, 0, 0);
	try_rp("bad.kretprobe_blacklist_do_int3", "do_int3", NULL, 0, 0, 0);
	try_rp("bad.kretprobe_data_symbol", "jiffies", NULL, 0, 0, 0);
	try_rp("bad.kretprobe_maxactive_4097", "kpd_fadd", NULL, 0, 4097, 0);
	try_rp("bad.kretprobe_maxactive_negative", "kpd_fadd", NULL, 0, -5, 0);
	try_rp("bad.kretprobe_data_size_4096", "kpd_fadd", NULL, 0, 0, 4096);
	try_rp("bad.kretprobe_data_size_4097", "kpd_fadd", NULL, 0, 0, 4097);
	try_rp("bad.kretprobe_addr_plus4", NULL, (void *)((unsigned long)kpd_fadd + kpd_four), 0, 0, 0);

	rpi(&rb1, 'R', "kpd_fadd", 0, false, 0);
	rc = rreg("bad.kretprobe_reregister_live_by_symbol", &rb1);
	R("bad.kretprobe_reregister_live_by_symbol", "again.rc=%d", register_kretprobe(&rb1.rp));
	CALL2(kpd_fadd, 1, 1);
	rshow("bad.kretprobe_reregister_live_by_symbol", &rb1);
	if (!rc)
		unregister_kretprobe(&rb1.rp);

	/* Batches: num 0 / negative, and a bad entry in the middle (rollback). */
	kpi(&b1, 'A', "kpd_fa", 0, true, false);
	kpi(&b2, 'B', "kpd_fb", KPD_MID, true, true);
	kpi(&b3, 'C', "kpd_no_such_symbol", 0, true, false);
	kpi(&b4, 'D', "kpd_fc", 0, true, false);
	kps[0] = &b1.kp; kps[1] = &b2.kp; kps[2] = &b3.kp; kps[3] = &b4.kp;
	R("bad.register_kprobes_num0", "rc=%d", register_kprobes(kps, 0));
	R("bad.register_kprobes_num_negative", "rc=%d", register_kprobes(kps, -1));
	unregister_kprobes(kps, 0);
	R("bad.unregister_kprobes_num0", "A.addr=%s", SYM(b1.kp.addr));
	/* a never-registered probe in the middle of an unregister batch */
	kps[2] = &b4.kp;
	R("bad.unregister_kprobes_unregistered_middle", "rc=%d", register_kprobes(kps, 2));
	b3.kp.addr = (void *)kpd_fc;
	b3.kp.symbol_name = NULL;
	kps[1] = &b3.kp; kps[2] = &b2.kp;
	unregister_kprobes(kps, 3);
	CALL(kpd_fa, 1); CALL(kpd_fb, 1);
	show("bad.unregister_kprobes_unregistered_middle", &b1);
	show("bad.unregister_kprobes_unregistered_middle", &b2);
	show_addr("bad.unregister_kprobes_unregistered_middle", &b1);
	show_addr("bad.unregister_kprobes_unregistered_middle", &b3);
	R("bad.unregister_kprobes_unregistered_middle", "A.enable.rc=%d", enable_kprobe(&b1.kp));
	kpi(&b1, 'A', "kpd_fa", 0, true, false);
	kpi(&b2, 'B', "kpd_fb", KPD_MID, true, true);
	kpi(&b3, 'C', "kpd_no_such_symbol", 0, true, false);
	kpi(&b4, 'D', "kpd_fc", 0, true, false);
	kps[0] = &b1.kp; kps[1] = &b2.kp; kps[2] = &b3.kp; kps[3] = &b4.kp;
	R("bad.register_kprobes_rollback", "rc=%d", register_kprobes(kps, 4));
	CALL(kpd_fa, 1); CALL(kpd_fb, 1); CALL(kpd_fc, 1);
	show("bad.register_kprobes_rollback", &b1);
	show("bad.register_kprobes_rollback", &b2);
	show("bad.register_kprobes_rollback", &b3);
	show("bad.register_kprobes_rollback", &b4);
	show_addr("bad.register_kprobes_rollback", &b1);
	show_addr("bad.register_kprobes_rollback", &b2);
	show_addr("bad.register_kprobes_rollback", &b3);
	show_addr("bad.register_kprobes_rollback", &b4);
	R("bad.register_kprobes_rollback", "A.enable.rc=%d", enable_kprobe(&b1.kp));
	R("bad.register_kprobes_rollback", "B.disable.rc=%d", disable_kprobe(&b2.kp));
	/* The rolled-back probes can be registered again. */
	b1.kp.addr = NULL;
	rc = reg("bad.register_kprobes_rollback_reuse", &b1);
	CALL(kpd_fa, 1);
	show("bad.register_kprobes_rollback_reuse", &b1);
	if (!rc)
		unregister_kprobe(&b1.kp);

	rpi(&rb1, 'R', "kpd_fadd", 0, true, 0);
	rpi(&rb2, 'S', "kpd_fa", KPD_MID, true, 0);	/* not on entry */
	rpi(&rb3, 'T', "kpd_fb", 0, true, 0);
	rps[0] = &rb1.rp; rps[1] = &rb2.rp; rps[2] = &rb3.rp;
	R("bad.register_kretprobes_num0", "rc=%d", register_kretprobes(rps, 0));
	R("bad.register_kretprobes_num_negative", "rc=%d", register_kretprobes(rps, -3));
	unregister_kretprobes(rps, 0);
	R("bad.register_kretprobes_rollback", "rc=%d", register_kretprobes(rps, 3));
	CALL2(kpd_fadd, 1, 2); CALL(kpd_fa, 1); CALL(kpd_fb, 1);
	rshow("bad.register_kretprobes_rollback", &rb1);
	rshow("bad.register_kretprobes_rollback", &rb2);
	rshow("bad.register_kretprobes_rollback", &rb3);
	R("bad.register_kretprobes_rollback", "R.enable.rc=%d", enable_kprobe(&rb1.rp.kp));
	R("bad.register_kretprobes_rollback", "T.addr=%s", SYM(rb3.rp.kp.addr));
}

/* Cases where upstream WARNs: run only with unsafe=1 (see divergences.txt). */
static void ph_unsafe(void)
{
	int rc;

	if (!unsafe) {
		R("unsafe", "skipped=1");
		return;
	}
	/* WARN_ON_ONCE in warn_kprobe_rereg() upstream. */
	kpi(&b1, 'A', NULL, 0, true, false);
	b1.kp.addr = (void *)kpd_fa;
	rc = reg("unsafe.reregister_live_by_addr", &b1);
	R("unsafe.reregister_live_by_addr", "again.rc=%d", register_kprobe(&b1.kp));
	if (!rc)
		unregister_kprobe(&b1.kp);
}

/*
 * Intended divergences (divergences.txt): scenarios where the C core
 * misbehaves after legal API use.  Each runs in its own phase, named like
 * its scenario, in a separate boot (the job's kpd.divergence=1 mode), since
 * the C core is left in a bad state.
 */
#define D1 "div.ftrace_aggr_post_handler_joins"
static void ph_div_ftrace_post(void)
{
	int rc;

	/*
	 * A post-handler probe joins an ftrace-based aggregate that was armed
	 * without one; disabling both makes upstream disarm with
	 * kprobe_ipmodify_ops an ip armed in kprobe_ftrace_ops: -ENOENT and a
	 * WARN, the probe stays armed; unregister then leaves it hashed.
	 */
	kpi(&b1, 'A', "kpd_fd", 0, true, false);
	kpi(&b2, 'B', "kpd_fd", 0, true, true);
	reg(D1, &b1);
	reg(D1, &b2);
	call_order(D1, kpd_fd);
	R(D1, "disable_A.rc=%d", disable_kprobe(&b1.kp));
	R(D1, "disable_B.rc=%d", disable_kprobe(&b2.kp));
	call_order(D1, kpd_fd);
	show(D1, &b1);
	show(D1, &b2);
	unregister_kprobe(&b1.kp);
	unregister_kprobe(&b2.kp);
	R(D1, "A.addr_after_unregister=%s", SYM(b1.kp.addr));
	R(D1, "B.addr_after_unregister=%s", SYM(b2.kp.addr));
	call_order(D1, kpd_fd);
	rc = disable_kprobe(&b1.kp);
	R(D1, "disable_after_unregister.rc=%d", rc);
}

#define D4 "div.reregister_by_addr_offset"
/* kernel/kprobes.c's KPROBE_HASH_BITS: the kprobe_table bucket of an address. */
#define KPD_HASH_BITS 6

static void ph_div_rereg_offset(void)
{
	int (*fns[])(int) = { kpd_fr1, kpd_fr2, kpd_fr3, kpd_fr4 };
	unsigned long lo, hi, d;
	int i, j, rc;

	/*
	 * A live probe given by .addr = X - d and .offset = d (X < Y function
	 * entries, d = Y - X) is registered at X.  register_kprobe() stores X
	 * in .addr but keeps .offset, so upstream resolves a second
	 * register_kprobe() of it to X + d = Y, misses the live probe and
	 * hashes it a second time.  The pair is one whose kprobe_table buckets
	 * differ: in one bucket the probe would be linked to itself and a walk
	 * of it would never end.  No function of the pair is called: on the C
	 * core a hit at X would find no probe there.
	 */
	for (i = 0; i < ARRAY_SIZE(fns); i++) {
		for (j = i + 1; j < ARRAY_SIZE(fns); j++) {
			lo = min((unsigned long)fns[i], (unsigned long)fns[j]);
			hi = max((unsigned long)fns[i], (unsigned long)fns[j]);
			d = hi - lo;
			kpi(&b1, 'A', NULL, d, true, false);
			b1.kp.addr = (void *)(lo - d);
			rc = register_kprobe(&b1.kp);
			if (rc) {
				R(D4, "A.rc=%d", rc);
				return;
			}
			if (hash_ptr(b1.kp.addr, KPD_HASH_BITS) !=
			    hash_ptr((void *)b1.kp.addr + d, KPD_HASH_BITS))
				goto found;
			unregister_kprobe(&b1.kp);
		}
	}
	R(D4, "pair=none");
	return;
found:
	R(D4, "A.rc=%d", rc);
	R(D4, "A.at_entry=%d", b1.kp.addr == (void *)lo || b1.kp.addr == (void *)lo + 4);
	R(D4, "again.rc=%d", register_kprobe(&b1.kp));
	R(D4, "A.moved=%d", b1.kp.addr != (void *)lo && b1.kp.addr != (void *)lo + 4);
	/* Upstream unhashes it at Y; its link at X stays (kprobes/list). */
	unregister_kprobe(&b1.kp);
}

#define D5 "div.unregister_failed_kretprobe"
static struct kretprobe d5_rp;

/*
 * A kretprobe whose registration failed, then unregistered, as a module's
 * error or exit path may do.  kprobe_on_func_entry() refuses kpd_fa+16
 * before the rethook (or, without rethook, the instance pool's holder) is
 * allocated, so rp->rh (rp->rph) stays NULL; upstream's
 * unregister_kretprobes() then frees it unconditionally: a NULL pointer
 * dereference with kprobe_mutex held.  The job runs the unregister phase
 * last, in a child shell, and reads its output only if it returned.
 */
static void ph_div_kret_fail_reg(void)
{
	memset(&d5_rp, 0, sizeof(d5_rp));
	d5_rp.kp.symbol_name = "kpd_fa";
	d5_rp.kp.offset = 16;
	d5_rp.handler = kpd_rp_ret;
	R(D5, "register.rc=%d", register_kretprobe(&d5_rp));
}

static void ph_div_kret_fail_unreg(void)
{
	unregister_kretprobe(&d5_rp);
	R(D5, "unregister=returned kp.addr=%s", d5_rp.kp.addr ? "set" : "NULL");
	unregister_kretprobe(&d5_rp);
	R(D5, "unregister_again=returned");
}

/* ---- phase: aggregation ------------------------------------------------------- */

static struct kpd_kp a1, a2, a3, a4, a5;

static void aggr_run(const char *p, int (*f)(int), const char *sym, unsigned int off, bool ftrace)
{
	char scn[64];
	struct kprobe *kps[3];

#define SC(x) (snprintf(scn, sizeof(scn), "aggr.%s.%s", p, x), scn)
	/*
	 * On an ftrace site the first probe has a post handler too: when a
	 * post-handler probe joins an ftrace aggregate armed without one,
	 * upstream disarms it with the wrong ftrace_ops later (WARN, probe
	 * stays armed and hashed); that case is in ph_unsafe().
	 */
	kpi(&a1, 'A', sym, off, true, ftrace);
	kpi(&a2, 'B', sym, off, true, true);
	kpi(&a3, 'C', sym, off, false, true);
	kpi(&a4, 'D', sym, off, true, false);
	reg(SC("register4"), &a1); reg(SC("register4"), &a2);
	reg(SC("register4"), &a3); reg(SC("register4"), &a4);
	call_order(SC("register4"), f);
	show(SC("register4"), &a1); show(SC("register4"), &a2);
	show(SC("register4"), &a3); show(SC("register4"), &a4);
	show_addr(SC("register4"), &a1);

	R(SC("disable_B"), "rc=%d", disable_kprobe(&a2.kp));
	call_order(SC("disable_B"), f);
	R(SC("disable_B"), "B.flags=0x%x", a2.kp.flags);
	R(SC("disable_B"), "A.flags=0x%x", a1.kp.flags);

	R(SC("disable_all"), "A.rc=%d", disable_kprobe(&a1.kp));
	R(SC("disable_all"), "C.rc=%d", disable_kprobe(&a3.kp));
	R(SC("disable_all"), "D.rc=%d", disable_kprobe(&a4.kp));
	call_order(SC("disable_all"), f);
	show(SC("disable_all"), &a1); show(SC("disable_all"), &a4);
	R(SC("disable_twice"), "D.rc=%d", disable_kprobe(&a4.kp));
	R(SC("disable_twice"), "D.flags=0x%x", a4.kp.flags);

	R(SC("reenable"), "C.rc=%d", enable_kprobe(&a3.kp));
	R(SC("reenable"), "A.rc=%d", enable_kprobe(&a1.kp));
	call_order(SC("reenable"), f);
	R(SC("reenable"), "A.flags=0x%x", a1.kp.flags);
	R(SC("reenable"), "C.flags=0x%x", a3.kp.flags);
	R(SC("enable_twice"), "A.rc=%d", enable_kprobe(&a1.kp));
	call_order(SC("enable_twice"), f);

	unregister_kprobe(&a2.kp);	/* a disabled child with a post handler */
	call_order(SC("unregister_disabled_B"), f);
	R(SC("unregister_disabled_B"), "B.addr=%s", SYM(a2.kp.addr));
	unregister_kprobe(&a1.kp);
	call_order(SC("unregister_A"), f);

	kpi(&a5, 'E', sym, off, true, true);
	reg(SC("add_E"), &a5);
	call_order(SC("add_E"), f);
	R(SC("add_E"), "E.flags=0x%x", a5.kp.flags);

	R(SC("enable_D"), "rc=%d", enable_kprobe(&a4.kp));
	call_order(SC("enable_D"), f);

	kps[0] = &a3.kp; kps[1] = &a4.kp; kps[2] = &a5.kp;
	unregister_kprobes(kps, 3);
	call_order(SC("unregister_rest"), f);
	show(SC("unregister_rest"), &a3); show(SC("unregister_rest"), &a4); show(SC("unregister_rest"), &a5);

	/* Registration order A B C, unregistration in reverse, one by one. */
	kpi(&a1, 'A', sym, off, true, true);
	kpi(&a2, 'B', sym, off, true, false);
	kpi(&a3, 'C', sym, off, true, true);
	reg(SC("unregister_reverse"), &a1); reg(SC("unregister_reverse"), &a2); reg(SC("unregister_reverse"), &a3);
	call_order(SC("unregister_reverse"), f);
	unregister_kprobe(&a3.kp);
	call_order(SC("unregister_reverse"), f);
	unregister_kprobe(&a2.kp);
	call_order(SC("unregister_reverse"), f);
	R(SC("unregister_reverse"), "A.flags=0x%x", a1.kp.flags);
	unregister_kprobe(&a1.kp);
	call_order(SC("unregister_reverse"), f);

	/* First probe registered disabled, second enabled joins it. */
	kpi(&a1, 'A', sym, off, true, false);
	kpi(&a2, 'B', sym, off, true, false);
	a1.kp.flags = KPROBE_FLAG_DISABLED;
	reg(SC("registered_disabled"), &a1);
	call_order(SC("registered_disabled"), f);
	R(SC("registered_disabled"), "A.flags=0x%x", a1.kp.flags);
	reg(SC("registered_disabled"), &a2);
	call_order(SC("registered_disabled"), f);
	R(SC("registered_disabled"), "A.flags=0x%x", a1.kp.flags);
	R(SC("registered_disabled"), "B.flags=0x%x", a2.kp.flags);
	/* all disabled, then a new enabled probe re-arms the aggregate */
	disable_kprobe(&a2.kp);
	call_order(SC("all_disabled_then_new"), f);
	kpi(&a3, 'C', sym, off, true, false);
	reg(SC("all_disabled_then_new"), &a3);
	call_order(SC("all_disabled_then_new"), f);
	R(SC("all_disabled_then_new"), "A.flags=0x%x", a1.kp.flags);
	R(SC("all_disabled_then_new"), "C.flags=0x%x", a3.kp.flags);
	/* a disabled probe joining an aggregate stays silent */
	kpi(&a4, 'D', sym, off, true, !ftrace);
	a4.kp.flags = KPROBE_FLAG_DISABLED;
	reg(SC("join_disabled"), &a4);
	call_order(SC("join_disabled"), f);
	R(SC("join_disabled"), "D.flags=0x%x", a4.kp.flags);
	R(SC("join_disabled"), "enable_D.rc=%d", enable_kprobe(&a4.kp));
	call_order(SC("join_disabled"), f);
	kps[0] = &a1.kp; kps[1] = &a2.kp; kps[2] = &a3.kp;
	unregister_kprobes(kps, 3);
	unregister_kprobe(&a4.kp);
	call_order(SC("join_disabled"), f);
#undef SC
}

static struct kpd_rp ra1;

static void ph_aggr(void)
{
	aggr_run("entry", kpd_fb, "kpd_fb", 0, true);
	aggr_run("mid", kpd_fc, "kpd_fc", KPD_MID, false);

	/* kprobe (pre+post) and kretprobe (entry+return) on one function */
	kpi(&a1, 'K', "kpd_fadd", 0, true, true);
	rpi(&ra1, 'R', "kpd_fadd", 0, true, sizeof(struct kpd_rp_data));
	reg("aggr.kprobe_kretprobe", &a1);
	rreg("aggr.kprobe_kretprobe", &ra1);
	order_reset();
	CALL2(kpd_fadd, 5, 1000);
	R("aggr.kprobe_kretprobe", "order=%s", order_str());
	show("aggr.kprobe_kretprobe", &a1);
	rshow("aggr.kprobe_kretprobe", &ra1);
	R("aggr.kprobe_kretprobe", "R.retval=%d", ra1.last_retval);
	R("aggr.kretprobe_disable", "rc=%d", disable_kprobe(&ra1.rp.kp));
	order_reset();
	CALL2(kpd_fadd, 6, 1000);
	R("aggr.kretprobe_disable", "order=%s", order_str());
	R("aggr.kretprobe_disable", "R.flags=0x%x", ra1.rp.kp.flags);
	R("aggr.kretprobe_enable", "rc=%d", enable_kprobe(&ra1.rp.kp));
	order_reset();
	CALL2(kpd_fadd, 7, 1000);
	R("aggr.kretprobe_enable", "order=%s", order_str());
	unregister_kretprobe(&ra1.rp);
	order_reset();
	CALL2(kpd_fadd, 8, 1000);
	R("aggr.kretprobe_unregister_first", "order=%s", order_str());
	R("aggr.kretprobe_unregister_first", "K.flags=0x%x", a1.kp.flags);
	unregister_kprobe(&a1.kp);
	order_reset();
	CALL2(kpd_fadd, 9, 1000);
	R("aggr.kretprobe_unregister_first", "order=%s", order_str());
}

/* ---- phase: reentrancy -------------------------------------------------------- */

static struct kpd_rp rr1;

static void reent_run(const char *scn, unsigned int outer_off, bool outer_post,
		      int (*inner)(int), const char *inner_sym, unsigned int inner_off, bool two_inner)
{
	kpi(&a1, 'O', "kpd_fa", outer_off, !outer_post, outer_post);
	if (outer_post)
		a1.inner_post = inner;
	else
		a1.inner = inner;
	kpi(&a2, 'I', inner_sym, inner_off, true, false);
	kpi(&a3, 'J', inner_sym, inner_off, true, false);
	reg(scn, &a2);
	if (two_inner)
		reg(scn, &a3);
	reg(scn, &a1);
	call_order(scn, kpd_fa);
	show(scn, &a1);
	show(scn, &a2);
	if (two_inner)
		show(scn, &a3);
	call_order(scn, inner);	/* direct call: the inner probe fires */
	R(scn, "I.pre_after_direct=%d", atomic_read(&a2.pre));
	unregister_kprobe(&a1.kp);
	unregister_kprobe(&a2.kp);
	if (two_inner)
		unregister_kprobe(&a3.kp);
}

static int kpd_call_fadd(int x)
{
	return CALL2(kpd_fadd, x, 1000);
}

static void ph_reent(void)
{
	reent_run("reent.ftrace_outer_int3_inner", 0, false, kpd_fb, "kpd_fb", KPD_MID, false);
	reent_run("reent.ftrace_outer_ftrace_inner", 0, false, kpd_fb, "kpd_fb", 0, false);
	reent_run("reent.int3_outer_ftrace_inner", KPD_MID, true, kpd_fb, "kpd_fb", 0, false);
	reent_run("reent.post_handler_int3_inner", KPD_MID, true, kpd_fc, "kpd_fc", KPD_MID, false);
	reent_run("reent.aggregate_inner", 0, false, kpd_fb, "kpd_fb", KPD_MID, true);
	reent_run("reent.self", 0, false, kpd_fa, "kpd_fa", KPD_MID, false);

	/* the inner probe is a kretprobe */
	kpi(&a1, 'O', "kpd_fa", 0, true, false);
	a1.inner = kpd_call_fadd;
	rpi(&rr1, 'R', "kpd_fadd", 0, true, 0);
	rreg("reent.inner_kretprobe", &rr1);
	reg("reent.inner_kretprobe", &a1);
	call_order("reent.inner_kretprobe", kpd_fa);
	show("reent.inner_kretprobe", &a1);
	rshow("reent.inner_kretprobe", &rr1);
	unregister_kprobe(&a1.kp);
	unregister_kretprobe(&rr1.rp);
}

/* ---- phase: optimization (the job checks kprobes/list in between) ------------------ */

static struct kpd_kp o1, o2, o3, o4;

static void ph_opt_reg(void)
{
	kpi(&o1, 'A', "kpd_fopt", KPD_MID, true, false);
	reg("opt.mid_register", &o1);
	R("opt.mid_register", "A.flags=0x%x", o1.kp.flags);
	show_addr("opt.mid_register", &o1);
}

static void ph_opt_call(const char *scn)
{
	call_order(scn, kpd_fopt);
	show(scn, &o1);
	if (o2.kp.addr)
		show(scn, &o2);
}

static void ph_opt_add_post(void)
{
	kpi(&o2, 'B', "kpd_fopt", KPD_MID, true, true);
	reg("opt.add_post_handler", &o2);
	R("opt.add_post_handler", "B.flags=0x%x", o2.kp.flags);
}

static void ph_opt_del_post(void)
{
	unregister_kprobe(&o2.kp);
	memset(&o2, 0, sizeof(o2));
	R("opt.remove_post_handler", "A.flags=0x%x", o1.kp.flags);
}

static void ph_opt_disabled(void)
{
	kpi(&o3, 'C', "kpd_fopt2", KPD_MID, true, false);
	o3.kp.flags = KPROBE_FLAG_DISABLED;
	reg("opt.registered_disabled", &o3);
	R("opt.registered_disabled", "C.flags=0x%x", o3.kp.flags);
}

static struct kpd_kp o6;
static void ph_opt_reg_while_off(void)
{
	kpi(&o6, 'F', "kpd_fopt3", KPD_MID, true, false);
	reg("opt.registered_while_sysctl_0", &o6);
	call_order("opt.registered_while_sysctl_0", kpd_fopt3);
}

static void ph_opt_enable3(void)
{
	R("opt.enable_disabled", "rc=%d", enable_kprobe(&o3.kp));
	call_order("opt.enable_disabled", kpd_fopt2);
	R("opt.enable_disabled", "C.flags=0x%x", o3.kp.flags);
}

static void ph_opt_reent(void)
{
	/* a handler calls an optimized probed function */
	kpi(&o4, 'O', "kpd_fa", 0, true, false);
	o4.inner = kpd_fopt2;
	reg("opt.reent_inner_optimized", &o4);
	call_order("opt.reent_inner_optimized", kpd_fa);
	show("opt.reent_inner_optimized", &o3);
	unregister_kprobe(&o4.kp);
}

static void ph_opt_disable_one(void)
{
	R("opt.disable_optimized", "rc=%d", disable_kprobe(&o3.kp));
	call_order("opt.disable_optimized", kpd_fopt2);
	R("opt.disable_optimized", "C.flags=0x%x", o3.kp.flags);
}

/*
 * Unregister an optimized probe and at once register another at the same
 * address: the dying (unused, delayed-unoptimizing) aggregate is reused.
 */
static struct kpd_kp o5;
static void ph_opt_reuse(void)
{
	unregister_kprobe(&o1.kp);
	kpi(&o5, 'E', "kpd_fopt", KPD_MID, true, false);
	reg("opt.reuse_unused_aggregate", &o5);
	call_order("opt.reuse_unused_aggregate", kpd_fopt);
	show("opt.reuse_unused_aggregate", &o5);
	R("opt.reuse_unused_aggregate", "A.addr=%s", SYM(o1.kp.addr));
}

static void ph_opt_unreg(void)
{
	struct kprobe *kps[3] = { &o5.kp, &o3.kp, &o6.kp };

	unregister_kprobes(kps, 3);
	call_order("opt.unregister", kpd_fopt3);
	call_order("opt.unregister", kpd_fopt);
	call_order("opt.unregister", kpd_fopt2);
	R("opt.unregister", "E.addr=%s", SYM(o5.kp.addr));
}

/* ---- phases: flushing the optimizer, sibling re-optimization (x86) ---------------- */

#ifdef KPD_OPTPROBES
/*
 * kprobes/list shows KPROBE_FLAG_OPTIMIZED, which the core sets when it
 * queues an optimization and clears when the optimizer has taken the jump
 * out again; whether the jump is in the text only the text says (x86: a
 * jmp rel32 where the int3 was).  The optimizer holds kprobe_mutex for a
 * whole pass, so a kprobes API call that takes kprobe_mutex after a change
 * of the text was seen returns after the pass that made it has ended.
 */
static bool kpd_jump_at(const void *addr)
{
	return READ_ONCE(*(const u8 *)addr) == JMP32_INSN_OPCODE;
}

/* Wait up to 10 s until the optimizer's jump at addr is there (want) or gone; 1 if so. */
static int kpd_wait_jump(const void *addr, bool want)
{
	int i;

	for (i = 0; i < 500 && kpd_jump_at(addr) != want; i++)
		msleep(20);
	return kpd_jump_at(addr) == want;
}

/*
 * Flushes (phases flush_*; the job writes kprobes/enabled and the sysctl in
 * between and lists kprobes/list right after each write, without polling).
 * Writing 0 to kprobes/enabled or debug.kprobes-optimization returns only
 * once the optimizer's queues are empty; writing 1, registering and
 * enabling queue optimizations and set KPROBE_FLAG_OPTIMIZED at once.  So
 * the listing after each of those is the same whenever the optimizer runs.
 * A, B, C: one optimizable probe on each of kpd_ffl1..3; D: registered at
 * A's address as soon as A is unregistered (its dying aggregate reused if
 * the optimizer has not freed it yet, else a new one).  A probe is enabled
 * again only after a flush, never while its unoptimization is queued.
 */
static struct kpd_kp f1, f2, f3, f4;

static void flush_calls(const char *scn)
{
	order_reset();
	CALL(kpd_ffl1, 1); CALL(kpd_ffl2, 1); CALL(kpd_ffl3, 1);
	R(scn, "order=%s", order_str());
	R(scn, "A.flags=0x%x", f1.kp.flags);
	R(scn, "B.flags=0x%x", f2.kp.flags);
	R(scn, "C.flags=0x%x", f3.kp.flags);
	R(scn, "D.flags=0x%x", f4.kp.flags);
}

static void ph_flush_reg(void)
{
	memset(&f4, 0, sizeof(f4));
	kpi(&f1, 'A', "kpd_ffl1", KPD_MID, true, false);
	kpi(&f2, 'B', "kpd_ffl2", KPD_MID, true, false);
	kpi(&f3, 'C', "kpd_ffl3", KPD_MID, true, false);
	reg("flush.registered", &f1);
	reg("flush.registered", &f2);
	reg("flush.registered", &f3);
	flush_calls("flush.registered");
}

/* B disabled with its jump in the text: its unoptimization is queued. */
static void ph_flush_disable(void)
{
	R("flush.disable_optimized", "B.jump_written=%d", kpd_wait_jump(f2.kp.addr, true));
	R("flush.disable_optimized", "B.disable.rc=%d", disable_kprobe(&f2.kp));
	flush_calls("flush.disable_optimized");
}

static void ph_flush_enable_b(void)
{
	R("flush.enable_while_sysctl_0", "B.enable.rc=%d", enable_kprobe(&f2.kp));
	flush_calls("flush.enable_while_sysctl_0");
}

static void ph_flush_rereg(void)
{
	R("flush.reregister", "A.jump_written=%d", kpd_wait_jump(f1.kp.addr, true));
	unregister_kprobe(&f1.kp);
	kpi(&f4, 'D', "kpd_ffl1", KPD_MID, true, false);
	reg("flush.reregister", &f4);
	flush_calls("flush.reregister");
}

static void ph_flush_disable_c(void)
{
	R("flush.disable_then_sysctl_0", "C.jump_written=%d", kpd_wait_jump(f3.kp.addr, true));
	R("flush.disable_then_sysctl_0", "C.disable.rc=%d", disable_kprobe(&f3.kp));
}

static void ph_flush_enable_c(void)
{
	R("flush.enable_after_flush", "C.enable.rc=%d", enable_kprobe(&f3.kp));
	flush_calls("flush.enable_after_flush");
}

static void ph_flush_unreg(void)
{
	struct kprobe *kps[3] = { &f4.kp, &f2.kp, &f3.kp };

	unregister_kprobes(kps, 3);
	flush_calls("flush.unregister");
}

/*
 * Sibling re-optimization (phases sib_*): Q at kpd_fsib+12, optimized,
 * keeps P at kpd_fsib+9 an int3 probe, since P's jump would cover Q
 * (arch_check_optimized_kprobe()).  When the optimizer frees Q's aggregate
 * after Q was unregistered, 7.3's do_free_cleaned_kprobes() optimizes P
 * (kprobes/list: [OPTIMIZED]); 6.12 leaves it an int3 probe.  A Q merely
 * disabled keeps its aggregate, and P stays an int3 probe on both.  Each
 * step that takes Q's jump out waits until the text has changed, then
 * calls enable_kprobe() of the enabled P (nothing to do, but it takes
 * kprobe_mutex), so the optimizer's pass has ended when the job lists.
 */
static struct kpd_kp sp, sq;

static bool sib_layout_ok(void)
{
	static const u8 want[] = { 0x48, 0x63, 0xc7, 0x48, 0x8d, 0x40, 0x01 };

	/* computed at run time, as with kpd_four */
	return !memcmp((u8 *)kpd_fsib + kpd_one * KPD_SIB_P, want, sizeof(want));
}

/* Q's jump gone, the optimizer's pass over: then P as the job lists it. */
static void sib_after_unopt(const char *scn, void *q_addr)
{
	R(scn, "Q.jump_removed=%d", kpd_wait_jump(q_addr, false));
	R(scn, "P.enable.rc=%d", enable_kprobe(&sp.kp));
	call_order(scn, kpd_fsib);
}

static void ph_sib_reg(void)
{
	R("sibling.blocked", "layout_ok=%d", sib_layout_ok());
	kpi(&sq, 'Q', "kpd_fsib", KPD_SIB_Q, true, false);
	kpi(&sp, 'P', "kpd_fsib", KPD_SIB_P, true, false);
	reg("sibling.blocked", &sq);
	reg("sibling.blocked", &sp);
	R("sibling.blocked", "Q.jump_written=%d", kpd_wait_jump(sq.kp.addr, true));
	call_order("sibling.blocked", kpd_fsib);
}

static void ph_sib_disable_q(void)
{
	R("sibling.neighbour_disabled", "Q.disable.rc=%d", disable_kprobe(&sq.kp));
	sib_after_unopt("sibling.neighbour_disabled", sq.kp.addr);
}

static void ph_sib_enable_q(void)
{
	R("sibling.neighbour_enabled", "Q.enable.rc=%d", enable_kprobe(&sq.kp));
	R("sibling.neighbour_enabled", "Q.jump_written=%d", kpd_wait_jump(sq.kp.addr, true));
	call_order("sibling.neighbour_enabled", kpd_fsib);
}

static void ph_sib_unreg_q(void)
{
	void *q_addr = sq.kp.addr;

	unregister_kprobe(&sq.kp);
	sib_after_unopt("sibling.neighbour_freed", q_addr);
}

static void ph_sib_unreg(void)
{
	unregister_kprobe(&sp.kp);
	call_order("sibling.unregistered", kpd_fsib);
}

/*
 * Intended divergence 3 (divergences.txt): an optimized probe disabled, its
 * unoptimization queued with the jump still in the text, and enabled again
 * at once, well within the optimizer's OPTIMIZE_DELAY.  Upstream's
 * arm_kprobe() writes an int3 over the jump's first byte, then
 * optimize_kprobe() takes the probe off the unoptimizing list: the probe
 * keeps KPROBE_FLAG_OPTIMIZED with an int3 in the text for good, and its
 * hits trap (x86 detours them through the optimized copy).  The Rust core
 * cancels the queued unoptimization: the jump stays.  The first text byte
 * is read as what it is: the jump, an int3, or the original instruction's
 * (the probe's saved opcode).
 */
#define KPD_EQ "opt.enable_while_unopt_queued"
static struct kpd_kp eq;

static const char *kpd_text0(const struct kprobe *p)
{
	u8 b = READ_ONCE(*(const u8 *)p->addr);

	if (b == JMP32_INSN_OPCODE)
		return "jump";
	if (b == INT3_INSN_OPCODE)
		return "int3";
	return b == p->opcode ? "original" : "other";
}

static void ph_opt_enable_queued(void)
{
	kpi(&eq, 'Q', "kpd_feq", KPD_MID, true, false);
	reg(KPD_EQ, &eq);
	R(KPD_EQ, "jump_written=%d", kpd_wait_jump(eq.kp.addr, true));
	R(KPD_EQ, "disable.rc=%d", disable_kprobe(&eq.kp));
	R(KPD_EQ, "enable.rc=%d", enable_kprobe(&eq.kp));
	R(KPD_EQ, "text0=%s", kpd_text0(&eq.kp));
	/* Long after the optimizer's pass, if one was queued. */
	msleep(500);
	R(KPD_EQ, "text0_later=%s", kpd_text0(&eq.kp));
	call_order(KPD_EQ, kpd_feq);
	show(KPD_EQ, &eq);
}

/* Unregister, wait for the original first byte (the optimizer's pass), call. */
static void unreg_call(const char *scn, struct kpd_kp *k, int (*f)(int))
{
	int i;

	unregister_kprobe(&k->kp);
	for (i = 0; i < 500 && READ_ONCE(*(const u8 *)k->kp.addr) != k->kp.opcode; i++)
		msleep(20);
	R(scn, "unregistered.text0=%s", kpd_text0(&k->kp));
	call_order(scn, f);
}

static void ph_opt_enable_queued_unreg(void)
{
	unreg_call(KPD_EQ, &eq, kpd_feq);
}

/*
 * Intended divergence 6 (divergences.txt): kprobes/enabled = 0 while an
 * optimized probe's unoptimization is queued.  The job's
 * div_disarm_all_unopt_queued() writes debug.kprobes-optimization = 0 from a
 * child that then waits for the optimizer, keeps the optimizer from running
 * (real-time spinners on every CPU; phases sched_*), writes kprobes/enabled
 * = 0 and calls the probed function through phase div_dq_call, then lets
 * the optimizer run and calls it again.  Upstream's disarm_all_kprobes()
 * forcibly unoptimizes the probe but does not disarm it, since it is queued
 * (now on the freeing list), and the optimizer disarms only disabled probes
 * there: the int3 stays and the probe fires while all are disarmed.  The
 * Rust core disarms it at once.
 */
#define KPD_DQ "div.disarm_all_unopt_queued"
static struct kpd_kp dq;

static void ph_div_dq_reg(void)
{
	kpi(&dq, 'P', "kpd_fdq", KPD_MID, true, false);
	reg(KPD_DQ, &dq);
	R(KPD_DQ, "jump_written=%d", kpd_wait_jump(dq.kp.addr, true));
}

static void ph_div_dq_call(void)
{
	R(KPD_DQ, "text0=%s", kpd_text0(&dq.kp));
	call_order(KPD_DQ, kpd_fdq);
}

static void ph_div_dq_unreg(void)
{
	unreg_call(KPD_DQ, &dq, kpd_fdq);
}
#endif /* KPD_OPTPROBES */

/* ---- phase: kprobes/enabled (the job writes 0/1 in between) ---------------------------- */

static struct kpd_kp e1, e2, e4, e5;

static void en_calls(const char *scn)
{
	order_reset();
	CALL(kpd_fd, 1); CALL(kpd_fe, 1); CALL(kpd_fc, 1); CALL(kpd_fa, 1);
	R(scn, "order=%s", order_str());
	R(scn, "X.flags=0x%x", e1.kp.flags);
	R(scn, "Y.flags=0x%x", e2.kp.flags);
	R(scn, "Z.flags=0x%x", e4.kp.flags);
	R(scn, "V.flags=0x%x", e5.kp.flags);
}

/*
 * enable_kprobe() while kprobes/enabled is 0, kept in a scenario of its own
 * (enabled.enable_while_off, functions kpd_fu*): upstream returns 0 but
 * leaves a single probe's (U1, U3) or the aggregate's (U2) DISABLED flag
 * set, so the probe never fires once kprobes/enabled is 1 again.
 */
static struct kpd_kp u1, u2, u3;
#define EWO "enabled.enable_while_off"

static void ewo_calls(void)
{
	order_reset();
	CALL(kpd_fu1, 1); CALL(kpd_fu2, 1); CALL(kpd_fu3, 1);
	R(EWO, "order=%s", order_str());
	R(EWO, "U1.flags=0x%x", u1.kp.flags);
	R(EWO, "U2.flags=0x%x", u2.kp.flags);
	R(EWO, "U3.flags=0x%x", u3.kp.flags);
}

static void ph_en_setup(void)
{
	kpi(&e1, 'X', "kpd_fd", 0, true, false);		/* enabled throughout */
	kpi(&e2, 'Y', "kpd_fe", KPD_MID, true, true);		/* registered disabled, stays so */
	e2.kp.flags = KPROBE_FLAG_DISABLED;
	memset(&e4, 0, sizeof(e4));
	e4.tag = 'Z';
	memset(&e5, 0, sizeof(e5));
	e5.tag = 'V';
	reg("enabled.setup", &e1); reg("enabled.setup", &e2);
	en_calls("enabled.setup");

	kpi(&u1, 'A', "kpd_fu1", 0, true, false);		/* single ftrace probe */
	kpi(&u2, 'B', "kpd_fu2", KPD_MID, true, false);	/* child of an optprobe aggregate */
	u2.kp.flags = KPROBE_FLAG_DISABLED;
	kpi(&u3, 'C', "kpd_fu3", KPD_MID, true, true);	/* single int3 probe */
	u3.kp.flags = KPROBE_FLAG_DISABLED;
	reg(EWO, &u1); reg(EWO, &u2); reg(EWO, &u3);
	ewo_calls();
}

static void ph_en_off(void)
{
	en_calls("enabled.off");
	kpi(&e4, 'Z', "kpd_fa", 0, true, false);
	reg("enabled.register_while_off", &e4);
	en_calls("enabled.off_after_register");
	/* join X's address and leave again while everything is disarmed */
	kpi(&e5, 'V', "kpd_fd", 0, true, true);
	reg("enabled.aggregate_while_off", &e5);
	en_calls("enabled.aggregate_while_off");
	R("enabled.aggregate_while_off", "V.flags=0x%x", e5.kp.flags);
	unregister_kprobe(&e5.kp);
	R("enabled.aggregate_while_off", "V.addr_after_unregister=%s", SYM(e5.kp.addr));
	kpi(&e5, 'V', "kpd_fe", KPD_MID, true, false);	/* joins Y (disabled), stays registered */
	reg("enabled.aggregate_while_off", &e5);

	R(EWO, "U1.disable.rc=%d", disable_kprobe(&u1.kp));
	R(EWO, "U1.enable.rc=%d", enable_kprobe(&u1.kp));
	R(EWO, "U2.enable.rc=%d", enable_kprobe(&u2.kp));
	R(EWO, "U3.enable.rc=%d", enable_kprobe(&u3.kp));
	ewo_calls();
}

static void ph_en_on(void)
{
	en_calls("enabled.on");
	ewo_calls();
}

static void ph_en_cleanup(void)
{
	struct kprobe *kps[4] = { &e1.kp, &e2.kp, &e4.kp, &e5.kp };
	struct kprobe *ups[3] = { &u1.kp, &u2.kp, &u3.kp };

	unregister_kprobes(kps, 4);
	unregister_kprobes(ups, 3);
	ewo_calls();
	en_calls("enabled.cleanup");
}

/* ---- phase: kretprobes ------------------------------------------------------------ */

static struct kpd_rp k1, k2;

static void ph_kret(void)
{
	int i;

	rpi(&k1, 'R', "kpd_fadd", 0, true, sizeof(struct kpd_rp_data));
	rreg("kret.basic", &k1);
	R("kret.basic", "maxactive_default_ge_10=%d", k1.rp.maxactive >= 10);
	for (i = 1; i <= 3; i++)
		CALL2(kpd_fadd, i, 1000);
	rshow("kret.basic", &k1);
	R("kret.basic", "retval=%d", k1.last_retval);
	unregister_kretprobe(&k1.rp);
	CALL2(kpd_fadd, 1, 1000);
	R("kret.basic", "ret_after_unregister=%d", atomic_read(&k1.ret));

	/* maxactive 0 (default: max(10, 2 * possible CPUs)) on a recursion deeper than that */
	rpi(&k1, 'R', "kpd_frec", 0, true, sizeof(struct kpd_rp_data));
	rreg("kret.maxactive_default_recursive", &k1);
	order_reset();
	CALL(kpd_frec, 4);
	R("kret.maxactive_default_recursive", "order_depth4=%s", order_str());
	CALL(kpd_frec, k1.rp.maxactive + 4);
	rshow("kret.maxactive_default_recursive", &k1);
	unregister_kretprobe(&k1.rp);

	rpi(&k1, 'R', "kpd_frec", 0, true, sizeof(struct kpd_rp_data));
	k1.rp.maxactive = 1;
	rreg("kret.maxactive1_recursive", &k1);
	order_reset();
	CALL(kpd_frec, 5);
	R("kret.maxactive1_recursive", "order=%s", order_str());
	rshow("kret.maxactive1_recursive", &k1);
	unregister_kretprobe(&k1.rp);
	/* nmissed starts at 0 again on re-registration */
	k1.rp.kp.addr = NULL;
	k1.rp.maxactive = 1;
	rreg("kret.reregister_resets_nmissed", &k1);
	R("kret.reregister_resets_nmissed", "nmissed=%d", k1.rp.nmissed);
	unregister_kretprobe(&k1.rp);

	rpi(&k1, 'R', "kpd_fadd", 0, true, 0);
	k1.entry_ret = 1;
	rreg("kret.entry_handler_nonzero", &k1);
	order_reset();
	CALL2(kpd_fadd, 1, 1000); CALL2(kpd_fadd, 2, 1000);
	R("kret.entry_handler_nonzero", "order=%s", order_str());
	rshow("kret.entry_handler_nonzero", &k1);
	unregister_kretprobe(&k1.rp);

	rpi(&k1, 'R', "kpd_fadd", 0, true, sizeof(struct kpd_rp_data));
	k1.entry_ret = 2;
	rreg("kret.entry_handler_odd_args", &k1);
	order_reset();
	for (i = 1; i <= 4; i++)
		CALL2(kpd_fadd, i, 1000);
	R("kret.entry_handler_odd_args", "order=%s", order_str());
	rshow("kret.entry_handler_odd_args", &k1);
	unregister_kretprobe(&k1.rp);

	/* data_size: what the entry handler stores is what the return handler sees (LIFO pairing) */
	rpi(&k1, 'R', "kpd_frec", 0, true, sizeof(struct kpd_rp_data));
	k1.rp.maxactive = 16;
	rreg("kret.data_pairing_nested", &k1);
	order_reset();
	CALL(kpd_frec, 6);
	R("kret.data_pairing_nested", "order=%s", order_str());
	rshow("kret.data_pairing_nested", &k1);

	/* two kretprobes on one function */
	rpi(&k2, 'S', "kpd_frec", 0, false, 0);
	rreg("kret.two_on_one_function", &k2);
	order_reset();
	CALL(kpd_frec, 2);
	R("kret.two_on_one_function", "order=%s", order_str());
	rshow("kret.two_on_one_function", &k2);
	R("kret.two_on_one_function", "R.ret=%d", atomic_read(&k1.ret));
	R("kret.two_on_one_function", "S.flags=0x%x", k2.rp.kp.flags);
	unregister_kretprobe(&k1.rp);
	order_reset();
	CALL(kpd_frec, 1);
	R("kret.two_on_one_function", "order_after_unregister=%s", order_str());
	unregister_kretprobe(&k2.rp);

	/* registered disabled, then enabled */
	rpi(&k1, 'R', "kpd_fadd", 0, true, 0);
	k1.rp.kp.flags = KPROBE_FLAG_DISABLED;
	rreg("kret.registered_disabled", &k1);
	CALL2(kpd_fadd, 1, 1000);
	rshow("kret.registered_disabled", &k1);
	R("kret.registered_disabled", "enable.rc=%d", enable_kprobe(&k1.rp.kp));
	CALL2(kpd_fadd, 1, 1000);
	rshow("kret.registered_disabled", &k1);
	unregister_kretprobe(&k1.rp);

	/* a batch of kretprobes */
	{
		struct kretprobe *rps[2] = { &k1.rp, &k2.rp };

		rpi(&k1, 'R', "kpd_fa", 0, true, 0);
		rpi(&k2, 'S', "kpd_fb", 0, true, 0);
		R("kret.batch", "rc=%d", register_kretprobes(rps, 2));
		CALL(kpd_fa, 1); CALL(kpd_fb, 1); CALL(kpd_fb, 1);
		rshow("kret.batch", &k1);
		rshow("kret.batch", &k2);
		unregister_kretprobes(rps, 2);
		CALL(kpd_fa, 1);
		R("kret.batch", "R.entry_after=%d", atomic_read(&k1.entry));
	}
}

/* ---- modules ------------------------------------------------------------------ */

static struct kpd_target *tgt;
static int owner_hits_owned_last = -1, owner_hits_self_last = -1;
static bool init_armed;
static struct kpd_kp mi, g1, g2, g3, g4;
static struct kpd_rp gr;
static int mi_rc = 1;

int kpd_target_register(struct kpd_target *t)
{
	tgt = t;
	return 0;
}
EXPORT_SYMBOL_GPL(kpd_target_register);

void kpd_target_unregister(struct kpd_target *t)
{
	owner_hits_owned_last = atomic_read(&t->owner_hits_owned);
	owner_hits_self_last = atomic_read(&t->owner_hits_self);
	tgt = NULL;
}
EXPORT_SYMBOL_GPL(kpd_target_unregister);

static int kpd_mod_cb(struct notifier_block *nb, unsigned long val, void *data)
{
	struct module *mod = data;

	if (val != MODULE_STATE_COMING || !init_armed || strcmp(mod->name, "kprobes_diff_target"))
		return NOTIFY_DONE;
	init_armed = false;
	kpi(&mi, 'I', "kpd_t_init_helper", 0, true, false);
	mi_rc = register_kprobe(&mi.kp);
	return NOTIFY_DONE;
}

static struct notifier_block kpd_mod_nb = { .notifier_call = kpd_mod_cb };

static void ph_mod_arm_init(void)
{
	init_armed = true;
	mi_rc = 1;
	R("mod.harness", "armed=1");
}

static void ph_mod_loaded(void)
{
	int rc;

	if (!tgt) {
		R("mod.harness", "target_loaded=0");
		return;
	}
	/* probe registered on the init text while the module was COMING */
	R("mod.init_text_probe_while_coming", "rc=%d", mi_rc);
	R("mod.init_text_probe_while_coming", "init_helper_ret=%d", tgt->init_helper_ret);
	show("mod.init_text_probe_while_coming", &mi);
	if (!mi_rc) {
		R("mod.init_text_probe_while_coming", "enable.rc=%d", enable_kprobe(&mi.kp));
		unregister_kprobe(&mi.kp);
		R("mod.init_text_probe_while_coming", "unregistered=1");
	}
	/* init text after init: by symbol and by the address it had */
	try_kp("mod.init_text_after_init_symbol", "kpd_t_init_helper", NULL, 0);
	kpi(&t1, 'P', NULL, 0, true, false);
	t1.kp.addr = (void *)tgt->init_helper_addr;
	rc = register_kprobe(&t1.kp);
	R("mod.init_text_after_init_addr", "rc=%d", rc);
	if (!rc)
		unregister_kprobe(&t1.kp);

	/* the probes the target module owns */
	R("mod.owner_probes", "owned.rc=%d", tgt->owner_rc_owned);
	R("mod.owner_probes", "self.rc=%d", tgt->owner_rc_self);
	CALL(kpd_fowned, 1);
	CALL(tgt->self, 1);
	R("mod.owner_probes", "owned.hits=%d", atomic_read(&tgt->owner_hits_owned));
	R("mod.owner_probes", "self.hits=%d", atomic_read(&tgt->owner_hits_self));

	/* probes on the target's functions, which then goes away */
	/* G has a post handler: see aggr_run() on post handlers joining ftrace aggregates */
	kpi(&g1, 'G', "kpd_t_gone", 0, true, true);
	kpi(&g2, 'H', "kpd_t_gone", KPD_MID, true, true);
	kpi(&g3, 'J', "kpd_t_gone", 0, true, true);
	rpi(&gr, 'R', "kpd_t_gone2", 0, true, 0);
	reg("mod.gone_setup", &g1); reg("mod.gone_setup", &g2); reg("mod.gone_setup", &g3);
	rreg("mod.gone_setup", &gr);
	order_reset();
	CALL(tgt->gone, 1);
	CALL(tgt->gone2, 1);
	R("mod.gone_setup", "order=%s", order_str());
	show("mod.gone_setup", &g1); show("mod.gone_setup", &g2); show("mod.gone_setup", &g3);
	rshow("mod.gone_setup", &gr);
}

static void ph_mod_gone(void)
{

	R("mod.harness", "target_loaded=%d", tgt != NULL);
	R("mod.owner_unloaded", "owned.hits_at_exit=%d", owner_hits_owned_last);
	R("mod.owner_unloaded", "self.hits_at_exit=%d", owner_hits_self_last);
	CALL(kpd_fowned, 1);	/* the owner's probe is gone with it: must not fire */
	R("mod.owner_unloaded", "called_after=1");
	show("mod.gone", &g1); show("mod.gone", &g2); show("mod.gone", &g3);
	R("mod.gone", "R.flags=0x%x", gr.rp.kp.flags);
	R("mod.gone_enable_disable", "G.enable.rc=%d", enable_kprobe(&g1.kp));
	R("mod.gone_enable_disable", "H.disable.rc=%d", disable_kprobe(&g2.kp));
	R("mod.gone_enable_disable", "R.enable.rc=%d", enable_kprobe(&gr.rp.kp));
	R("mod.gone_enable_disable", "H.flags=0x%x", g2.kp.flags);
	/* G and R go now; H (mid) and J (entry) stay registered, gone, across the reload */
	unregister_kprobe(&g1.kp);
	unregister_kretprobe(&gr.rp);
	R("mod.gone_unregister", "G.flags=0x%x", g1.kp.flags);
	R("mod.gone_unregister", "R.flags=0x%x", gr.rp.kp.flags);
	R("mod.gone_unregister", "done=1");
}

static int mod_reload_rc;
static void ph_mod_reload(void)
{
	int rc;

	if (!tgt) {
		R("mod.harness", "target_loaded=0");
		return;
	}
	/*
	 * New probes on the reloaded module's function, while the gone
	 * probes H (mid) and J (entry) of the previous instance are still
	 * registered (at the same addresses if the module landed where it
	 * was: upstream then revives the gone aggregate).
	 */
	kpi(&g1, 'G', "kpd_t_gone", 0, true, false);
	kpi(&g4, 'K', "kpd_t_gone", KPD_MID, true, false);
	rc = reg("mod.reloaded", &g1);
	reg("mod.reloaded", &g4);
	call_order("mod.reloaded", tgt->gone);
	show("mod.reloaded", &g1);
	show("mod.reloaded", &g4);
	show("mod.reloaded", &g2);
	show("mod.reloaded", &g3);
	show_addr("mod.reloaded", &g1);
	R("mod.reloaded_gone_enable", "J.rc=%d", enable_kprobe(&g3.kp));
	R("mod.reloaded_gone_enable", "H.rc=%d", enable_kprobe(&g2.kp));
	call_order("mod.reloaded_gone_enable", tgt->gone);
	mod_reload_rc = rc;
}

static void ph_mod_reload_unreg(void)
{
	if (!tgt) {
		R("mod.harness", "target_loaded=0");
		return;
	}
	if (!mod_reload_rc)
		unregister_kprobe(&g1.kp);
	unregister_kprobe(&g4.kp);
	call_order("mod.reloaded_unregister_new", tgt->gone);
	unregister_kprobe(&g2.kp);
	unregister_kprobe(&g3.kp);
	call_order("mod.reloaded_unregister_gone", tgt->gone);
	R("mod.reloaded_unregister_gone", "H.flags=0x%x", g2.kp.flags);
	R("mod.reloaded_unregister_gone", "J.flags=0x%x", g3.kp.flags);
}

/* ---- scale ------------------------------------------------------------------ */

#define NSCALE 320
static struct kpd_kp *sc;
static struct kprobe **sckps;

static void scale_init(int bad_at)
{
	int i;

	for (i = 0; i < NSCALE; i++) {
		/* 64 functions x 5 probes: 3 at the entry (ftrace), 2 mid-function */
		int fn = i % 64, slot = i / 64;

		kpi(&sc[i], 'a' + slot, kpd_fs_name[fn], slot < 3 ? 0 : KPD_MID, true, slot == 4);
		if (i == bad_at)
			sc[i].kp.symbol_name = "kpd_no_such_symbol";
		sckps[i] = &sc[i].kp;
	}
}

static void scale_count(const char *scn)
{
	int i, pre = 0, post = 0, ftrace = 0, disabled = 0, nmissed = 0;

	for (i = 0; i < NSCALE; i++) {
		pre += atomic_read(&sc[i].pre);
		post += atomic_read(&sc[i].post);
		ftrace += !!(sc[i].kp.flags & KPROBE_FLAG_FTRACE);
		disabled += !!(sc[i].kp.flags & KPROBE_FLAG_DISABLED);
		nmissed += sc[i].kp.nmissed;
	}
	R(scn, "pre=%d", pre);
	R(scn, "post=%d", post);
	R(scn, "ftrace_flagged=%d", ftrace);
	R(scn, "disabled_flagged=%d", disabled);
	R(scn, "nmissed=%d", nmissed);
}

static void scale_call_all(void)
{
	int i;

	for (i = 0; i < 64; i++)
		CALL(kpd_fs[i], i);
}

static void ph_scale(void)
{
	int i, rc, einval;

	sc = vzalloc(sizeof(*sc) * NSCALE);
	sckps = vzalloc(sizeof(*sckps) * NSCALE);
	if (!sc || !sckps) {
		R("scale.harness", "alloc=failed");
		goto out;
	}
	scale_init(-1);
	rc = register_kprobes(sckps, NSCALE);
	R("scale.batch_320", "rc=%d", rc);
	scale_call_all();
	scale_count("scale.batch_320");
	for (i = 0; i < NSCALE; i += 2)
		disable_kprobe(sckps[i]);
	scale_call_all();
	scale_count("scale.batch_320_half_disabled");
	unregister_kprobes(sckps, NSCALE);
	scale_call_all();
	scale_count("scale.batch_320_unregistered");

	scale_init(200);
	rc = register_kprobes(sckps, NSCALE);
	R("scale.batch_rollback_at_200", "rc=%d", rc);
	scale_call_all();
	scale_count("scale.batch_rollback_at_200");
	for (einval = 0, i = 0; i < NSCALE; i++)
		einval += enable_kprobe(sckps[i]) == -EINVAL;
	R("scale.batch_rollback_at_200", "enable_einval=%d", einval);
out:
	vfree(sc);
	vfree(sckps);
	sc = NULL;
	sckps = NULL;
}

/* ---- scale: thousands of probes in one batch ---------------------------------------- */

/*
 * Generated targets, as tools/testing/bench/gen_funcs.py does it but with the
 * preprocessor (nothing to generate at build time): KPD_BIG_N functions
 * kpd_bg_0000.. (ftrace sites) and KPD_BN_N kpd_bn_0000.. (notrace).  Each is
 * endbr64, in kpd_bg_* the 5-byte __fentry__ call at +4, then movslq (3
 * bytes) and three 64-bit lea: in kpd_bg_* +4 is the ftrace site, +9 an
 * instruction boundary (the movslq) and +10 inside it; in kpd_bn_* an
 * entry probe is an int3 probe at +4.  The constants differ so that no two
 * bodies are identical (no identical-code folding).
 */
#define KPD_BIG_N 2000
#define KPD_BN_N 500
#ifdef CONFIG_ARM64
#define KPD_BIG_ASM(v) asm volatile("add %0, %0, #1\n\tadd %0, %0, #2\n\tadd %0, %0, #3" : "+r"(v))
#elif defined(CONFIG_RISCV)
/* riscv64: uncompressed, so that KPD_INSIDE falls inside an instruction */
#define KPD_BIG_ASM(v) asm volatile(".option push\n\t.option norvc\n\taddi %0, %0, 1\n\t"	\
				    "addi %0, %0, 2\n\taddi %0, %0, 3\n\t.option pop" : "+r"(v))
#else
#define KPD_BIG_ASM(v) asm volatile("lea 1(%0), %0\n\tlea 2(%0), %0\n\tlea 3(%0), %0" : "+r"(v))
#endif
#define KPD_BIG_BODY(k)								\
	{									\
		long v = x;							\
										\
		KPD_BIG_ASM(v);							\
		return v + (k);							\
	}
#define KPD_BG_DEF(i) noinline int kpd_bg_##i(int x) KPD_BIG_BODY(1##i)
#define KPD_BN_DEF(i) notrace noinline int kpd_bn_##i(int x) KPD_BIG_BODY(2##i)
#define KPD_BG_PTR(i) kpd_bg_##i,
#define KPD_BN_PTR(i) kpd_bn_##i,
#define KPD_BG_NAME(i) "kpd_bg_" #i,
/* 10, 100 (pp00..pp99), 1000 (p000..p999), 2000 (0000..1999) expansions of m(4-digit index) */
#define KPD_X0(m, p) m(p##0) m(p##1) m(p##2) m(p##3) m(p##4) m(p##5) m(p##6) m(p##7) m(p##8) m(p##9)
#define KPD_X1(m, p) KPD_X0(m, p##0) KPD_X0(m, p##1) KPD_X0(m, p##2) KPD_X0(m, p##3) KPD_X0(m, p##4) \
		     KPD_X0(m, p##5) KPD_X0(m, p##6) KPD_X0(m, p##7) KPD_X0(m, p##8) KPD_X0(m, p##9)
#define KPD_X2(m, p) KPD_X1(m, p##0) KPD_X1(m, p##1) KPD_X1(m, p##2) KPD_X1(m, p##3) KPD_X1(m, p##4) \
		     KPD_X1(m, p##5) KPD_X1(m, p##6) KPD_X1(m, p##7) KPD_X1(m, p##8) KPD_X1(m, p##9)
#define KPD_XALL(m) KPD_X2(m, 0) KPD_X2(m, 1)

KPD_XALL(KPD_BG_DEF)
KPD_X1(KPD_BN_DEF, 00) KPD_X1(KPD_BN_DEF, 01) KPD_X1(KPD_BN_DEF, 02) KPD_X1(KPD_BN_DEF, 03) KPD_X1(KPD_BN_DEF, 04)
static int (*const kpd_bg[KPD_BIG_N])(int) = { KPD_XALL(KPD_BG_PTR) };
static int (*const kpd_bn[KPD_BN_N])(int) = {
	KPD_X1(KPD_BN_PTR, 00) KPD_X1(KPD_BN_PTR, 01) KPD_X1(KPD_BN_PTR, 02) KPD_X1(KPD_BN_PTR, 03) KPD_X1(KPD_BN_PTR, 04)
};
static const char *const kpd_bg_name[KPD_BIG_N] = { KPD_XALL(KPD_BG_NAME) };

/* A blacklisted (NOKPROBE_SYMBOL) function of this module. */
noinline int kpd_big_nokprobe(int x) KPD_BIG_BODY(7)
NOKPROBE_SYMBOL(kpd_big_nokprobe);

struct kpd_big {
	union {
		struct kprobe kp;
		struct kretprobe rp;
	};
	atomic_t a, b;		/* kprobe: pre handler runs; kretprobe: entry, return handler runs */
};

static struct kpd_big *big;
static void **bigp;		/* the batch: struct kprobe * or struct kretprobe * */
static bool big_live;		/* the batch of big_cur is registered */

/*
 * The four families.  Each runs three steps (phase "big FAMILY STEP"):
 *   bad  one register_k*probes() of n members whose member bad_at is
 *        invalid: its error code, then every function called once (no
 *        handler may run: nothing of the batch stays registered; the job
 *        lists kprobes/list after it);
 *   reg  the same batch with every member valid (a follow-up registration
 *        of the valid members must succeed): rc, resolved offsets, flags;
 *   run  every function called once: each probe must have run exactly
 *        once; unregister_k*probes(), every function called again: no
 *        handler may run.
 */
struct kpd_big_family {
	const char *name;	/* phase argument and scenario scale.big_<name>_* */
	bool kret;
	int n, bad_at;
	int (*const *fn)(int);
	const char *const *sym;	/* register by symbol_name (else by .addr) */
	unsigned int off, bad_off;	/* offset of every member; of member bad_at */
	const char *bad_sym;	/* symbol_name of member bad_at (else the valid one) */
};

/*
 * Sizes: under QEMU TCG (2 vCPUs) arming or disarming one ftrace-based probe
 * costs ~10 ms of guest time on both cores (each is an ftrace filter update
 * of its own), an int3 probe ~4.5 ms to arm: 2000 of each kind
 * (register, roll back at 1500, register, unregister) made the suite ~3
 * minutes longer per kernel.  So only the int3 kprobe batch has 2000
 * members, the ftrace batches are smaller and their invalid member comes
 * early (together ~1 minute per kernel).
 */
/* Not const: n and bad_at are divided by big_div at load (kpd_init). */
static struct kpd_big_family kpd_big_families[] = {
	/* kprobes on function entries (ftrace), by name; member bad_at: no such symbol */
	{ "kprobe_entry", false, 1000, 100, kpd_bg, kpd_bg_name, 0, 0, "kpd_no_such_symbol" },
	/* int3 kprobes at +9, by address; member bad_at: +10 (inside an instruction) */
	{ "kprobe_int3", false, KPD_BIG_N, 250, kpd_bg, NULL, KPD_MID, KPD_INSIDE, NULL },
	/* kretprobes on function entries (ftrace), by name; member bad_at: blacklisted */
	{ "kretprobe_entry", true, 400, 100, kpd_bg, kpd_bg_name, 0, 0, "kpd_big_nokprobe" },
	/* kretprobes on notrace functions (int3 at +4), by address; member bad_at: +9 (not an entry) */
	{ "kretprobe_int3", true, KPD_BN_N, 250, kpd_bn, NULL, 0, KPD_MID, NULL },
};
static const struct kpd_big_family *big_cur;

static int big_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&container_of(p, struct kpd_big, kp)->a);
	return 0;
}

static int big_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_inc(&container_of(get_kretprobe(ri), struct kpd_big, rp)->a);
	return 0;
}

static int big_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_inc(&container_of(get_kretprobe(ri), struct kpd_big, rp)->b);
	return 0;
}

static void big_init(const struct kpd_big_family *f, bool with_bad)
{
	int i;

	memset(big, 0, sizeof(*big) * f->n);
	for (i = 0; i < f->n; i++) {
		struct kpd_big *b = &big[i];
		struct kprobe *kp = f->kret ? &b->rp.kp : &b->kp;
		bool bad = with_bad && i == f->bad_at;

		if (f->sym)
			kp->symbol_name = bad && f->bad_sym ? f->bad_sym : f->sym[i];
		else
			kp->addr = (kprobe_opcode_t *)f->fn[i];
		kp->offset = bad ? f->bad_off : f->off;
		if (f->kret) {
			b->rp.entry_handler = big_entry;
			b->rp.handler = big_ret;
			bigp[i] = &b->rp;
		} else {
			kp->pre_handler = big_pre;
			bigp[i] = kp;
		}
	}
}

/* Every function once; the handler runs (a + b) over the batch. */
static int big_call_all(const struct kpd_big_family *f)
{
	int i, hits = 0;

	for (i = 0; i < f->n; i++)
		CALL(f->fn[i], i);
	for (i = 0; i < f->n; i++)
		hits += atomic_read(&big[i].a) + atomic_read(&big[i].b);
	return hits;
}

static void big_unregister(const struct kpd_big_family *f)
{
	if (f->kret)
		unregister_kretprobes((struct kretprobe **)bigp, f->n);
	else
		unregister_kprobes((struct kprobe **)bigp, f->n);
	big_live = false;
}

static void big_step(const char *arg)
{
	char fam[32], step[8], scn[64];
	const struct kpd_big_family *f = NULL;
	int i, rc;
	ktime_t t0 = ktime_get();

	if (sscanf(arg, "%31s %7s", fam, step) != 2)
		goto bad_arg;
	for (i = 0; i < ARRAY_SIZE(kpd_big_families); i++)
		if (!strcmp(fam, kpd_big_families[i].name))
			f = &kpd_big_families[i];
	if (!f || !big)
		goto bad_arg;
	/* a family left registered by a run cut short */
	if (big_live && big_cur != f)
		big_unregister(big_cur);
	big_cur = f;

	if (!strcmp(step, "bad") || !strcmp(step, "reg")) {
		bool with_bad = step[0] == 'b';

		if (big_live)
			big_unregister(f);
		snprintf(scn, sizeof(scn), "scale.big_%s_%s", f->name, with_bad ? "bad_member" : "batch");
		big_init(f, with_bad);
		R(scn, "n=%d", f->n);
		if (with_bad)
			R(scn, "bad_at=%d", f->bad_at);
		rc = f->kret ? register_kretprobes((struct kretprobe **)bigp, f->n) :
			       register_kprobes((struct kprobe **)bigp, f->n);
		R(scn, "rc=%d", rc);
		big_live = !rc;
		if (!rc) {
			/* where each probe went: one offset for all, the flags */
			long off0 = 0;
			int same = 0, ftrace = 0, disabled = 0, gone = 0;

			for (i = 0; i < f->n; i++) {
				struct kprobe *kp = f->kret ? &big[i].rp.kp : &big[i].kp;
				long off = (long)kp->addr - (long)f->fn[i];

				if (!i)
					off0 = off;
				same += off == off0;
				ftrace += !!(kp->flags & KPROBE_FLAG_FTRACE);
				disabled += !!(kp->flags & KPROBE_FLAG_DISABLED);
				gone += !!(kp->flags & KPROBE_FLAG_GONE);
			}
			R(scn, "addr_offset=%ld", off0);
			R(scn, "addr_same_offset=%d", same);
			R(scn, "ftrace_flagged=%d", ftrace);
			R(scn, "disabled_flagged=%d", disabled);
			R(scn, "gone_flagged=%d", gone);
		}
		if (with_bad) {
			/* nothing of the batch may have stayed registered */
			R(scn, "hits_after_failed_batch=%d", big_call_all(f));
			if (big_live)	/* register_k*probes() accepted an invalid member */
				big_unregister(f);
		}
	} else if (!strcmp(step, "run") && big_live) {
		int one = 0, first_bad = -1, entry = 0, ret = 0;
		long nmissed = 0;

		snprintf(scn, sizeof(scn), "scale.big_%s_batch", f->name);
		big_call_all(f);
		for (i = 0; i < f->n; i++) {
			int a = atomic_read(&big[i].a), b = atomic_read(&big[i].b);
			bool ok = a == 1 && b == f->kret;

			entry += a;
			ret += b;
			one += ok;
			if (!ok && first_bad < 0)
				first_bad = i;
			nmissed += f->kret ? big[i].rp.kp.nmissed + big[i].rp.nmissed : big[i].kp.nmissed;
		}
		if (f->kret) {
			R(scn, "entry_handler_runs=%d", entry);
			R(scn, "return_handler_runs=%d", ret);
		} else {
			R(scn, "pre_handler_runs=%d", entry);
		}
		R(scn, "probes_hit_exactly_once=%d", one);
		R(scn, "first_not_hit_once=%d", first_bad);
		R(scn, "nmissed=%ld", nmissed);
		big_unregister(f);
		R(scn, "hits_after_unregister=%d", big_call_all(f) - entry - ret);
	} else {
		goto bad_arg;
	}
	pr_info("big %s %s: %lld ms\n", f->name, step, ktime_ms_delta(ktime_get(), t0));
	return;
bad_arg:
	R("scale.big_harness", "bad_arg=%s", arg);
}

/* ---- concurrency -------------------------------------------------------------- */

static struct kpd_kp cs1, cs2, cc[4];
static atomic_t conc_stop;
static unsigned long conc_calls[NR_CPUS];
static bool conc_ran[NR_CPUS];

static int conc_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct kpd_kp *k = container_of(p, struct kpd_kp, kp);

	atomic_inc(&k->pre);
	k->cpu_hits[raw_smp_processor_id()]++;	/* one writer per CPU, preemption off */
	if (!READ_ONCE(k->live))
		atomic_inc(&k->late);
	return 0;
}

static void conc_post(struct kprobe *p, struct pt_regs *regs, unsigned long flags)
{
	struct kpd_kp *k = container_of(p, struct kpd_kp, kp);

	atomic_inc(&k->post);
}

static bool conc_kret;	/* workers call kpd_fadd (kretprobe churn) instead of kpd_fhot */

static int conc_worker(void *arg)
{
	long cpu = (long)arg;
	unsigned long n = 0;

	while (!atomic_read(&conc_stop)) {
		if (conc_kret)
			CALL2(kpd_fadd, 1, 1000);
		else
			CALL(kpd_fhot, 1);
		n++;
		/*
		 * A voluntary RCU Tasks quiescent state: with preempt=full
		 * cond_resched() is a no-op, and unregistering an optimized
		 * probe waits in synchronize_rcu_tasks() for this loop.
		 */
		if (!(n & 63))
			cond_resched_tasks_rcu_qs();
	}
	conc_calls[cpu] = n;
	conc_ran[cpu] = true;
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static void conc_kpi(struct kpd_kp *k, unsigned int off, bool post)
{
	memset(k, 0, sizeof(*k));
	k->kp.symbol_name = "kpd_fhot";
	k->kp.offset = off;
	k->kp.pre_handler = conc_pre;
	if (post)
		k->kp.post_handler = conc_post;
}

static bool cpu_sum_ok(struct kpd_kp *k)
{
	long s = 0;
	int c;

	for (c = 0; c < NR_CPUS; c++)
		s += k->cpu_hits[c];
	return s == atomic_read(&k->pre);
}

static void ph_conc(void)
{
	struct task_struct *th[NR_CPUS] = {};
	unsigned long end, total = 0;
	int cpu, i, ops = 0, errs = 0, late = 0, ran = 0, online = 0, rc1, rc2;
	bool sum_ok = true;

	memset(conc_calls, 0, sizeof(conc_calls));
	memset(conc_ran, 0, sizeof(conc_ran));
	atomic_set(&conc_stop, 0);
	/* two stable probes (entry = ftrace, mid = int3/optimized) stay on throughout */
	/* cs1 has a post handler: see aggr_run() on post handlers joining ftrace aggregates */
	conc_kpi(&cs1, 0, true);
	conc_kpi(&cs2, KPD_MID, false);
	cs1.live = cs2.live = 1;
	rc1 = register_kprobe(&cs1.kp);
	rc2 = register_kprobe(&cs2.kp);
	R("conc.churn", "stable.rc=%d,%d", rc1, rc2);
	for (i = 0; i < 4; i++)
		conc_kpi(&cc[i], i & 1 ? KPD_MID : 0, i >= 2);

	for_each_online_cpu(cpu) {
		online++;
		th[cpu] = kthread_create(conc_worker, (void *)(long)cpu, "kpd_conc/%d", cpu);
		if (IS_ERR(th[cpu])) {
			th[cpu] = NULL;
			continue;
		}
		kthread_bind(th[cpu], cpu);
		wake_up_process(th[cpu]);
	}
	/* churn: register, disable, enable, unregister the others, for ~2 s */
	end = jiffies + 2 * HZ;
	for (i = 0; time_before(jiffies, end) && i < 100000; i++) {
		struct kpd_kp *k = &cc[i % 4];
		int step = (i / 4) % 4;

		switch (step) {
		case 0:
			conc_kpi(k, (i % 4) & 1 ? KPD_MID : 0, (i % 4) >= 2);
			WRITE_ONCE(k->live, 1);
			if (register_kprobe(&k->kp)) {
				errs++;
				WRITE_ONCE(k->live, 0);
			}
			break;
		case 1:
			errs += disable_kprobe(&k->kp) != 0;
			break;
		case 2:
			errs += enable_kprobe(&k->kp) != 0;
			break;
		case 3:
			unregister_kprobe(&k->kp);
			WRITE_ONCE(k->live, 0);
			late += atomic_read(&k->late);
			sum_ok &= cpu_sum_ok(k);
			break;
		}
		ops++;
		cond_resched();
	}
	/* finish the cycle: whatever is still registered goes */
	for (i = 0; i < 4; i++) {
		if (READ_ONCE(cc[i].live)) {
			unregister_kprobe(&cc[i].kp);
			WRITE_ONCE(cc[i].live, 0);
			late += atomic_read(&cc[i].late);
			sum_ok &= cpu_sum_ok(&cc[i]);
		}
	}
	atomic_set(&conc_stop, 1);
	for_each_online_cpu(cpu) {
		if (th[cpu])
			kthread_stop(th[cpu]);
		ran += conc_ran[cpu] && conc_calls[cpu] > 0;
		total += conc_calls[cpu];
	}
	unregister_kprobe(&cs1.kp);
	unregister_kprobe(&cs2.kp);
	for (i = 0; i < 4; i++)
		late += atomic_read(&cc[i].late);	/* after unregister: must stay 0 */

	R("conc.churn", "workers_on_every_online_cpu=%d", ran == online && online >= 2);
	R("conc.churn", "churn_ops_done=%d", ops >= 4);	/* one full cycle at least */
	R("conc.churn", "api_errors=%d", errs);
	R("conc.churn", "handler_after_unregister=%d", late);
	R("conc.churn", "per_cpu_sum_consistent=%d", sum_ok && cpu_sum_ok(&cs1) && cpu_sum_ok(&cs2));
	R("conc.churn", "entry_probe_hits_plus_missed_eq_calls=%d",
	  (unsigned long)atomic_read(&cs1.pre) + cs1.kp.nmissed == total);
	R("conc.churn", "mid_probe_hits_plus_missed_eq_calls=%d",
	  (unsigned long)atomic_read(&cs2.pre) + cs2.kp.nmissed == total);
	R("conc.churn", "nmissed_entry=%lu", cs1.kp.nmissed);
	R("conc.churn", "nmissed_mid=%lu", cs2.kp.nmissed);
	if ((unsigned long)atomic_read(&cs1.pre) + cs1.kp.nmissed != total)
		pr_info("conc: calls %lu, entry hits %d + %lu missed\n", total, atomic_read(&cs1.pre), cs1.kp.nmissed);
	if ((unsigned long)atomic_read(&cs2.pre) + cs2.kp.nmissed != total)
		pr_info("conc: calls %lu, mid hits %d + %lu missed\n", total, atomic_read(&cs2.pre), cs2.kp.nmissed);
}

/*
 * kretprobes under churn: a stable kretprobe on kpd_fadd sees every call
 * (entry and return), while another is registered, disabled, enabled and
 * unregistered in a loop; its handlers never run after unregister returned.
 */
struct kpd_crp {
	struct kretprobe rp;
	atomic_t entry, ret, late;
	int live;
};
static struct kpd_crp ck_s, ck_c;

static int ck_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kpd_crp *k = container_of(get_kretprobe(ri), struct kpd_crp, rp);

	atomic_inc(&k->entry);
	if (!READ_ONCE(k->live))
		atomic_inc(&k->late);
	return 0;
}

static int ck_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kpd_crp *k = container_of(get_kretprobe(ri), struct kpd_crp, rp);

	atomic_inc(&k->ret);
	if (!READ_ONCE(k->live))
		atomic_inc(&k->late);
	return 0;
}

static void ck_init(struct kpd_crp *k)
{
	memset(k, 0, sizeof(*k));
	k->rp.kp.symbol_name = "kpd_fadd";
	k->rp.entry_handler = ck_entry;
	k->rp.handler = ck_ret;
	k->rp.maxactive = 64;
}

static void ph_conc_kret(void)
{
	struct task_struct *th[NR_CPUS] = {};
	unsigned long end, total = 0;
	int cpu, i, ops = 0, errs = 0, late = 0, ran = 0, online = 0, rc;
	const char *scn = "conc.kretprobe_churn";

	memset(conc_calls, 0, sizeof(conc_calls));
	memset(conc_ran, 0, sizeof(conc_ran));
	atomic_set(&conc_stop, 0);
	conc_kret = true;
	ck_init(&ck_s);
	ck_s.live = 1;
	rc = register_kretprobe(&ck_s.rp);
	R(scn, "stable.rc=%d", rc);
	for_each_online_cpu(cpu) {
		online++;
		th[cpu] = kthread_create(conc_worker, (void *)(long)cpu, "kpd_conc/%d", cpu);
		if (IS_ERR(th[cpu])) {
			th[cpu] = NULL;
			continue;
		}
		kthread_bind(th[cpu], cpu);
		wake_up_process(th[cpu]);
	}
	end = jiffies + 2 * HZ;
	for (i = 0; time_before(jiffies, end) && i < 100000; i++) {
		switch (i % 4) {
		case 0:
			ck_init(&ck_c);
			WRITE_ONCE(ck_c.live, 1);
			if (register_kretprobe(&ck_c.rp)) {
				errs++;
				WRITE_ONCE(ck_c.live, 0);
			}
			break;
		case 1:
			errs += disable_kprobe(&ck_c.rp.kp) != 0;
			break;
		case 2:
			errs += enable_kprobe(&ck_c.rp.kp) != 0;
			break;
		case 3:
			unregister_kretprobe(&ck_c.rp);
			WRITE_ONCE(ck_c.live, 0);
			synchronize_rcu();	/* let return handlers already running finish */
			late += atomic_read(&ck_c.late);
			break;
		}
		ops++;
		cond_resched();
	}
	if (READ_ONCE(ck_c.live)) {
		unregister_kretprobe(&ck_c.rp);
		WRITE_ONCE(ck_c.live, 0);
	}
	atomic_set(&conc_stop, 1);
	for_each_online_cpu(cpu) {
		if (th[cpu])
			kthread_stop(th[cpu]);
		ran += conc_ran[cpu] && conc_calls[cpu] > 0;
		total += conc_calls[cpu];
	}
	conc_kret = false;
	R(scn, "workers_on_every_online_cpu=%d", ran == online && online >= 2);
	R(scn, "churn_ops_done=%d", ops >= 4);
	R(scn, "api_errors=%d", errs);
	R(scn, "stable_entries_eq_calls=%d", (unsigned long)atomic_read(&ck_s.entry) == total);
	R(scn, "stable_returns_eq_entries=%d", atomic_read(&ck_s.ret) == atomic_read(&ck_s.entry));
	R(scn, "stable_nmissed=%d", ck_s.rp.nmissed);
	unregister_kretprobe(&ck_s.rp);
	ck_s.live = 0;
	R(scn, "churned_returns_le_entries=%d", atomic_read(&ck_c.ret) <= atomic_read(&ck_c.entry));
	R(scn, "handler_after_unregister=%d", late + atomic_read(&ck_c.late));
	if ((unsigned long)atomic_read(&ck_s.entry) != total)
		pr_info("conc_kret: calls %lu, stable entries %d, returns %d, nmissed %d\n", total,
			atomic_read(&ck_s.entry), atomic_read(&ck_s.ret), ck_s.rp.nmissed);
}

/* ---- phases: a kprobe on ftrace that fails to arm ------------------------------------ */

#ifdef KPD_KPROBES_ON_FTRACE
/*
 * An ftrace_ops of this module with FTRACE_OPS_FL_IPMODIFY on kpd_fi1 and
 * kpd_fi3, as livepatch or a BPF trampoline would have: ftrace refuses a
 * second IPMODIFY ops on a function (-EBUSY), and kprobes arms a probe with
 * a post_handler at an ftrace site through its IPMODIFY ops.  6.12 returns
 * the error from register_kprobe() (register_kprobes() rolls the batch
 * back); 7.3 unhashes the probe but returns 0 (intended divergence 7 on
 * 7.3: the Rust core returns the error on both trees).  The job lists
 * kprobes/list after each phase; arm_fail_cleanup unregisters what
 * registration reported registered and the ftrace_ops, on either tree.
 */
static atomic_t af_ops_hits;
static bool af_ops_live;
static int af_single_rc = -EINVAL, af_batch_rc = -EINVAL;
static struct kpd_kp af_k, af_m1, af_m2, af_m3;

static void notrace af_ops_func(unsigned long ip, unsigned long parent_ip,
				struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	atomic_inc(&af_ops_hits);
}

static struct ftrace_ops af_ops = {
	.func = af_ops_func,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
};

static void af_calls(const char *scn)
{
	int hits = atomic_read(&af_ops_hits);

	order_reset();
	CALL(kpd_fi1, 1); CALL(kpd_fi2, 1); CALL(kpd_fi3, 1);
	R(scn, "order=%s", order_str());
	R(scn, "ops_hits=%d", atomic_read(&af_ops_hits) - hits);
}

static void ph_arm_fail_single(void)
{
	int rc;

	rc = ftrace_set_filter_ip(&af_ops, (unsigned long)kpd_fi1, 0, 0);
	R("arm_fail.setup", "filter_fi1.rc=%d", rc);
	rc = ftrace_set_filter_ip(&af_ops, (unsigned long)kpd_fi3, 0, 0);
	R("arm_fail.setup", "filter_fi3.rc=%d", rc);
	rc = register_ftrace_function(&af_ops);
	R("arm_fail.setup", "register_ops.rc=%d", rc);
	af_ops_live = !rc;
	af_calls("arm_fail.setup");

	/* a post_handler at kpd_fi1's ftrace site: kprobes' IPMODIFY ops */
	kpi(&af_k, 'K', "kpd_fi1", 0, true, true);
	af_single_rc = reg("arm_fail.single", &af_k);
	R("arm_fail.single", "K.flags=0x%x", af_k.kp.flags);
	R("arm_fail.single", "K.addr=%s", SYM(af_k.kp.addr));
	af_calls("arm_fail.single");
	R("arm_fail.single", "K.pre=%d", atomic_read(&af_k.pre));
	R("arm_fail.single", "K.post=%d", atomic_read(&af_k.post));
	R("arm_fail.single", "K.disable.rc=%d", disable_kprobe(&af_k.kp));
}

/*
 * Three members, the last one refused: M1 (post_handler, ftrace site of
 * kpd_fi2: kprobes' IPMODIFY ops is registered by it), M2 (int3 or jump at
 * kpd_fi2+MID), M3 (post_handler, ftrace site of kpd_fi3, which this
 * module's ops holds).
 */
static void ph_arm_fail_batch(void)
{
	struct kprobe *kps[3] = { &af_m1.kp, &af_m2.kp, &af_m3.kp };

	kpi(&af_m1, 'A', "kpd_fi2", 0, true, true);
	kpi(&af_m2, 'B', "kpd_fi2", KPD_MID, true, false);
	kpi(&af_m3, 'C', "kpd_fi3", 0, true, true);
	af_batch_rc = register_kprobes(kps, 3);
	R("arm_fail.batch", "rc=%d", af_batch_rc);
	af_calls("arm_fail.batch");
	show("arm_fail.batch", &af_m1);
	show("arm_fail.batch", &af_m2);
	show("arm_fail.batch", &af_m3);
	R("arm_fail.batch", "C.disable.rc=%d", disable_kprobe(&af_m3.kp));
}

static void af_cleanup(void)
{
	struct kprobe *kps[3] = { &af_m1.kp, &af_m2.kp, &af_m3.kp };

	if (!af_single_rc)
		unregister_kprobe(&af_k.kp);
	if (!af_batch_rc)
		unregister_kprobes(kps, 3);
	af_single_rc = -EINVAL;
	af_batch_rc = -EINVAL;
	if (af_ops_live) {
		R("arm_fail.cleanup", "unregister_ops.rc=%d", unregister_ftrace_function(&af_ops));
		ftrace_free_filter(&af_ops);
		af_ops_live = false;
	}
}

static void ph_arm_fail_cleanup(void)
{
	af_cleanup();
	af_calls("arm_fail.cleanup");
}
#endif /* KPD_KPROBES_ON_FTRACE */

/*
 * The writer's scheduling policy (the job's race set-ups): SCHED_FIFO above
 * the spinners, SCHED_FIFO below everything else real-time, or back to
 * SCHED_NORMAL.  sched_setscheduler() is not exported, and busybox has no
 * chrt.
 */
static void ph_sched_fifo(void)
{
	sched_set_fifo(current);
}

static void ph_sched_fifo_low(void)
{
	sched_set_fifo_low(current);
}

static void ph_sched_normal(void)
{
	sched_set_normal(current, 0);
}

/* ---- debugfs control ---------------------------------------------------------- */

static const struct {
	const char *name;
	void (*fn)(void);
} phases[] = {
	{ "bad", ph_bad },
	{ "unsafe", ph_unsafe },
	{ D1, ph_div_ftrace_post },
	{ D4, ph_div_rereg_offset },
	{ "div_kret_fail_reg", ph_div_kret_fail_reg },
	{ "div_kret_fail_unreg", ph_div_kret_fail_unreg },
	{ "sched_fifo", ph_sched_fifo },
	{ "sched_fifo_low", ph_sched_fifo_low },
	{ "sched_normal", ph_sched_normal },
	{ "aggr", ph_aggr },
	{ "reent", ph_reent },
	{ "opt_reg", ph_opt_reg },
	{ "opt_add_post", ph_opt_add_post },
	{ "opt_del_post", ph_opt_del_post },
	{ "opt_disabled", ph_opt_disabled },
	{ "opt_reg_while_off", ph_opt_reg_while_off },
	{ "opt_enable3", ph_opt_enable3 },
	{ "opt_reent", ph_opt_reent },
	{ "opt_disable_one", ph_opt_disable_one },
	{ "opt_reuse", ph_opt_reuse },
	{ "opt_unreg", ph_opt_unreg },
	{ "en_setup", ph_en_setup },
	{ "en_off", ph_en_off },
	{ "en_on", ph_en_on },
	{ "en_cleanup", ph_en_cleanup },
	{ "kret", ph_kret },
	{ "mod_arm_init", ph_mod_arm_init },
	{ "mod_loaded", ph_mod_loaded },
	{ "mod_gone", ph_mod_gone },
	{ "mod_reload", ph_mod_reload },
	{ "mod_reload_unreg", ph_mod_reload_unreg },
	{ "scale", ph_scale },
	{ "conc", ph_conc },
	{ "conc_kret", ph_conc_kret },
#ifdef KPD_OPTPROBES
	{ "flush_reg", ph_flush_reg },
	{ "flush_disable", ph_flush_disable },
	{ "flush_enable_b", ph_flush_enable_b },
	{ "flush_rereg", ph_flush_rereg },
	{ "flush_disable_c", ph_flush_disable_c },
	{ "flush_enable_c", ph_flush_enable_c },
	{ "flush_unreg", ph_flush_unreg },
	{ "sib_reg", ph_sib_reg },
	{ "sib_disable_q", ph_sib_disable_q },
	{ "sib_enable_q", ph_sib_enable_q },
	{ "sib_unreg_q", ph_sib_unreg_q },
	{ "sib_unreg", ph_sib_unreg },
	{ "opt_enable_queued", ph_opt_enable_queued },
	{ "opt_enable_queued_unreg", ph_opt_enable_queued_unreg },
	{ "div_dq_reg", ph_div_dq_reg },
	{ "div_dq_call", ph_div_dq_call },
	{ "div_dq_unreg", ph_div_dq_unreg },
#endif
#ifdef KPD_KPROBES_ON_FTRACE
	{ "arm_fail_single", ph_arm_fail_single },
	{ "arm_fail_batch", ph_arm_fail_batch },
	{ "arm_fail_cleanup", ph_arm_fail_cleanup },
#endif
};

static ssize_t ctl_write(struct file *file, const char __user *ubuf, size_t count, loff_t *ppos)
{
	char cmd[64];
	size_t n = min(count, sizeof(cmd) - 1);
	int i;

	if (copy_from_user(cmd, ubuf, n))
		return -EFAULT;
	cmd[n] = 0;
	strim(cmd);
	mutex_lock(&kpd_lock);
	kpd_len = 0;
	if (!strncmp(cmd, "big ", 4)) {
		big_step(cmd + 4);	/* "big FAMILY STEP" */
		goto done;
	}
	if (!strncmp(cmd, "opt_call ", 9)) {
		ph_opt_call(cmd + 9);	/* scenario name given by the job */
		goto done;
	}
#ifdef KPD_OPTPROBES
	if (!strncmp(cmd, "flush_call ", 11)) {
		flush_calls(cmd + 11);	/* scenario name given by the job */
		goto done;
	}
#endif
	for (i = 0; i < ARRAY_SIZE(phases); i++) {
		if (!strcmp(cmd, phases[i].name)) {
			phases[i].fn();
			goto done;
		}
	}
	mutex_unlock(&kpd_lock);
	return -EINVAL;
done:
	mutex_unlock(&kpd_lock);
	return count;
}

static ssize_t out_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	ssize_t r;

	mutex_lock(&kpd_lock);
	r = simple_read_from_buffer(ubuf, count, ppos, kpd_buf, kpd_len);
	mutex_unlock(&kpd_lock);
	return r;
}

/* The config-dependent sections this kernel can run, one name a line. */
static int features_show(struct seq_file *m, void *v)
{
#ifdef KPD_OPTPROBES
	seq_puts(m, "optprobes\n");
#endif
#ifdef KPD_KPROBES_ON_FTRACE
	seq_puts(m, "kprobes_on_ftrace\n");
#endif
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(features);

static const struct file_operations ctl_fops = { .owner = THIS_MODULE, .write = ctl_write };
static const struct file_operations out_fops = { .owner = THIS_MODULE, .read = out_read };
static struct dentry *kpd_dir;

static int __init kpd_init(void)
{
	unsigned int i;
	int ret;

	kpd_frec_ptr = kpd_frec;
	if (big_div < 1 || big_div > 20)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(kpd_big_families); i++) {
		kpd_big_families[i].n /= big_div;
		kpd_big_families[i].bad_at /= big_div;
	}
	kpd_buf = vzalloc(KPD_BUF_SZ);
	big = vzalloc(sizeof(*big) * KPD_BIG_N);
	bigp = vzalloc(sizeof(*bigp) * KPD_BIG_N);
	if (!kpd_buf || !big || !bigp) {
		vfree(kpd_buf);
		vfree(big);
		vfree(bigp);
		return -ENOMEM;
	}
	ret = register_module_notifier(&kpd_mod_nb);
	if (ret) {
		vfree(kpd_buf);
		vfree(big);
		vfree(bigp);
		return ret;
	}
	kpd_dir = debugfs_create_dir("kprobes_diff", NULL);
	debugfs_create_file("ctl", 0200, kpd_dir, NULL, &ctl_fops);
	debugfs_create_file("out", 0400, kpd_dir, NULL, &out_fops);
	debugfs_create_file("features", 0400, kpd_dir, NULL, &features_fops);
	return 0;
}

static void __exit kpd_exit(void)
{
	debugfs_remove_recursive(kpd_dir);
	unregister_module_notifier(&kpd_mod_nb);
	if (big_live)
		big_unregister(big_cur);
#ifdef KPD_KPROBES_ON_FTRACE
	af_cleanup();	/* the ftrace_ops calls this module's text */
#endif
	vfree(kpd_buf);
	vfree(big);
	vfree(bigp);
}

module_init(kpd_init);
module_exit(kpd_exit);
MODULE_DESCRIPTION("kprobes differential scenario driver");
MODULE_LICENSE("GPL");
