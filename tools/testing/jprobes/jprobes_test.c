// SPDX-License-Identifier: GPL-2.0
/*
 * jprobes_test.ko: guest tests of the jprobes layer of the Rust kprobes
 * core (CONFIG_KPROBES_RUST_JPROBES, <linux/jprobes.h>).
 *
 * The guest job (tools/testing/guest/jprobes.sh) writes a step name to
 * /sys/kernel/debug/jprobes_test/ctl, which runs that step synchronously,
 * then reads /sys/kernel/debug/jprobes_test/out: one line per check,
 *	KPT jprobes <check> PASS|FAIL [detail]
 * (tools/testing/guest/lib.sh's format) and `# ...` notes.  Between steps
 * the job does what the shell sees: kprobes/list, the jump optimizer's
 * sysctl, loading and unloading jprobes_test_target.ko, dmesg.
 *
 * Every probed function has one prototype (JPT_PROTO: an int, a long, a
 * pointer, a negative int, a 64-bit and a negative 64-bit value, the six
 * argument registers of x86-64) and records what it was called with; each
 * handler has its own record and compares its arguments with what the
 * caller is passing (jpt_expect) inside the handler.
 */
#define pr_fmt(fmt) "jprobes_test: " fmt
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/jprobes.h>
#include <linux/debugfs.h>
#include <linux/kallsyms.h>
#include <linux/uaccess.h>
#include <linux/string.h>
#include "jprobes_test.h"

static bool unsafe;
module_param(unsafe, bool, 0444);
MODULE_PARM_DESC(unsafe, "allow step double-addr (re-registration by address: WARN_ON_ONCE, as register_kprobe())");

/* ---- output ------------------------------------------------------------- */

#define OUT_SZ 16384
static char out_buf[OUT_SZ];
static size_t out_len;
static DEFINE_MUTEX(jpt_lock);

static __printf(1, 2) void outf(const char *fmt, ...)
{
	va_list ap;

	if (out_len >= OUT_SZ - 1)
		return;
	va_start(ap, fmt);
	out_len += vscnprintf(out_buf + out_len, OUT_SZ - out_len, fmt, ap);
	va_end(ap);
}

/* One check: `KPT jprobes NAME PASS|FAIL DETAIL` (the detail on a failure). */
static __printf(3, 4) bool kpt(const char *name, bool ok, const char *fmt, ...)
{
	va_list ap;

	outf("KPT jprobes %s %s ", name, ok ? "PASS" : "FAIL");
	if (!ok && out_len < OUT_SZ - 1) {
		va_start(ap, fmt);
		out_len += vscnprintf(out_buf + out_len, OUT_SZ - out_len, fmt, ap);
		va_end(ap);
	}
	outf("\n");
	return ok;
}

/* ---- arguments ------------------------------------------------------------ */

struct jpt_args {
	int a;
	long b;
	const void *p;
	int neg;
	u64 big;
	s64 nbig;
};

static const char jpt_str[] = "jprobes";
static const struct jpt_args set_a = {
	0x12345678, -2L, jpt_str, -42, 0xfedcba9876543210ULL, -0x123456789abLL,
};
static const struct jpt_args set_b = {
	-1, LONG_MIN, &set_a, INT_MIN, U64_MAX, S64_MIN + 1,
};
static const struct jpt_args set_mod = {
	JPT_MOD_A, JPT_MOD_B, JPT_MOD_P, JPT_MOD_NEG, JPT_MOD_BIG, JPT_MOD_NBIG,
};

/* What the caller is passing right now: handlers compare with it. */
static struct jpt_args jpt_expect;

static bool args_eq(const struct jpt_args *x, const struct jpt_args *y)
{
	return x->a == y->a && x->b == y->b && x->p == y->p && x->neg == y->neg &&
	       x->big == y->big && x->nbig == y->nbig;
}

/* A value of all six arguments: a probed function returns it. */
static int args_sum(const struct jpt_args *v)
{
	return v->a ^ (int)v->b ^ (int)((unsigned long)v->p >> 3) ^ v->neg ^
	       (int)(v->big >> 17) ^ (int)(v->nbig >> 29);
}

#define ARGS_FMT "a=%d b=%ld p=%px neg=%d big=0x%llx nbig=%lld"
#define ARGS_VAL(v) (v).a, (v).b, (v).p, (v).neg, (v).big, (v).nbig

/* ---- probed functions ------------------------------------------------------ */

/* What a probed function saw. */
struct jpt_frec {
	unsigned int calls;
	struct jpt_args seen;
};

static __always_inline int jpt_body(struct jpt_frec *r, int a, long b, const void *p, int neg,
				    u64 big, s64 nbig)
{
	struct jpt_args v = { a, b, p, neg, big, nbig };

	r->seen = v;
	WRITE_ONCE(r->calls, r->calls + 1);
	return args_sum(&v);
}

/*
 * Global, so the compiler keeps their calling convention; `notrace` ones
 * have no ftrace site, so a probe at their entry is a breakpoint (or, once
 * the optimizer took it, a jump).
 */
