// SPDX-License-Identifier: GPL-2.0
/*
 * The driver of hostdiff-c and hostdiff-rust: drives upstream
 * kernel/kprobes.c (compiled in kcore.c) or the Rust core (with rshim.c)
 * with an operation sequence read from stdin or a file, and prints the
 * canonical trace of MODEL.md on stdout.  Exit status: 0 done, 2 bad sequence (the
 * sequence asked for something undefined, e.g. unregistering a kretprobe
 * that is not registered), abort() on a violated kernel rule.
 */
#include "hd.h"

#define NK 16
#define NR 8

enum pre_kind { PRE_NONE, PRE_OK, PRE_RET1, PRE_HIT };

struct hd_kp {
	struct kprobe kp;
	char sym[64];
	enum pre_kind pre;
	unsigned long pre_target;
	bool post;
	bool live;
	bool leaked;		/* unregister failed: still registered, never reused */
};

struct hd_rp {
	struct kretprobe rp;
	char sym[64];
	int entry;		/* -1 none, 0 returns 0, 1 returns 1 */
	bool handler;
	bool live;
	bool leaked;
};

static struct hd_kp kps[NK];
static struct hd_rp rps[NR];
static unsigned long hd_seq;	/* entry-handler data stamps */
static int lineno;

static void __attribute__((noreturn, format(printf, 1, 2))) usage(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	va_start(ap, fmt);
	fprintf(stderr, "%s: line %d: ", hd_progname, lineno);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}

const char *hd_probe_name(struct kprobe *p)
{
	static char b[4][16];
	static int n;
	char *s = b[n++ & 3];

	for (int i = 0; i < NK; i++)
		if (p == &kps[i].kp) {
			snprintf(s, 16, "K%d", i);
			return s;
		}
	for (int i = 0; i < NR; i++)
		if (p == &rps[i].rp.kp) {
			snprintf(s, 16, "R%d", i);
			return s;
		}
	return "?";
}

/* ---- handlers ------------------------------------------------------------------ */
static int handler_calls;	/* per operation: a corrupted list loops */

static void count_call(void)
{
	if (++handler_calls > 1000)
		hd_fatal("runaway: more than 1000 handler calls in one operation");
}

static int pre_handler(struct kprobe *p, struct pt_regs *regs)
{
	struct hd_kp *k = container_of(p, struct hd_kp, kp);

	(void)regs;
	count_call();
	switch (k->pre) {
	case PRE_RET1:
		hd_trace("pre %s = 1", hd_probe_name(p));
		return 1;
	case PRE_HIT:
		hd_trace("pre %s calls %s", hd_probe_name(p), hd_sym(k->pre_target));
		hd_hit(k->pre_target, 1);
		return 0;
	default:
		hd_trace("pre %s", hd_probe_name(p));
		return 0;
	}
}

static void post_handler(struct kprobe *p, struct pt_regs *regs, unsigned long flags)
{
	(void)regs; (void)flags;
	count_call();
	hd_trace("post %s", hd_probe_name(p));
}

static int entry_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);
	struct hd_rp *r = container_of(rp, struct hd_rp, rp);

	(void)regs;
	hd_seq++;
	if (rp->data_size >= sizeof(unsigned long))
		memcpy(ri->data, &hd_seq, sizeof(hd_seq));
	hd_trace("entry %s = %d data=%lu", hd_probe_name(&rp->kp), r->entry, hd_seq);
	return r->entry;
}

static int ret_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);
	unsigned long d = 0;

	(void)regs;
	if (rp->data_size >= sizeof(unsigned long)) {
		memcpy(&d, ri->data, sizeof(d));
		hd_trace("return %s data=%lu", hd_probe_name(&rp->kp), d);
	} else {
		hd_trace("return %s", hd_probe_name(&rp->kp));
	}
	return 0;
}

/* ---- parsing ------------------------------------------------------------------- */
#define MAXTOK 40
static char *tok[MAXTOK];
static int ntok;

static int index_of(const char *t, char c, int n)
{
	char *end;
	long v;

	if (!t || t[0] != c)
		usage("expected %c<n>, got '%s'", c, t ? t : "");
	v = strtol(t + 1, &end, 10);
	if (*end || v < 0 || v >= n)
		usage("bad object '%s'", t);
	return (int)v;
}