#define JPT_FUNC_ATTR(name, attr)					\
	static struct jpt_frec frec_##name;				\
	attr noinline JPT_PROTO(name);					\
	attr noinline JPT_PROTO(name)					\
	{								\
		return jpt_body(&frec_##name, a, b, p, neg, big, nbig);	\
	}
#define JPT_FUNC(name) JPT_FUNC_ATTR(name, __used)
#define JPT_FUNC_NOTRACE(name) JPT_FUNC_ATTR(name, notrace)

JPT_FUNC(jpt_target_ftrace)
JPT_FUNC_NOTRACE(jpt_target_int3)
JPT_FUNC(jpt_target_agg)
JPT_FUNC(jpt_target_dis)
JPT_FUNC(jpt_target_bad)
JPT_FUNC(jpt_inner_ftrace)
JPT_FUNC_NOTRACE(jpt_inner_int3)
JPT_FUNC(jpt_outer)
JPT_FUNC(jpt_arr0)
JPT_FUNC_NOTRACE(jpt_arr1)
JPT_FUNC(jpt_arr2)

typedef JPT_PROTO((*jpt_fn));

/* Calls fn with v, as jpt_expect; returns what it returned. */
static noinline int jpt_call(jpt_fn fn, const struct jpt_args *v)
{
	jpt_expect = *v;
	barrier();
	return fn(v->a, v->b, v->p, v->neg, v->big, v->nbig);
}

/* ---- handlers ---------------------------------------------------------------- */

/* What a handler saw. */
struct jpt_hrec {
	unsigned int hits;
	unsigned int bad;		/* hits whose arguments were not jpt_expect */
	unsigned int after_return;	/* hits that went on past jprobe_return() */
	unsigned int fn_calls_at_hit;	/* the function's calls when the handler ran */
	struct jpt_args seen;
	struct jpt_frec *fn;		/* the probed function's record */
	bool no_expect;			/* do not compare with jpt_expect */
	void (*inner)(void);		/* called by the handler (reentry) */
};

/* Clobbers the argument registers, as any call from the handler may. */
static __always_inline void jpt_clobber_arg_regs(void)
{
#ifdef CONFIG_X86_64
	asm volatile("mov $-1, %%rdi\n\t"
		     "mov $-1, %%rsi\n\t"
		     "mov $-1, %%rdx\n\t"
		     "mov $-1, %%rcx\n\t"
		     "mov $-1, %%r8\n\t"
		     "mov $-1, %%r9\n\t"
		     ::: "rdi", "rsi", "rdx", "rcx", "r8", "r9", "memory");
#endif
}

static __always_inline int jpt_handle(struct jpt_hrec *h, int a, long b, const void *p, int neg,
				      u64 big, s64 nbig)
{
	struct jpt_args v = { a, b, p, neg, big, nbig };

	WRITE_ONCE(h->hits, h->hits + 1);
	h->seen = v;
	if (!h->no_expect && !args_eq(&v, &jpt_expect))
		WRITE_ONCE(h->bad, h->bad + 1);
	if (h->fn)
		WRITE_ONCE(h->fn_calls_at_hit, READ_ONCE(h->fn->calls));
	if (h->inner)
		h->inner();
	/*
	 * The handler's arguments are its own copies: changing them, and the
	 * registers they came in, must change nothing for the function.
	 */
	a = ~a;
	b = 0;
	p = NULL;
	neg = 0;
	big = 0;
	nbig = 0;
	OPTIMIZER_HIDE_VAR(a);
	OPTIMIZER_HIDE_VAR(b);
	OPTIMIZER_HIDE_VAR(p);
	OPTIMIZER_HIDE_VAR(neg);
	OPTIMIZER_HIDE_VAR(big);
	OPTIMIZER_HIDE_VAR(nbig);
	jpt_clobber_arg_regs();
	/* Old handlers end with it; old kernels never came back from it. */
	jprobe_return();
	WRITE_ONCE(h->after_return, h->after_return + 1);
	/* Ignored: a non-zero pre_handler return would skip the function. */
	return (int)(a + b + (long)p + neg + big + nbig) | 1;
}

#define JPT_HANDLER(name)						\
	static struct jpt_hrec hrec_##name;				\
	static JPT_PROTO(name)						\
	{								\
		return jpt_handle(&hrec_##name, a, b, p, neg, big, nbig); \
	}

JPT_HANDLER(h_ftrace)
JPT_HANDLER(h_int3)
JPT_HANDLER(h_agg1)
JPT_HANDLER(h_agg2)
JPT_HANDLER(h_dis)
JPT_HANDLER(h_bad)
JPT_HANDLER(h_outer)
JPT_HANDLER(h_inner_ftrace)
JPT_HANDLER(h_inner_int3)
JPT_HANDLER(h_arr0)
JPT_HANDLER(h_arr1)
JPT_HANDLER(h_arr2)
JPT_HANDLER(h_mod)

static void jpt_reset(struct jpt_hrec *h, struct jpt_frec *fn)
{
	memset(h, 0, sizeof(*h));
	h->fn = fn;
}

static void jp_init(struct jprobe *jp, const char *sym, void *addr, unsigned int offset, void *entry)
{
	memset(jp, 0, sizeof(*jp));
	jp->kp.symbol_name = sym;
	jp->kp.addr = addr;
	jp->kp.offset = offset;
	jp->entry = entry;
}

/* ---- args: the handler's view, on each kind of entry probe ------------------------------ */

static struct jprobe j_ftrace, j_int3;
static bool args_live;

static void step_args_reg(void)
{
	int r1, r2;

	jpt_reset(&hrec_h_ftrace, &frec_jpt_target_ftrace);
	jpt_reset(&hrec_h_int3, &frec_jpt_target_int3);
	/* one by symbol, one by address */
	jp_init(&j_ftrace, "jpt_target_ftrace", NULL, 0, h_ftrace);
	jp_init(&j_int3, NULL, (void *)jpt_target_int3, 0, h_int3);
	r1 = register_jprobe(&j_ftrace);
	r2 = register_jprobe(&j_int3);
	args_live = !r1 && !r2;
	kpt("args-register", !r1 && !r2, "register_jprobe: by symbol %d, by addr %d", r1, r2);
	outf("# j_ftrace at %pS, j_int3 at %pS\n", j_ftrace.kp.addr, j_int3.kp.addr);
}

/* The checks of calls through a jprobe: each field true until a call fails it (why: the last failure). */
struct call_res {
	bool args, copies, ret, cont, before;
	char why[200];
};

/* One call of fn (probed, handler record h, function record fr) with v. */
static void call_once(struct jpt_hrec *h, jpt_fn fn, struct jpt_frec *fr, const struct jpt_args *v,
		      struct call_res *res)
{
	unsigned int hits = h->hits, bad = h->bad, cont = h->after_return, calls = fr->calls;
	int ret = jpt_call(fn, v);

	if (h->hits != hits + 1) {
		/* the others say nothing about a handler that did not run */
		res->args = res->copies = res->ret = res->cont = res->before = false;
		snprintf(res->why, sizeof(res->why), "handler hits %u (want 1)", h->hits - hits);
		return;
	}
	if (h->bad != bad) {
		res->args = false;
		snprintf(res->why, sizeof(res->why), "handler saw " ARGS_FMT, ARGS_VAL(h->seen));
	}
	if (fr->calls != calls + 1 || !args_eq(&fr->seen, v)) {
		res->copies = false;
		snprintf(res->why, sizeof(res->why), "function ran %u times, saw " ARGS_FMT,
			 fr->calls - calls, ARGS_VAL(fr->seen));
	}
	if (fr->calls != calls + 1 || ret != args_sum(v)) {
		res->ret = false;
		snprintf(res->why, sizeof(res->why), "function ran %u times, returned %d (want %d)",
			 fr->calls - calls, ret, args_sum(v));
	}
	if (h->after_return != cont + 1)
		res->cont = false;
	if (h->fn_calls_at_hit != calls) {
		res->before = false;
		snprintf(res->why, sizeof(res->why), "handler ran after the function (calls %u, at hit %u)",
			 calls, h->fn_calls_at_hit);
	}
}

/* "args-call SUFFIX": SUFFIX ftrace (j_ftrace), int3 or opt (j_int3). */
static void step_args_call(const char *sfx)
{
	bool ft = !strcmp(sfx, "ftrace");
	struct jpt_hrec *h = ft ? &hrec_h_ftrace : &hrec_h_int3;
	struct jpt_frec *fr = ft ? &frec_jpt_target_ftrace : &frec_jpt_target_int3;
	jpt_fn fn = ft ? jpt_target_ftrace : jpt_target_int3;
	struct call_res r = { true, true, true, true, true, "" };
	char name[48];

	call_once(h, fn, fr, &set_a, &r);
	call_once(h, fn, fr, &set_b, &r);
	snprintf(name, sizeof(name), "args-%s", sfx);
	kpt(name, r.args, "%s", r.why);
	snprintf(name, sizeof(name), "copies-%s", sfx);
	kpt(name, r.copies, "%s", r.why);
	snprintf(name, sizeof(name), "ret-ignored-%s", sfx);
	kpt(name, r.ret, "%s", r.why);
	snprintf(name, sizeof(name), "return-continues-%s", sfx);
	kpt(name, r.cont, "code after jprobe_return() did not run");
	snprintf(name, sizeof(name), "before-function-%s", sfx);
	kpt(name, r.before, "%s", r.why);
}

static void step_args_unreg(void)
{
	unsigned int h1, h2;

	unregister_jprobe(&j_ftrace);
	unregister_jprobe(&j_int3);
	h1 = hrec_h_ftrace.hits;
	h2 = hrec_h_int3.hits;
	jpt_call(jpt_target_ftrace, &set_a);
	jpt_call(jpt_target_int3, &set_a);
	kpt("args-unregistered-silent", args_live && hrec_h_ftrace.hits == h1 && hrec_h_int3.hits == h2,
	    "registered %d; hits after unregister: %u, %u", args_live, hrec_h_ftrace.hits - h1,
	    hrec_h_int3.hits - h2);
	args_live = false;
}

/* ---- an aggregate: two jprobes, a kprobe and a kretprobe on one function ------------------ */

static struct jprobe j_agg1, j_agg2;
static struct kprobe k_agg;
static struct kretprobe r_agg;
static unsigned int k_agg_hits, r_agg_hits;
static bool k_agg_live, r_agg_live, agg_live;

static int k_agg_pre(struct kprobe *p, struct pt_regs *regs)
{
	k_agg_hits++;
	return 0;
}

static int r_agg_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	r_agg_hits++;
	return 0;
}

static void step_agg_reg(void)
{
	int r1, r2, r3, r4;

	jpt_reset(&hrec_h_agg1, &frec_jpt_target_agg);
	jpt_reset(&hrec_h_agg2, &frec_jpt_target_agg);
	k_agg_hits = r_agg_hits = 0;
	jp_init(&j_agg1, NULL, (void *)jpt_target_agg, 0, h_agg1);
	jp_init(&j_agg2, "jpt_target_agg", NULL, 0, h_agg2);
	memset(&k_agg, 0, sizeof(k_agg));
	k_agg.symbol_name = "jpt_target_agg";
	k_agg.pre_handler = k_agg_pre;
	memset(&r_agg, 0, sizeof(r_agg));
	r_agg.kp.symbol_name = "jpt_target_agg";
	r_agg.handler = r_agg_ret;
	r_agg.maxactive = 4;
	r1 = register_jprobe(&j_agg1);
	r2 = register_kprobe(&k_agg);
	r3 = register_kretprobe(&r_agg);
	r4 = register_jprobe(&j_agg2);
	k_agg_live = !r2;
	r_agg_live = !r3;
	agg_live = !r1 && !r2 && !r3 && !r4;
	kpt("agg-register", !r1 && !r2 && !r3 && !r4, "jprobe %d, kprobe %d, kretprobe %d, 2nd jprobe %d",
	    r1, r2, r3, r4);
}

/* Calls jpt_target_agg once; did each of the four fire `want_*` times? */
static bool agg_call(int want_j1, int want_j2, int want_k, int want_r, char *why, size_t n)
{
	unsigned int j1 = hrec_h_agg1.hits, j2 = hrec_h_agg2.hits, k = k_agg_hits, r = r_agg_hits;
	unsigned int b1 = hrec_h_agg1.bad, b2 = hrec_h_agg2.bad, c = frec_jpt_target_agg.calls;
	int ret = jpt_call(jpt_target_agg, &set_b);

	j1 = hrec_h_agg1.hits - j1;
	j2 = hrec_h_agg2.hits - j2;
	k = k_agg_hits - k;
	r = r_agg_hits - r;
	snprintf(why, n, "jprobe %u, 2nd jprobe %u, kprobe %u, kretprobe %u (want %d %d %d %d); bad args %u %u; function ran %u, ret ok %d",
		 j1, j2, k, r, want_j1, want_j2, want_k, want_r, hrec_h_agg1.bad - b1, hrec_h_agg2.bad - b2,
		 frec_jpt_target_agg.calls - c, ret == args_sum(&set_b));
	return j1 == want_j1 && j2 == want_j2 && k == want_k && r == want_r && hrec_h_agg1.bad == b1 &&
	       hrec_h_agg2.bad == b2 && frec_jpt_target_agg.calls == c + 1 && ret == args_sum(&set_b);
}

static void step_agg_call(void)
{
	char why[240];
	int rc;

	kpt("agg-all-fire", agg_call(1, 1, 1, 1, why, sizeof(why)), "%s", why);
	rc = disable_jprobe(&j_agg1);
	kpt("agg-disable-one", !rc && agg_call(0, 1, 1, 1, why, sizeof(why)), "disable_jprobe %d; %s", rc, why);
	rc = enable_jprobe(&j_agg1);
	kpt("agg-enable-one", !rc && agg_call(1, 1, 1, 1, why, sizeof(why)), "enable_jprobe %d; %s", rc, why);
}

static void step_agg_unreg(void)
{
	char why[240] = "";

	unregister_jprobe(&j_agg2);
	if (r_agg_live)
		unregister_kretprobe(&r_agg);
	if (k_agg_live)
		unregister_kprobe(&k_agg);
	k_agg_live = r_agg_live = false;
	unregister_jprobe(&j_agg1);
	kpt("agg-unregistered-silent", agg_live && agg_call(0, 0, 0, 0, why, sizeof(why)), "registered %d; %s",
	    agg_live, why);
	agg_live = false;
}

/* ---- disable_jprobe()/enable_jprobe() -------------------------------------------------------- */

static struct jprobe j_dis;

static void step_dis_reg(void)
{
	int rc;

	jpt_reset(&hrec_h_dis, &frec_jpt_target_dis);
	jp_init(&j_dis, "jpt_target_dis", NULL, 0, h_dis);
	rc = register_jprobe(&j_dis);
	kpt("dis-register", !rc, "register_jprobe %d", rc);
}

static bool dis_call(unsigned int want, int rc, char *why, size_t n)
{
	unsigned int hits = hrec_h_dis.hits, bad = hrec_h_dis.bad, calls = frec_jpt_target_dis.calls;

	jpt_call(jpt_target_dis, &set_a);
	snprintf(why, n, "rc %d; hits %u (want %u), bad args %u, function ran %u", rc, hrec_h_dis.hits - hits,
		 want, hrec_h_dis.bad - bad, frec_jpt_target_dis.calls - calls);
	return !rc && hrec_h_dis.hits - hits == want && hrec_h_dis.bad == bad &&
	       frec_jpt_target_dis.calls == calls + 1;
}

static void step_dis_disable(void)
{
	char why[160];
	int rc = disable_jprobe(&j_dis);

	kpt("disabled-silent", dis_call(0, rc, why, sizeof(why)), "disable_jprobe: %s", why);
}

static void step_dis_enable(void)
{
	char why[160];
	int rc = enable_jprobe(&j_dis);

	kpt("enabled-fires", dis_call(1, rc, why, sizeof(why)), "enable_jprobe: %s", why);
}

static void step_dis_unreg(void)
{
	unregister_jprobe(&j_dis);
}

/* ---- reentry: a handler calling probed functions --------------------------------------------- */

static struct jprobe j_outer, j_inner_ftrace, j_inner_int3;

static void call_inner(void)
{
	jpt_inner_ftrace(set_b.a, set_b.b, set_b.p, set_b.neg, set_b.big, set_b.nbig);
	jpt_inner_int3(set_b.a, set_b.b, set_b.p, set_b.neg, set_b.big, set_b.nbig);
}

static void step_reent(void)
{
	unsigned int ci, c3, hi, h3, mi, m3;
	int r1, r2, r3;

	jpt_reset(&hrec_h_outer, &frec_jpt_outer);
	jpt_reset(&hrec_h_inner_ftrace, &frec_jpt_inner_ftrace);
	jpt_reset(&hrec_h_inner_int3, &frec_jpt_inner_int3);
	hrec_h_outer.inner = call_inner;
	hrec_h_inner_ftrace.no_expect = true;
	hrec_h_inner_int3.no_expect = true;
	jp_init(&j_outer, "jpt_outer", NULL, 0, h_outer);
	jp_init(&j_inner_ftrace, "jpt_inner_ftrace", NULL, 0, h_inner_ftrace);
	jp_init(&j_inner_int3, "jpt_inner_int3", NULL, 0, h_inner_int3);
	r1 = register_jprobe(&j_outer);
	r2 = register_jprobe(&j_inner_ftrace);
	r3 = register_jprobe(&j_inner_int3);
	if (!kpt("reentry-register", !r1 && !r2 && !r3, "%d %d %d", r1, r2, r3))
		goto out;

	ci = frec_jpt_inner_ftrace.calls;
	c3 = frec_jpt_inner_int3.calls;
	jpt_call(jpt_outer, &set_a);
	hi = hrec_h_inner_ftrace.hits;
	h3 = hrec_h_inner_int3.hits;
	mi = j_inner_ftrace.kp.nmissed;
	m3 = j_inner_int3.kp.nmissed;
	outf("# outer hits %u; inner ftrace: ran %u, hits %u, nmissed %u; inner int3: ran %u, hits %u, nmissed %u\n",
	     hrec_h_outer.hits, frec_jpt_inner_ftrace.calls - ci, hi, mi, frec_jpt_inner_int3.calls - c3, h3, m3);
	kpt("reentry-ftrace-nmissed", hrec_h_outer.hits == 1 && frec_jpt_inner_ftrace.calls == ci + 1 && !hi && mi == 1,
	    "outer hits %u, inner ran %u, inner hits %u, inner nmissed %lu (want 1 1 0 1)", hrec_h_outer.hits,
	    frec_jpt_inner_ftrace.calls - ci, hi, j_inner_ftrace.kp.nmissed);
	kpt("reentry-int3-nmissed", hrec_h_outer.hits == 1 && frec_jpt_inner_int3.calls == c3 + 1 && !h3 && m3 == 1,
	    "outer hits %u, inner ran %u, inner hits %u, inner nmissed %lu (want 1 1 0 1)", hrec_h_outer.hits,
	    frec_jpt_inner_int3.calls - c3, h3, j_inner_int3.kp.nmissed);
	/* Called from outside a handler, they fire. */
	call_inner();
	kpt("reentry-inner-fires-alone",
	    hrec_h_inner_ftrace.hits == hi + 1 && hrec_h_inner_int3.hits == h3 + 1 &&
	    j_inner_ftrace.kp.nmissed == mi && j_inner_int3.kp.nmissed == m3,
	    "hits %u %u, nmissed %lu %lu", hrec_h_inner_ftrace.hits - hi, hrec_h_inner_int3.hits - h3,
	    j_inner_ftrace.kp.nmissed, j_inner_int3.kp.nmissed);
out:
	unregister_jprobe(&j_outer);
	unregister_jprobe(&j_inner_ftrace);
	unregister_jprobe(&j_inner_int3);
}

/* ---- arrays: register_jprobes()/unregister_jprobes() ----------------------------------------- */

static const char * const arr_sym[3] = { "jpt_arr0", "jpt_arr1", "jpt_arr2" };
static void * const arr_entry[3] = { h_arr0, h_arr1, h_arr2 };
static const jpt_fn arr_fn[3] = { jpt_arr0, jpt_arr1, jpt_arr2 };
static struct jpt_hrec * const arr_h[3] = { &hrec_h_arr0, &hrec_h_arr1, &hrec_h_arr2 };
static struct jprobe j_arr[3];
static struct jprobe *j_arr_p[3] = { &j_arr[0], &j_arr[1], &j_arr[2] };
static bool arr_live;

/* Calls each array function once: how many array handlers fired (with right args)? */
static unsigned int arr_call(unsigned int *bad)
{
	unsigned int hits = 0, i, h, b;

	*bad = 0;
	for (i = 0; i < 3; i++) {
		h = arr_h[i]->hits;
		b = arr_h[i]->bad;
		jpt_call(arr_fn[i], i == 1 ? &set_b : &set_a);
		hits += arr_h[i]->hits - h;
		*bad += arr_h[i]->bad - b;
	}
	return hits;
}

static void step_array_reg(void)
{
	unsigned int i, hits, bad;
	int rc;

	jpt_reset(&hrec_h_arr0, &frec_jpt_arr0);
	jpt_reset(&hrec_h_arr1, &frec_jpt_arr1);
	jpt_reset(&hrec_h_arr2, &frec_jpt_arr2);
	for (i = 0; i < 3; i++)
		jp_init(&j_arr[i], arr_sym[i], NULL, 0, arr_entry[i]);
	rc = register_jprobes(j_arr_p, 3);
	arr_live = !rc;
	kpt("array-register", !rc, "register_jprobes %d", rc);
	hits = arr_call(&bad);
	kpt("array-all-fire", hits == 3 && !bad && hrec_h_arr0.hits == 1 && hrec_h_arr1.hits == 1 &&
	    hrec_h_arr2.hits == 1, "hits %u %u %u, bad args %u", hrec_h_arr0.hits, hrec_h_arr1.hits,
	    hrec_h_arr2.hits, bad);
}

static void step_array_unreg(void)
{
	unsigned int hits, bad;

	unregister_jprobes(j_arr_p, 3);
	hits = arr_call(&bad);
	kpt("array-unregistered-silent", arr_live && !hits, "registered %d; %u hits after unregister_jprobes()",
	    arr_live, hits);
	arr_live = false;
}

/* An empty array: what register_kprobes() gives (-EINVAL). */
static void step_array_empty(void)
{
	struct kprobe *kps[1] = { NULL };
	int rj = register_jprobes(j_arr_p, 0);
	int rk = register_kprobes(kps, 0);

	unregister_jprobes(j_arr_p, 0);
	kpt("array-empty-einval", rj == -EINVAL && rj == rk, "register_jprobes(, 0) %d, register_kprobes(, 0) %d",
	    rj, rk);
}

/*
 * An offset into jpt_target_bad past its entry (and past an endbr64) at
 * which a plain kprobe registers: a jprobe there fails only for not being
 * at a function entry.  0 if none is found.
 */
static unsigned int not_entry_offset(bool by_symbol)
{
	char buf[KSYM_SYMBOL_LEN];
	unsigned int n;
	struct kprobe kp;
	int rc;

	for (n = 5; n < 64; n++) {
		sprint_symbol(buf, (unsigned long)jpt_target_bad + n);
		if (strncmp(buf, "jpt_target_bad+0x", 17))
			break;
		memset(&kp, 0, sizeof(kp));
		if (by_symbol) {
			kp.symbol_name = "jpt_target_bad";
			kp.offset = n;
		} else {
			kp.addr = (void *)jpt_target_bad + n;
		}
		rc = register_kprobe(&kp);
		if (!rc) {
			unregister_kprobe(&kp);
			return n;
		}
	}
	return 0;
}

enum bad_kind { BAD_NOT_ENTRY, BAD_NULL_ENTRY, BAD_NO_SYMBOL, BAD_KINDS };
static const char * const bad_name[BAD_KINDS] = { "not-entry", "null-entry", "no-symbol" };
/* what register_jprobe() of the bad member alone returns */
static const int bad_code[BAD_KINDS] = { -EINVAL, -EINVAL, -ENOENT };
static const unsigned int bad_pos[] = { 0, 1, 3 };
static struct jprobe j_bad_batch[BAD_KINDS][ARRAY_SIZE(bad_pos)][4];
static struct jprobe j_bad_single[BAD_KINDS][ARRAY_SIZE(bad_pos)];

static void bad_member(struct jprobe *jp, enum bad_kind k, unsigned int n)
{
	switch (k) {
	case BAD_NOT_ENTRY:
		jp_init(jp, NULL, (void *)jpt_target_bad + n, 0, h_bad);
		break;
	case BAD_NULL_ENTRY:
		jp_init(jp, "jpt_target_bad", NULL, 0, NULL);
		break;
	default:
		jp_init(jp, "jpt_no_such_function", NULL, 0, h_bad);
		break;
	}
}

/*
 * A 4-member array whose member at bad_pos[] is bad, the others the three
 * array functions: register_jprobes() fails with the code the bad member
 * alone gets, and leaves nothing registered (no handler fires; the job
 * checks kprobes/list).  Each attempt uses structs of its own, so that a
 * member left registered by a failure is never reused.
 */
static void step_array_bad(void)
{
	unsigned int n = not_entry_offset(false), k, p, i, g, hits, bad;
	struct jprobe *ptrs[4];
	char name[48];
	int rs, rb;

	jpt_reset(&hrec_h_arr0, &frec_jpt_arr0);
	jpt_reset(&hrec_h_arr1, &frec_jpt_arr1);
	jpt_reset(&hrec_h_arr2, &frec_jpt_arr2);
	jpt_reset(&hrec_h_bad, &frec_jpt_target_bad);
	for (k = 0; k < BAD_KINDS; k++) {
		for (p = 0; p < ARRAY_SIZE(bad_pos); p++) {
			snprintf(name, sizeof(name), "array-bad-%s-at-%u", bad_name[k], bad_pos[p]);
			if (k == BAD_NOT_ENTRY && !n) {
				kpt(name, false, "no offset in jpt_target_bad takes a plain kprobe");
				continue;
			}
			bad_member(&j_bad_single[k][p], k, n);
			rs = register_jprobe(&j_bad_single[k][p]);
			if (!rs)
				unregister_jprobe(&j_bad_single[k][p]);
			for (i = 0, g = 0; i < 4; i++) {
				ptrs[i] = &j_bad_batch[k][p][i];
				if (i == bad_pos[p]) {
					bad_member(ptrs[i], k, n);
				} else {
					jp_init(ptrs[i], arr_sym[g], NULL, 0, arr_entry[g]);
					g++;
				}
			}
			rb = register_jprobes(ptrs, 4);
			if (!rb)
				unregister_jprobes(ptrs, 4);
			hits = arr_call(&bad);
			kpt(name, rs == bad_code[k] && rb == rs && !hits && !hrec_h_bad.hits,
			    "alone %d (want %d), in the array %d, handlers fired after: %u", rs, bad_code[k], rb,
			    hits + hrec_h_bad.hits);
		}
	}
}

/* ---- bad input and harmless misuse --------------------------------------------------------- */

static struct jprobe j_bad, j_dbl, j_never[4];
static struct kprobe k_dbl, k_never;
static bool dbl_live;

static void step_bad(void)
{
	unsigned int n = not_entry_offset(false), ns = not_entry_offset(true), hits;
	struct kprobe kp;
	struct jprobe *nv[2] = { &j_never[2], &j_never[3] };
	int rc, rc2, rk, rk2;

	jpt_reset(&hrec_h_bad, &frec_jpt_target_bad);

	/* not at a function entry: kp.addr = func + n, symbol_name + offset n */
	if (n) {
		jp_init(&j_bad, NULL, (void *)jpt_target_bad + n, 0, h_bad);
		rc = register_jprobe(&j_bad);
		if (!rc)
			unregister_jprobe(&j_bad);
		kpt("not-entry-addr", rc == -EINVAL, "jpt_target_bad+%u: %d (a kprobe there: 0)", n, rc);
	} else {
		kpt("not-entry-addr", false, "no offset in jpt_target_bad takes a plain kprobe");
	}
	if (ns) {
		jp_init(&j_bad, "jpt_target_bad", NULL, ns, h_bad);
		rc = register_jprobe(&j_bad);
		if (!rc)
			unregister_jprobe(&j_bad);
		kpt("not-entry-symbol", rc == -EINVAL, "jpt_target_bad + offset %u: %d (a kprobe there: 0)", ns, rc);
	} else {
		kpt("not-entry-symbol", false, "no offset in jpt_target_bad takes a plain kprobe");
	}

	/* a NULL entry, by symbol and by address */
	jp_init(&j_bad, "jpt_target_bad", NULL, 0, NULL);
	rc = register_jprobe(&j_bad);
	if (!rc)
		unregister_jprobe(&j_bad);
	jp_init(&j_bad, NULL, (void *)jpt_target_bad, 0, NULL);
	rc2 = register_jprobe(&j_bad);
	if (!rc2)
		unregister_jprobe(&j_bad);
	kpt("null-entry", rc == -EINVAL && rc2 == -EINVAL, "by symbol %d, by addr %d", rc, rc2);

	/* a symbol that does not exist: what register_kprobe() gives */
	jp_init(&j_bad, "jpt_no_such_function", NULL, 0, h_bad);
	rc = register_jprobe(&j_bad);
	if (!rc)
		unregister_jprobe(&j_bad);
	memset(&kp, 0, sizeof(kp));
	kp.symbol_name = "jpt_no_such_function";
	rk = register_kprobe(&kp);
	if (!rk)
		unregister_kprobe(&kp);
	kpt("no-such-symbol", rc == -ENOENT && rc == rk, "register_jprobe %d, register_kprobe %d", rc, rk);

	/*
	 * Registered twice (by symbol: by address, register_kprobe() WARNs,
	 * see step double-addr): -EINVAL, as register_kprobe() of a kprobe
	 * registered by symbol; the jprobe stays registered once.
	 */
	jp_init(&j_dbl, "jpt_target_bad", NULL, 0, h_bad);
	rc = register_jprobe(&j_dbl);
	dbl_live = !rc;
	rc2 = register_jprobe(&j_dbl);
	memset(&k_dbl, 0, sizeof(k_dbl));
	k_dbl.symbol_name = "jpt_target_dis";
	rk = register_kprobe(&k_dbl);
	rk2 = register_kprobe(&k_dbl);
	kpt("double-register-symbol", !rc && rc2 == -EINVAL && !rk && rk2 == rc2,
	    "jprobe: %d then %d; kprobe: %d then %d", rc, rc2, rk, rk2);
	hits = hrec_h_bad.hits;
	jpt_call(jpt_target_bad, &set_a);
	kpt("double-still-fires-once", hrec_h_bad.hits == hits + 1 && !hrec_h_bad.bad, "hits %u, bad args %u",
	    hrec_h_bad.hits - hits, hrec_h_bad.bad);
	unregister_kprobe(&k_dbl);

	/*
	 * Never registered, unregistered: harmless, and a live jprobe at the
	 * same address is untouched (j_dbl is live on jpt_target_bad).
	 */
	memset(&j_never[0], 0, sizeof(j_never[0]));
	jp_init(&j_never[1], "jpt_target_bad", NULL, 0, h_bad);
	jp_init(&j_never[2], NULL, (void *)jpt_target_bad, 0, h_bad);
	jp_init(&j_never[3], "jpt_target_dis", NULL, 0, h_dis);
	unregister_jprobe(&j_never[0]);
	unregister_jprobe(&j_never[1]);
	unregister_jprobe(&j_never[2]);
	unregister_jprobes(nv, 2);
	hits = hrec_h_bad.hits;
	jpt_call(jpt_target_bad, &set_b);
	kpt("unregister-never-registered", hrec_h_bad.hits == hits + 1,
	    "the live jprobe at the same function: hits %u (want 1)", hrec_h_bad.hits - hits);

	/* enable/disable of a never-registered one: what a kprobe gets */
	jp_init(&j_never[1], "jpt_target_bad", NULL, 0, h_bad);
	rc = enable_jprobe(&j_never[1]);
	rc2 = disable_jprobe(&j_never[1]);
	memset(&k_never, 0, sizeof(k_never));
	k_never.symbol_name = "jpt_target_bad";
	rk = enable_kprobe(&k_never);
	rk2 = disable_kprobe(&k_never);
	kpt("enable-disable-never-registered", rc == rk && rc2 == rk2 && rc < 0 && rc2 < 0,
	    "jprobe: enable %d disable %d; kprobe: enable %d disable %d", rc, rc2, rk, rk2);

	/* unregistered twice */
	unregister_jprobe(&j_dbl);
	unregister_jprobe(&j_dbl);
	hits = hrec_h_bad.hits;
	jpt_call(jpt_target_bad, &set_a);
	kpt("double-unregister", dbl_live && hrec_h_bad.hits == hits, "registered %d; hits after unregister %u",
	    dbl_live, hrec_h_bad.hits - hits);
	dbl_live = false;

	/* jprobe_return() outside a handler returns */
	jprobe_return();
	kpt("jprobe-return-outside-handler", true, "");
}

/* Re-registration by address: register_kprobe() WARNs (WARN_ON_ONCE) and fails. */
static void step_double_addr(void)
{
	int rc, rc2;

	if (!unsafe) {
		outf("# double-addr needs jprobes_test.unsafe=1 (it WARNs)\n");
		return;
	}
	jpt_reset(&hrec_h_bad, &frec_jpt_target_bad);
	jp_init(&j_dbl, NULL, (void *)jpt_target_bad, 0, h_bad);
	rc = register_jprobe(&j_dbl);
	rc2 = register_jprobe(&j_dbl);
	kpt("double-register-addr", !rc && rc2 == -EINVAL, "%d then %d", rc, rc2);
	unregister_jprobe(&j_dbl);
}

/* ---- a probed module that goes away ------------------------------------------------------------ */

static struct jprobe j_mod;

static void step_gone_reg(void)
{
	int rc;

	jpt_reset(&hrec_h_mod, NULL);
	jp_init(&j_mod, "jpt_mod_target", NULL, 0, h_mod);
	/* the target module calls it with these (step gone-check) */
	jpt_expect = set_mod;
	rc = register_jprobe(&j_mod);
	kpt("gone-register", !rc, "register_jprobe(jpt_mod_target) %d", rc);
	/* kprobes/list shows the address as %px: the job finds the line by it */
	outf("addr %px\n", j_mod.kp.addr);
}

static void step_gone_check(void)
{
	kpt("gone-fires", hrec_h_mod.hits == 1 && !hrec_h_mod.bad && args_eq(&hrec_h_mod.seen, &set_mod),
	    "hits %u, handler saw " ARGS_FMT,
	    hrec_h_mod.hits, ARGS_VAL(hrec_h_mod.seen));
	hrec_h_mod.hits = 0;
}

static void step_gone_unreg(void)
{
	unregister_jprobe(&j_mod);
	outf("# unregistered\n");
}

/* ---- debugfs control -------------------------------------------------------------------------- */

static const struct {
	const char *name;
	void (*fn)(void);
} steps[] = {
	{ "args-reg", step_args_reg },
	{ "args-unreg", step_args_unreg },
	{ "agg-reg", step_agg_reg },
	{ "agg-call", step_agg_call },
	{ "agg-unreg", step_agg_unreg },
	{ "dis-reg", step_dis_reg },
	{ "dis-disable", step_dis_disable },
	{ "dis-enable", step_dis_enable },
	{ "dis-unreg", step_dis_unreg },
	{ "reent", step_reent },
	{ "array-reg", step_array_reg },
	{ "array-unreg", step_array_unreg },
	{ "array-empty", step_array_empty },
	{ "array-bad", step_array_bad },
	{ "bad", step_bad },
	{ "double-addr", step_double_addr },
	{ "gone-reg", step_gone_reg },
	{ "gone-check", step_gone_check },
	{ "gone-unreg", step_gone_unreg },
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
	mutex_lock(&jpt_lock);
	out_len = 0;
	out_buf[0] = 0;
	if (!strncmp(cmd, "args-call ", 10)) {
		step_args_call(cmd + 10);
		goto done;
	}
	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		if (!strcmp(cmd, steps[i].name)) {
			steps[i].fn();
			goto done;
		}
	}
	mutex_unlock(&jpt_lock);
	return -EINVAL;
done:
	mutex_unlock(&jpt_lock);
	return count;
}