static unsigned long target(const char *t)
{
	unsigned long a;

	if (hd_resolve(t, &a))
		usage("unknown location '%s'", t);
	return a;
}

static unsigned long num(const char *t)
{
	char *end;
	unsigned long v = strtoul(t, &end, 0);

	if (*end)
		usage("bad number '%s'", t);
	return v;
}

/* Common probe fields: sym= addr= off= disabled; returns unparsed tokens. */
static bool spec_common(struct kprobe *p, char *sym, const char *t)
{
	if (!strncmp(t, "sym=", 4)) {
		snprintf(sym, 64, "%s", t + 4);
		p->symbol_name = sym;
	} else if (!strncmp(t, "addr=", 5)) {
		p->addr = (kprobe_opcode_t *)target(t + 5);
	} else if (!strncmp(t, "off=", 4)) {
		p->offset = (unsigned int)num(t + 4);
	} else if (!strcmp(t, "disabled")) {
		p->flags |= KPROBE_FLAG_DISABLED;
	} else {
		return false;
	}
	return true;
}

/* Re-initializing a registered probe object is undefined: skipped. */
static bool kp_set(int i, int from)
{
	struct hd_kp *k = &kps[i];

	if (k->live || k->leaked) {
		hd_trace("skip K%d (%s)", i, k->live ? "registered" : "leaked");
		return false;
	}
	memset(k, 0, sizeof(*k));
	for (int t = from; t < ntok; t++) {
		if (spec_common(&k->kp, k->sym, tok[t]))
			continue;
		if (!strcmp(tok[t], "pre=none")) {
			k->pre = PRE_NONE;
		} else if (!strcmp(tok[t], "pre=ok")) {
			k->pre = PRE_OK;
		} else if (!strcmp(tok[t], "pre=ret1")) {
			k->pre = PRE_RET1;
		} else if (!strncmp(tok[t], "pre=hit:", 8)) {
			k->pre = PRE_HIT;
			k->pre_target = target(tok[t] + 8);
		} else if (!strcmp(tok[t], "post=ok")) {
			k->post = true;
		} else if (!strcmp(tok[t], "post=none")) {
			k->post = false;
		} else {
			usage("bad kprobe field '%s'", tok[t]);
		}
	}
	k->kp.pre_handler = k->pre == PRE_NONE ? NULL : pre_handler;
	k->kp.post_handler = k->post ? post_handler : NULL;
	return true;
}

static bool rp_set(int i, int from)
{
	struct hd_rp *r = &rps[i];

	if (r->live || r->leaked) {
		hd_trace("skip R%d (%s)", i, r->live ? "registered" : "leaked");
		return false;
	}
	memset(r, 0, sizeof(*r));
	r->entry = -1;
	r->handler = true;
	for (int t = from; t < ntok; t++) {
		if (spec_common(&r->rp.kp, r->sym, tok[t]))
			continue;
		if (!strncmp(tok[t], "maxactive=", 10))
			r->rp.maxactive = (int)strtol(tok[t] + 10, NULL, 0);
		else if (!strncmp(tok[t], "data=", 5))
			r->rp.data_size = num(tok[t] + 5);
		else if (!strcmp(tok[t], "entry=none"))
			r->entry = -1;
		else if (!strcmp(tok[t], "entry=ok"))
			r->entry = 0;
		else if (!strcmp(tok[t], "entry=ret1"))
			r->entry = 1;
		else if (!strcmp(tok[t], "handler=none"))
			r->handler = false;
		else if (!strcmp(tok[t], "handler=ok"))
			r->handler = true;
		else
			usage("bad kretprobe field '%s'", tok[t]);
	}
	r->rp.entry_handler = r->entry >= 0 ? entry_handler : NULL;
	r->rp.handler = r->handler ? ret_handler : NULL;
	return true;
}

/*
 * Re-registering a registered probe is defined only where upstream detects
 * it: by symbol (addr and symbol_name are then both set: -EINVAL) or by
 * address with offset 0 (warn_kprobe_rereg(): -EINVAL).  A probe registered
 * by address with a non-zero offset is looked for at addr + offset, is not
 * found, and is re-initialized while hashed (MODEL.md, findings).
 */
static bool rereg_undefined(struct kprobe *p, const char *name)
{
	if (p->symbol_name || !p->offset)
		return false;
	hd_trace("skip %s (registered by addr+offset: re-registration undefined)", name);
	return true;
}

bool hd_kprobe_reachable(struct kprobe *p);
bool hd_kprobe_stays_disabled(struct kprobe *p);

/*
 * enable_kprobe() returned 0 for a registered probe that is still disabled
 * (itself, or its aggregate): upstream clears the flag only together with
 * arming, which it skips while kprobes/enabled is 0, so the probe never
 * fires again (MODEL.md section 5, finding 5).
 */
static void enable_check(struct kprobe *p, bool live, int r)
{
	if (!r && live && hd_kprobe_stays_disabled(p))
		hd_trace("!enable %s returned 0 but the probe stays disabled", hd_probe_name(p));
}

/*
 * Registered = reachable from the core's hash table (MODEL.md).  An object
 * that an unregister (explicit, or the rollback of a failed batch) left
 * reachable is leaked: still registered, never re-initialized, never
 * unregistered again if it is a kretprobe.
 */
static void update(bool *live, bool *leaked, struct kprobe *p, bool unregistering)
{
	bool now = hd_kprobe_reachable(p);

	if (now && unregistering && !*leaked) {
		*leaked = true;
		hd_trace("!leaked %s (still registered after unregister)", hd_probe_name(p));
	}
	*live = now;
}
#define KUPDATE(kp_, unreg_) do { struct hd_kp *k_ = container_of(kp_, struct hd_kp, kp); \
	update(&k_->live, &k_->leaked, &k_->kp, unreg_); } while (0)
#define RUPDATE(rp_, unreg_) do { struct hd_rp *r_ = container_of(rp_, struct hd_rp, rp); \
	update(&r_->live, &r_->leaked, &r_->rp.kp, unreg_); } while (0)

static void ret(int r)
{
	hd_trace("= %d", r);
}

/* ---- operations ------------------------------------------------------------------- */
static void op_list(const struct file_operations *fops)
{
	struct file f = { 0 };
	struct seq_file m = { .file = &f };
	loff_t pos = 0;
	void *v;

	v = fops->seq_ops->start(&m, &pos);
	while (v) {
		fops->seq_ops->show(&m, v);
		v = fops->seq_ops->next(&m, v, &pos);
	}
	fops->seq_ops->stop(&m, v);
	if (m.buf) {
		for (char *l = strtok(m.buf, "\n"); l; l = strtok(NULL, "\n"))
			hd_trace("| %s", l);
		free(m.buf);
	}
	hd_trace("| end");
}

static void op_module(const char *what)
{
	struct module *m = &hd_m0;

	if (ntok != 2 || strcmp(tok[1], "m0"))
		usage("only module m0 exists");
	if (!strcmp(what, "load")) {
		if (m->loaded) {
			hd_trace("already loaded");
			return;
		}
		m->loaded = 1;
		m->state = MODULE_STATE_COMING;
		m->core_start = HD_M;
		m->core_end = HD_M + 0xc0;
		m->init_start = HD_MI;
		m->init_end = HD_MI + 0x40;
		hd_module_nb->notifier_call(hd_module_nb, MODULE_STATE_COMING, m);
	} else if (!strcmp(what, "init-done")) {
		if (!m->loaded || m->state != MODULE_STATE_COMING) {
			hd_trace("not coming");
			return;
		}
		m->state = MODULE_STATE_LIVE;
		hd_module_nb->notifier_call(hd_module_nb, MODULE_STATE_LIVE, m);
		hd_text_forget(m->init_start, m->init_end);
		m->init_start = m->init_end = 0;	/* init text freed */
	} else {
		if (!m->loaded) {
			hd_trace("not loaded");
			return;
		}
		m->state = MODULE_STATE_GOING;
		hd_module_nb->notifier_call(hd_module_nb, MODULE_STATE_GOING, m);
		if (m->refs)
			hd_trace("!module refs=%d at unload", m->refs);
		m->loaded = 0;
		hd_text_forget(m->core_start, m->core_end);
		hd_text_forget(m->init_start, m->init_end);
		m->core_start = m->core_end = m->init_start = m->init_end = 0;
	}
}

static ssize_t op_write(const struct file_operations *fops, const char *val)
{
	struct file f = { 0 };
	loff_t pos = 0;
	ssize_t r = fops->write(&f, val, strlen(val), &pos);

	hd_trace("= %ld", (long)r);
	return r;
}