static ssize_t out_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	ssize_t r;

	mutex_lock(&jpt_lock);
	r = simple_read_from_buffer(ubuf, count, ppos, out_buf, out_len);
	mutex_unlock(&jpt_lock);
	return r;
}

static const struct file_operations ctl_fops = { .owner = THIS_MODULE, .write = ctl_write };
static const struct file_operations out_fops = { .owner = THIS_MODULE, .read = out_read };
static struct dentry *jpt_dir;

static int __init jpt_init(void)
{
	jpt_dir = debugfs_create_dir("jprobes_test", NULL);
	debugfs_create_file("ctl", 0200, jpt_dir, NULL, &ctl_fops);
	debugfs_create_file("out", 0400, jpt_dir, NULL, &out_fops);
	return 0;
}

/*
 * Whatever a failed step left registered goes with the module: unregistering
 * one that is not registered is harmless (step bad checks it).
 */
static void __exit jpt_exit(void)
{
	struct jprobe *all[] = { &j_ftrace, &j_int3, &j_agg1, &j_agg2, &j_dis, &j_outer, &j_inner_ftrace,
				 &j_inner_int3, &j_arr[0], &j_arr[1], &j_arr[2], &j_dbl, &j_mod };
	unsigned int k, p;

	debugfs_remove_recursive(jpt_dir);
	unregister_jprobes(all, ARRAY_SIZE(all));
	if (k_agg_live)
		unregister_kprobe(&k_agg);
	if (r_agg_live)
		unregister_kretprobe(&r_agg);
	for (k = 0; k < BAD_KINDS; k++) {
		for (p = 0; p < ARRAY_SIZE(bad_pos); p++)
			unregister_jprobes((struct jprobe *[]){ &j_bad_batch[k][p][0], &j_bad_batch[k][p][1],
							       &j_bad_batch[k][p][2], &j_bad_batch[k][p][3] }, 4);
	}
}

module_init(jpt_init);
module_exit(jpt_exit);
MODULE_DESCRIPTION("guest tests of the jprobes layer of the Rust kprobes core");
MODULE_LICENSE("GPL");