/* kprobes/enabled as its read op shows it: '1' or '0'. */
static char read_enabled(void)
{
	struct file f = { 0 };
	loff_t pos = 0;
	char b[8] = "";
	ssize_t n = hd_kprobes_enabled_fops->read(&f, b, sizeof(b) - 1, &pos);

	return n > 0 ? b[0] : '?';
}

/*
 * A write to kprobes/enabled succeeded and kprobes are globally disabled:
 * nothing may stay armed in the text.  Upstream leaves the int3 of an
 * optimized probe whose unoptimization is queued (disarm_all_kprobes()
 * forces it, or it was forced before: the probe is then on the freeing
 * list): __disarm_kprobe() skips the disarm of a queued probe and the
 * optimizer disarms only disabled ones, so the probe fires while probing is
 * off (MODEL.md section 5, finding 6; docs/divergences.md, divergence 6).
 */
static void enabled_check(const char *val, ssize_t r)
{
	if (r == (ssize_t)strlen(val) && read_enabled() == '0')
		hd_text_armed_note();
}

static void op_check(void)
{
	hd_text_check();
	for (int i = 0; i < 2; i++) {
		struct ftrace_ops *o = hd_ftrace_ops[i];
		char b[512] = "";

		if (!o)
			continue;
		for (int j = 0; j < o->nfilter; j++) {
			strcat(b, " ");
			strcat(b, hd_sym(o->filter[j]));
		}
		hd_trace("ftrace %s registered filter:%s", hd_ops_name(o), b);
	}
	int frames = 0;
	for (struct rethook_node *n = hd_task_rethooks; n; n = n->next)
		frames++;
	if (frames)
		hd_trace("rethook nodes pending=%d", frames);
	if (hd_work_pending())
		hd_trace("optimizer work pending");
	for (int i = 0; i < NK; i++)
		if (kps[i].live)
			hd_trace("live K%d flags=0x%x", i, kps[i].kp.flags);
	for (int i = 0; i < NR; i++)
		if (rps[i].live)
			hd_trace("live R%d flags=0x%x", i, rps[i].rp.kp.flags);
}

static void run(void)
{
	const char *op = tok[0];
	int i, r;

	if (!strcmp(op, "set")) {
		kp_set(index_of(tok[1], 'K', NK), 2);
	} else if (!strcmp(op, "reg") || !strcmp(op, "rereg")) {
		i = index_of(tok[1], 'K', NK);
		if (!strcmp(op, "reg") && ntok > 2 && !kp_set(i, 2))
			return;
		if (kps[i].live && rereg_undefined(&kps[i].kp, tok[1]))
			return;
		r = register_kprobe(&kps[i].kp);
		KUPDATE(&kps[i].kp, false);
		ret(r);
	} else if (!strcmp(op, "regs")) {
		struct kprobe *v[MAXTOK];
		bool was[MAXTOK];

		for (i = 1; i < ntok; i++) {
			int k = index_of(tok[i], 'K', NK);
			v[i - 1] = &kps[k].kp;
			was[i - 1] = kps[k].live;
			bool dup = false;

			for (int j = 0; j < i - 1; j++)
				dup |= v[j] == v[i - 1];
			if ((was[i - 1] || dup) && rereg_undefined(v[i - 1], tok[i]))
				return;
		}
		r = register_kprobes(v, ntok - 1);
		for (i = 0; i < ntok - 1; i++)
			KUPDATE(v[i], r != 0 && !was[i]);
		ret(r);
	} else if (!strcmp(op, "unreg") || !strcmp(op, "unregs")) {
		struct kprobe *v[MAXTOK];

		if (!strcmp(op, "unreg") && ntok != 2)
			usage("unreg takes one probe");
		for (i = 1; i < ntok; i++)
			v[i - 1] = &kps[index_of(tok[i], 'K', NK)].kp;
		bool was[MAXTOK];

		for (i = 0; i < ntok - 1; i++)
			was[i] = container_of(v[i], struct hd_kp, kp)->live;
		if (!strcmp(op, "unreg"))
			unregister_kprobe(v[0]);
		else
			unregister_kprobes(v, ntok - 1);
		for (i = 0; i < ntok - 1; i++)
			KUPDATE(v[i], was[i]);
	} else if (!strcmp(op, "enable") || !strcmp(op, "disable")) {
		i = index_of(tok[1], 'K', NK);
		r = op[0] == 'e' ? enable_kprobe(&kps[i].kp) : disable_kprobe(&kps[i].kp);
		ret(r);
		if (op[0] == 'e')
			enable_check(&kps[i].kp, kps[i].live, r);
	} else if (!strcmp(op, "kret-set")) {
		rp_set(index_of(tok[1], 'R', NR), 2);
	} else if (!strcmp(op, "kret-reg")) {
		i = index_of(tok[1], 'R', NR);
		if (ntok > 2 && !rp_set(i, 2))
			return;
		if (rps[i].live && rereg_undefined(&rps[i].rp.kp, tok[1]))
			return;
		r = register_kretprobe(&rps[i].rp);
		RUPDATE(&rps[i].rp, false);
		ret(r);
	} else if (!strcmp(op, "kret-regs")) {
		struct kretprobe *v[MAXTOK];
		bool was[MAXTOK];

		for (i = 1; i < ntok; i++) {
			int k = index_of(tok[i], 'R', NR);
			v[i - 1] = &rps[k].rp;
			was[i - 1] = rps[k].live;
			bool dup = false;

			for (int j = 0; j < i - 1; j++)
				dup |= v[j] == v[i - 1];
			if ((was[i - 1] || dup) && rereg_undefined(&v[i - 1]->kp, tok[i]))
				return;
		}
		r = register_kretprobes(v, ntok - 1);
		for (i = 0; i < ntok - 1; i++)
			RUPDATE(v[i], r != 0 && !was[i]);
		ret(r);
	} else if (!strcmp(op, "kret-unreg") || !strcmp(op, "kret-unregs") ||
		   !strcmp(op, "kret-unreg-live")) {
		struct kretprobe *v[MAXTOK];
		int n = 0;

		if (!strcmp(op, "kret-unreg") && ntok != 2)
			usage("kret-unreg takes one kretprobe");
		if (!strcmp(op, "kret-unreg-live")) {
			for (i = 0; i < NR; i++)
				if (rps[i].live && !rps[i].leaked)
					v[n++] = &rps[i].rp;
		}
		for (i = 1; i < ntok && strcmp(op, "kret-unreg-live"); i++) {
			int k = index_of(tok[i], 'R', NR), dup = 0;

			for (int j = 0; j < n; j++)
				dup |= v[j] == &rps[k].rp;
			/* upstream dereferences rp->rh: only registered, distinct ones */
			if (!rps[k].live || rps[k].leaked || dup) {
				hd_trace("skip R%d (%s)", k, dup ? "twice" : rps[k].leaked ? "leaked" :
					 "not registered");
				continue;
			}
			v[n++] = &rps[k].rp;
		}
		if (!n)
			return;
		if (!strcmp(op, "kret-unreg"))
			unregister_kretprobe(v[0]);
		else
			unregister_kretprobes(v, n);
		for (i = 0; i < n; i++)
			RUPDATE(v[i], true);
	} else if (!strcmp(op, "kret-enable") || !strcmp(op, "kret-disable")) {
		i = index_of(tok[1], 'R', NR);
		r = op[5] == 'e' ? enable_kretprobe(&rps[i].rp) : disable_kretprobe(&rps[i].rp);
		ret(r);
		if (op[5] == 'e')
			enable_check(&rps[i].rp.kp, rps[i].live, r);
	} else if (!strcmp(op, "hit")) {
		if (ntok != 2)
			usage("hit takes one location");
		hd_frame++;
		hd_hit(target(tok[1]), 0);
	} else if (!strcmp(op, "ret")) {
		if (hd_rethook_return())
			hd_trace("no hooked frame");
	} else if (!strcmp(op, "optimize")) {
		if (!hd_work_run())
			hd_trace("~work idle");
	} else if (!strcmp(op, "optimize-wait")) {
		hd_relax_count = 0;
		wait_for_kprobe_optimizer();
	} else if (!strcmp(op, "sysctl-opt")) {
		size_t len;
		loff_t pos = 0;

		if (ntok != 2)
			usage("sysctl-opt takes a value");
		len = strlen(tok[1]);
		hd_relax_count = 0;
		ret(hd_sysctl_table->proc_handler(hd_sysctl_table, 1, tok[1], &len, &pos));
	} else if (!strcmp(op, "debugfs-enabled")) {
		if (ntok != 2)
			usage("debugfs-enabled takes a value");
		hd_relax_count = 0;
		enabled_check(tok[1], op_write(hd_kprobes_enabled_fops, tok[1]));
	} else if (!strcmp(op, "debugfs-read-enabled")) {
		struct file f = { 0 };
		loff_t pos = 0;
		char b[8] = "";
		ssize_t n = hd_kprobes_enabled_fops->read(&f, b, sizeof(b) - 1, &pos);

		hd_trace("= %ld '%c'", (long)n, b[0]);
	} else if (!strncmp(op, "module-", 7)) {
		if (strcmp(op + 7, "load") && strcmp(op + 7, "init-done") && strcmp(op + 7, "unload"))
			usage("unknown op '%s'", op);
		op_module(op + 7);
	} else if (!strcmp(op, "free-init")) {
		if (hd_init_freed) {
			hd_trace("already freed");
			return;
		}
		hd_init_freed = true;	/* system_state = SYSTEM_FREEING_INITMEM */
		kprobe_free_init_mem();
		hd_text_forget(hd_sec.init_begin, hd_sec.init_end);
	} else if (!strcmp(op, "dump-list")) {
		op_list(hd_kprobes_list_fops);
	} else if (!strcmp(op, "dump-blacklist")) {
		op_list(hd_kprobes_blacklist_fops);
	} else if (!strcmp(op, "dump-kallsyms")) {
		for (unsigned int n = 0;; n++) {
			unsigned long value;
			char type, name[KSYM_NAME_LEN];

			if (kprobe_get_kallsym(n, &value, &type, name))
				break;
			hd_trace("kallsym %u %c %s %s", n, type, name, hd_page((void *)value));
		}
	} else if (!strcmp(op, "flags") || !strcmp(op, "nmissed")) {
		struct kprobe *p;

		if (ntok != 2)
			usage("%s takes one probe", op);
		if (tok[1][0] == 'R')
			p = &rps[index_of(tok[1], 'R', NR)].rp.kp;
		else
			p = &kps[index_of(tok[1], 'K', NK)].kp;
		if (op[0] == 'f')
			hd_trace("flags=0x%x addr=%s", p->flags, p->addr ? hd_sym((unsigned long)p->addr) : "null");
		else if (tok[1][0] == 'R')
			hd_trace("nmissed=%d kp.nmissed=%lu", container_of(p, struct kretprobe, kp)->nmissed,
				 p->nmissed);
		else
			hd_trace("nmissed=%lu", p->nmissed);
	} else if (!strcmp(op, "check")) {
		op_check();
	} else if (!strcmp(op, "ftrace-fail")) {
		char *end;
		long e;

		if (ntok != 3 || (strcmp(tok[1], "filter") && strcmp(tok[1], "register")))
			usage("ftrace-fail takes filter|register and an error");
		e = strtol(tok[2], &end, 10);
		if (*end || e >= 0 || e < -MAX_ERRNO)
			usage("bad error '%s'", tok[2]);
		hd_ftrace_fail_next(tok[1][0] == 'r', (int)e);
	} else {
		usage("unknown op '%s'", op);
	}
}

int main(int argc, char **argv)
{
	FILE *in = stdin;
	char line[1024];

	if (argc > 0 && argv[0][0])
		hd_progname = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	setvbuf(stdout, NULL, getenv("HOSTDIFF_UNBUFFERED") ? _IOLBF : _IOFBF, 1 << 16);
	if (argc > 1 && !(in = fopen(argv[1], "r"))) {
		perror(argv[1]);
		return 2;
	}
	printf("> boot\n");
	hd_early_initcall();
	hd_subsys_initcall();
	hd_late_initcall();
	hd_rcu_quiesce();
	while (fgets(line, sizeof(line), in)) {
		char *s = line, *h = strchr(line, '#');

		lineno++;
		if (h)
			*h = 0;
		ntok = 0;
		for (char *t = strtok(s, " \t\r\n"); t; t = strtok(NULL, " \t\r\n")) {
			if (ntok == MAXTOK)
				usage("too many fields");
			tok[ntok++] = t;
		}
		if (!ntok)
			continue;
		printf(">");
		for (int i = 0; i < ntok; i++)
			printf(" %s", tok[i]);
		printf("\n");
		handler_calls = 0;
		run();
		hd_rcu_quiesce();
	}
	fflush(stdout);
	return 0;
}
