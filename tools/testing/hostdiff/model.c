// SPDX-License-Identifier: GPL-2.0
/*
 * The simulated kernel of the host differential (MODEL.md): symbol table,
 * kallsyms, modules, ftrace, rethook, RCU, locks, work, printk, seq_file,
 * sysctl and debugfs.  Everything the core does to these services that is
 * observable is written to the trace.
 */
#include "hd.h"

/* ---- trace ----------------------------------------------------------------- */
const char *hd_progname = "hostdiff";	/* for stderr messages (driver.c sets it) */

void hd_trace(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("  ", stdout);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	va_end(ap);
}

void hd_fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fflush(stdout);
	fprintf(stderr, "%s: FATAL: ", hd_progname);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	abort();
}

bool hd_warn(bool cond, const char *what)
{
	if (cond)
		hd_trace("WARN");
	(void)what;
	return cond;
}

void hd_printk(const char *level, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	n = strlen(buf);
	while (n && buf[n - 1] == '\n')
		buf[--n] = 0;
	hd_trace("log %s: %s", level, buf);
}

/* ---- memory ---------------------------------------------------------------- */
void *kmalloc(size_t size, gfp_t gfp) { (void)gfp; return malloc(size ? size : 1); }
void *kzalloc(size_t size, gfp_t gfp) { (void)gfp; return calloc(1, size ? size : 1); }
void kfree(const void *p) { free((void *)p); }

/* ---- the image --------------------------------------------------------------- */
#define T HD_T
const struct hd_symbol hd_symbols[] = {
	/* name                 addr        size  kind     mod ftr odd noopt nonboost */
	{ "f0",                 T + 0x000, 0x40, HD_TEXT, 0, 1, 0, 0, -1 },
	{ "f1",                 T + 0x040, 0x40, HD_TEXT, 0, 1, 0, 0, -1 },
	{ "f2",                 T + 0x080, 0x40, HD_TEXT, 0, 0, 0, 0, -1 },
	{ "f3",                 T + 0x0c0, 0x40, HD_TEXT, 0, 0, 1, 1, -1 },
	{ "f4",                 T + 0x100, 0x40, HD_TEXT, 0, 1, 0, 0, 8 },
	{ "blacklisted_fn",     T + 0x140, 0x40, HD_TEXT, 0, 1, 0, 0, -1 },
	{ "kprobes_fn",         T + 0x180, 0x40, HD_TEXT, 0, 0, 0, 0, -1 },
	{ "f7",                 T + 0x1c0, 0x40, HD_TEXT, 0, 0, 0, 0, -1 },
	{ "noinstr_fn",         T + 0x200, 0x40, HD_TEXT, 0, 0, 0, 0, -1 },
	{ "__pfx_f9",           T + 0x240, 0x10, HD_TEXT, 0, 0, 0, 0, -1 },
	{ "f9",                 T + 0x250, 0x30, HD_TEXT, 0, 1, 0, 0, -1 },
	{ "blacklisted_fn.cold", T + 0x280, 0x40, HD_TEXT, 0, 0, 0, 0, -1 },
	{ "entry_fn",           T + 0x2c0, 0x40, HD_TEXT, 0, 0, 0, 0, -1 },
	{ "init_fn",            T + 0x400, 0x40, HD_TEXT, 0, 0, 0, 0, -1 },
	{ "data_var",           HD_D,      0x40, HD_DATA, 0, 0, 0, 0, -1 },
	{ "m0_fn",              HD_M + 0x00, 0x40, HD_TEXT, 1, 1, 0, 0, -1 },
	{ "m0_fn2",             HD_M + 0x40, 0x40, HD_TEXT, 1, 0, 0, 0, -1 },
	{ "m0_bl",              HD_M + 0x80, 0x40, HD_TEXT, 1, 0, 0, 0, -1 },
	{ "m0_init",            HD_MI,       0x40, HD_TEXT, 2, 0, 0, 0, -1 },
};
#undef T
const int hd_nsymbols = ARRAY_SIZE(hd_symbols);

/* Static call and BUG() sites (f7+0x10, f7+0x20); each covers 4 bytes. */
static const unsigned long hd_static_calls[] = { HD_T + 0x1d0 };
static const unsigned long hd_bugs[] = { HD_T + 0x1e0 };

struct hd_sections hd_sec = {
	.kprobes_start = HD_T + 0x180, .kprobes_end = HD_T + 0x1c0,
	.noinstr_start = HD_T + 0x200, .noinstr_end = HD_T + 0x240,
	.init_begin = HD_T + 0x400, .init_end = HD_T + 0x440,
	.entry_start = HD_T + 0x2c0, .entry_end = HD_T + 0x300,
};
unsigned long hd_kprobe_blacklist_syms[] = { HD_T + 0x140, HD_D };
unsigned long hd_kprobe_blacklist_nr = ARRAY_SIZE(hd_kprobe_blacklist_syms);
struct kretprobe_blackpoint kretprobe_blacklist[] = { { NULL, NULL } };
const int kretprobe_blacklist_size = 0;
bool hd_init_freed;

static unsigned long m0_blacklist[] = { HD_M + 0x80 };
struct module hd_m0 = {
	.name = "m0",
	.num_kprobe_blacklist = 1,
	.kprobe_blacklist = m0_blacklist,
};
struct notifier_block *hd_module_nb;

static bool present(const struct hd_symbol *s)
{
	if (s->module == 1)
		return hd_m0.loaded;
	if (s->module == 2)
		return hd_m0.loaded && hd_m0.init_end > hd_m0.init_start;
	return true;
}

const struct hd_symbol *hd_model_sym(unsigned long addr)
{
	for (int i = 0; i < hd_nsymbols; i++)
		if (addr >= hd_symbols[i].addr && addr < hd_symbols[i].addr + hd_symbols[i].size)
			return &hd_symbols[i];
	return NULL;
}

const struct hd_symbol *hd_present_sym(unsigned long addr)
{
	const struct hd_symbol *s = hd_model_sym(addr);

	return s && present(s) ? s : NULL;
}

const char *hd_sym(unsigned long addr)
{
	static char bufs[8][96];
	static int n;
	char *b = bufs[n++ & 7];
	const struct hd_symbol *s = hd_model_sym(addr);

	if (s)
		snprintf(b, 96, "%s+0x%lx", s->name, addr - s->addr);
	else
		snprintf(b, 96, "0x%lx", addr);
	return b;
}

int hd_resolve(const char *spec, unsigned long *addr)
{
	char name[128];
	const char *plus;
	unsigned long off = 0;

	if (!strncmp(spec, "0x", 2)) {
		*addr = strtoul(spec, NULL, 16);
		return 0;
	}
	plus = strchr(spec, '+');
	snprintf(name, sizeof(name), "%.*s", plus ? (int)(plus - spec) : (int)strlen(spec), spec);
	if (plus)
		off = strtoul(plus + 1, NULL, 0);
	for (int i = 0; i < hd_nsymbols; i++)
		if (!strcmp(hd_symbols[i].name, name)) {
			*addr = hd_symbols[i].addr + off;
			return 0;
		}
	return -1;
}

bool hd_insn_boundary(const struct hd_symbol *s, unsigned long off, unsigned long *len)
{
	if (off >= s->size)
		return false;
	if (s->odd) {
		/* 0:4 bytes, 4:5 bytes, 9:3 bytes, then 4-byte instructions from 12 */
		static const unsigned long b[] = { 0, 4, 9 }, l[] = { 4, 5, 3 };
		for (int i = 0; i < 3; i++)
			if (off == b[i]) {
				if (len)
					*len = l[i];
				return true;
			}
		if (off < 12 || off % 4)
			return false;
	} else if (off % 4) {
		return false;
	}
	if (len)
		*len = 4;
	return true;
}

static bool overlaps(unsigned long site, unsigned long start, unsigned long end)
{
	return site <= end && site + 4 > start;
}

bool hd_reserved_site(unsigned long start, unsigned long end)
{
	for (size_t i = 0; i < ARRAY_SIZE(hd_static_calls); i++)
		if (overlaps(hd_static_calls[i], start, end))
			return true;
	for (int i = 0; i < hd_nsymbols; i++)
		if (hd_symbols[i].ftrace && present(&hd_symbols[i]) &&
		    overlaps(hd_symbols[i].addr, start, end))
			return true;
	return false;
}

/* ---- kallsyms and text classification -------------------------------------- */
unsigned long kallsyms_lookup_name(const char *name)
{
	for (int i = 0; i < hd_nsymbols; i++)
		if (!strcmp(hd_symbols[i].name, name) && present(&hd_symbols[i]))
			return hd_symbols[i].addr;
	return 0;
}

int kallsyms_lookup_size_offset(unsigned long addr, unsigned long *size, unsigned long *offset)
{
	const struct hd_symbol *s = hd_present_sym(addr);

	if (!s)
		return 0;
	if (size)
		*size = s->size;
	if (offset)
		*offset = addr - s->addr;
	return 1;
}

int lookup_symbol_name(unsigned long addr, char *symname)
{
	const struct hd_symbol *s = hd_present_sym(addr);

	symname[0] = 0;
	if (!s)
		return -ERANGE;
	strscpy(symname, s->name, KSYM_NAME_LEN);
	return 0;
}

const char *kallsyms_lookup(unsigned long addr, unsigned long *symbolsize,
			    unsigned long *offset, char **modname, char *namebuf)
{
	const struct hd_symbol *s = hd_present_sym(addr);

	namebuf[KSYM_NAME_LEN - 1] = 0;
	namebuf[0] = 0;
	if (!s)
		return NULL;
	if (symbolsize)
		*symbolsize = s->size;
	if (offset)
		*offset = addr - s->addr;
	if (modname)
		*modname = s->module ? (char *)hd_m0.name : NULL;
	strscpy(namebuf, s->name, KSYM_NAME_LEN);
	return namebuf;
}

int core_kernel_text(unsigned long addr)
{
	if (addr >= HD_T && addr < HD_T + 0x400)
		return 1;
	return !hd_init_freed && addr >= hd_sec.init_begin && addr < hd_sec.init_end;
}

static bool in_mod(unsigned long addr, const struct module *m)
{
	return m->loaded && ((addr >= m->core_start && addr < m->core_end) ||
			     (addr >= m->init_start && addr < m->init_end));
}

int kernel_text_address(unsigned long addr)
{
	return core_kernel_text(addr) || in_mod(addr, &hd_m0);
}

int in_gate_area_no_mm(unsigned long addr) { (void)addr; return 0; }
int jump_label_text_reserved(void *start, void *end) { (void)start; (void)end; return 0; }

int static_call_text_reserved(void *start, void *end)
{
	for (size_t i = 0; i < ARRAY_SIZE(hd_static_calls); i++)
		if (overlaps(hd_static_calls[i], (unsigned long)start, (unsigned long)end))
			return 1;
	return 0;
}

struct bug_entry *find_bug(unsigned long bugaddr)
{
	for (size_t i = 0; i < ARRAY_SIZE(hd_bugs); i++)
		if (hd_bugs[i] == bugaddr)
			return (struct bug_entry *)&hd_bugs[i];
	return NULL;
}

unsigned long ftrace_location(unsigned long ip)
{
	const struct hd_symbol *s = hd_present_sym(ip);

	/* sites are at +0 only: ip itself, and sym+0 maps to the site */
	if (s && s->kind == HD_TEXT && s->ftrace && ip == s->addr)
		return ip;
	return 0;
}

/* ---- modules ----------------------------------------------------------------- */
int register_module_notifier(struct notifier_block *nb) { hd_module_nb = nb; return 0; }
int register_die_notifier(struct notifier_block *nb) { (void)nb; return 0; }

struct module *__module_text_address(unsigned long addr)
{
	return in_mod(addr, &hd_m0) ? &hd_m0 : NULL;
}

bool try_module_get(struct module *mod)
{
	if (mod->state == MODULE_STATE_GOING)
		return false;
	mod->refs++;
	return true;
}

void module_put(struct module *mod)
{
	if (--mod->refs < 0)
		hd_fatal("module_put underflow");
}

bool within_module_init(unsigned long addr, const struct module *mod)
{
	return addr >= mod->init_start && addr < mod->init_end;
}

bool within_module_core(unsigned long addr, const struct module *mod)
{
	return addr >= mod->core_start && addr < mod->core_end;
}

/* ---- insn pages, perf ---------------------------------------------------------- */
#define HD_MAX_PAGES 256
static void *hd_pages[HD_MAX_PAGES];
static int hd_npages;

void *execmem_alloc(enum execmem_type type, size_t size)
{
	void *p;

	(void)type;
	if (hd_npages == HD_MAX_PAGES)
		hd_fatal("too many insn pages");
	p = aligned_alloc(PAGE_SIZE, size);
	memset(p, 0xcc, size);
	hd_pages[hd_npages++] = p;
	return p;
}

void execmem_free(void *ptr)
{
	for (int i = 0; i < hd_npages; i++)
		if (hd_pages[i] == ptr) {
			hd_trace("execmem_free page%d", i);
			hd_pages[i] = NULL;
			free(ptr);
			return;
		}
	hd_fatal("execmem_free of unknown page");
}

const char *hd_page(const void *p)
{
	static char bufs[4][48];
	static int n;
	char *b = bufs[n++ & 3];

	if (!p)
		return "null";
	for (int i = 0; i < hd_npages; i++)
		if (hd_pages[i] && (const char *)p >= (char *)hd_pages[i] &&
		    (const char *)p < (char *)hd_pages[i] + PAGE_SIZE) {
			snprintf(b, 48, "page%d+0x%lx", i, (unsigned long)((const char *)p - (char *)hd_pages[i]));
			return b;
		}
	return "page?";
}

void perf_event_ksymbol(u16 ksym_type, u64 addr, u32 len, bool unregister, const char *sym)
{
	hd_trace("perf_event_ksymbol type=%u %s len=%u %s %s", ksym_type, hd_page((void *)addr),
		 len, unregister ? "unregister" : "register", sym);
}

/* ---- locks, RCU, preemption -------------------------------------------------- */
struct mutex text_mutex = __MUTEX_INITIALIZER(text_mutex);
static struct mutex jump_label_mutex = __MUTEX_INITIALIZER(jump_label_mutex);
int hd_rcu_nesting, hd_preempt, hd_cpus_locked;

void mutex_lock(struct mutex *m)
{
	if (m->locked)
		hd_fatal("deadlock: %s already held", m->name);
	if (hd_rcu_nesting || hd_preempt)
		hd_fatal("mutex_lock(%s) in atomic context", m->name);
	m->locked = 1;
}

void mutex_unlock(struct mutex *m)
{
	if (!m->locked)
		hd_fatal("mutex_unlock of unlocked %s", m->name);
	m->locked = 0;
}

void cpus_read_lock(void) { hd_cpus_locked++; }
void cpus_read_unlock(void) { if (--hd_cpus_locked < 0) hd_fatal("cpus_read_unlock underflow"); }
void lockdep_assert_cpus_held(void) { if (!hd_cpus_locked) hd_fatal("lockdep: cpus_read_lock not held"); }
void jump_label_lock(void) { mutex_lock(&jump_label_mutex); }
void jump_label_unlock(void) { mutex_unlock(&jump_label_mutex); }

void preempt_disable(void) { hd_preempt++; }
void preempt_enable(void) { if (--hd_preempt < 0) hd_fatal("preempt_enable underflow"); }
void rcu_read_lock(void) { hd_rcu_nesting++; }
void rcu_read_unlock(void) { if (--hd_rcu_nesting < 0) hd_fatal("rcu_read_unlock underflow"); }

void synchronize_rcu(void)
{
	if (hd_rcu_nesting || hd_preempt)
		hd_fatal("synchronize_rcu() in a read-side section");
	hd_trace("~synchronize_rcu");
}

void synchronize_rcu_tasks(void)
{
	if (hd_rcu_nesting || hd_preempt)
		hd_fatal("synchronize_rcu_tasks() in a read-side section");
	hd_trace("~synchronize_rcu_tasks");
}

static struct rcu_head *rcu_cbs, **rcu_tail = &rcu_cbs;

void call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *))
{
	head->func = func;
	head->next = NULL;
	*rcu_tail = head;
	rcu_tail = &head->next;
}

static void kfree_rcu_cb(struct rcu_head *head)
{
	free(*(void **)(head + 1));
	free(head);
}

void hd_kfree_rcu(void *p, struct rcu_head *head)
{
	/* The object is freed after a grace period: queue a separate carrier. */
	struct rcu_head *c = malloc(sizeof(*c) + sizeof(void *));

	(void)head;
	*(void **)(c + 1) = p;
	call_rcu(c, kfree_rcu_cb);
}

/* End of an operation: a quiescent state, so RCU callbacks run. */
void hd_rcu_quiesce(void)
{
	if (hd_rcu_nesting || hd_preempt || hd_cpus_locked || text_mutex.locked || jump_label_mutex.locked)
		hd_fatal("operation ended with rcu=%d preempt=%d cpus=%d text=%d jl=%d held",
			 hd_rcu_nesting, hd_preempt, hd_cpus_locked, text_mutex.locked, jump_label_mutex.locked);
	while (rcu_cbs) {
		struct rcu_head *h = rcu_cbs;

		rcu_cbs = h->next;
		if (!rcu_cbs)
			rcu_tail = &rcu_cbs;
		h->func(h);
	}
}

/* ---- delayed work ------------------------------------------------------------ */
int hd_relax_count;

bool schedule_delayed_work(struct delayed_work *dwork, unsigned long delay)
{
	(void)delay;
	if (dwork->pending)
		return false;
	dwork->pending = 1;
	hd_trace("~work queued");
	return true;
}

bool flush_delayed_work(struct delayed_work *dwork)
{
	if (!dwork->pending)
		return false;
	dwork->pending = 0;
	hd_trace("~work run");
	dwork->work.func(&dwork->work);
	return true;
}

void hd_cpu_relax(void)
{
	if (++hd_relax_count > 1000)
		hd_fatal("hang: wait_for_kprobe_optimizer() does not finish");
}

/* ---- ftrace ------------------------------------------------------------------ */
struct ftrace_ops *hd_ftrace_ops[2];	/* registered, most recent first */
int hd_nftrace_ops;
int hd_ftrace_recursion;

const char *hd_ops_name(struct ftrace_ops *ops)
{
	return (ops->flags & FTRACE_OPS_FL_IPMODIFY) ? "ipmodify_ops" : "ftrace_ops";
}

bool hd_ftrace_match(struct ftrace_ops *ops, unsigned long ip)
{
	if (!ops->nfilter)
		return true;	/* an empty filter traces every function */
	for (int i = 0; i < ops->nfilter; i++)
		if (ops->filter[i] == ip)
			return true;
	return false;
}

static int ftrace_filter_ip(struct ftrace_ops *ops, unsigned long ip, int remove, int reset)
{
	int i;

	if (reset)
		ops->nfilter = 0;
	ip = ftrace_location(ip);
	if (!ip)
		return -EINVAL;
	for (i = 0; i < ops->nfilter; i++)
		if (ops->filter[i] == ip)
			break;
	if (remove) {
		if (i == ops->nfilter)
			return -ENOENT;
		memmove(&ops->filter[i], &ops->filter[i + 1], (ops->nfilter - i - 1) * sizeof(ip));
		ops->nfilter--;
		return 0;
	}
	if (i < ops->nfilter)
		return 0;
	if (ops->nfilter == HD_FTRACE_MAX_FILTER)
		return -ENOMEM;
	ops->filter[ops->nfilter++] = ip;
	return 0;
}

int ftrace_set_filter_ip(struct ftrace_ops *ops, unsigned long ip, int remove, int reset)
{
	int ret = ftrace_filter_ip(ops, ip, remove, reset);

	hd_trace("ftrace_set_filter_ip %s %s remove=%d reset=%d = %d", hd_ops_name(ops),
		 hd_sym(ip), remove, reset, ret);
	return ret;
}

/*
 * ftrace_set_filter_ips(): ftrace sets a copy of the filter hash, so all or
 * nothing.  Traced as one line naming every address.
 */
int ftrace_set_filter_ips(struct ftrace_ops *ops, unsigned long *ips, unsigned int cnt, int remove, int reset)
{
	struct ftrace_ops copy = *ops;
	char buf[1024];
	size_t len = 0;
	int ret = 0;

	for (unsigned int i = 0; i < cnt && !ret; i++)
		ret = ftrace_filter_ip(&copy, ips[i], remove, reset && !i);
	if (!ret)
		*ops = copy;
	buf[0] = 0;
	for (unsigned int i = 0; i < cnt && len < sizeof(buf) - 1; i++)
		len += snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? "," : "", hd_sym(ips[i]));
	hd_trace("ftrace_set_filter_ips %s %s remove=%d reset=%d = %d", hd_ops_name(ops), buf, remove, reset, ret);
	return ret;
}

int register_ftrace_function(struct ftrace_ops *ops)
{
	int ret = 0;

	if (WARN_ON(ops->flags & FTRACE_OPS_FL_ENABLED)) {
		ret = -EBUSY;
	} else {
		ops->flags |= FTRACE_OPS_FL_ENABLED;
		hd_ftrace_ops[1] = hd_ftrace_ops[0];
		hd_ftrace_ops[0] = ops;
		hd_nftrace_ops++;
	}
	hd_trace("register_ftrace_function %s = %d", hd_ops_name(ops), ret);
	return ret;
}

int unregister_ftrace_function(struct ftrace_ops *ops)
{
	int ret = 0;

	if (WARN_ON(!(ops->flags & FTRACE_OPS_FL_ENABLED))) {
		ret = -EBUSY;
	} else {
		ops->flags &= ~FTRACE_OPS_FL_ENABLED;
		if (hd_ftrace_ops[0] == ops)
			hd_ftrace_ops[0] = hd_ftrace_ops[1];
		hd_ftrace_ops[1] = NULL;
		hd_nftrace_ops--;
	}
	hd_trace("unregister_ftrace_function %s = %d", hd_ops_name(ops), ret);
	return ret;
}

/* ---- rethook ----------------------------------------------------------------- */
struct rethook_node *hd_task_rethooks;
static int hd_rethook_ids;

struct rethook *rethook_alloc(void *data, rethook_handler_t handler, int size, int num)
{
	struct rethook *rh;

	if (!handler || num <= 0 || size < (int)sizeof(struct rethook_node)) {
		rh = ERR_PTR(-EINVAL);
	} else if (num > (1 << 24) || size > (1 << 16)) {
		rh = ERR_PTR(-ENOMEM);	/* objpool_init() refuses */
	} else {
		rh = calloc(1, sizeof(*rh));
		rh->data = data;
		rh->handler = handler;
		rh->size = size;
		rh->num = rh->nfree = num;
		rh->id = hd_rethook_ids++;
	}
	hd_trace("rethook_alloc num=%d = %ld", num, IS_ERR(rh) ? PTR_ERR(rh) : 0L);
	return rh;
}

/*
 * A released rethook is kept (reachable, so no leak report) instead of being
 * freed: upstream can leave a kretprobe hashed after unregister_kretprobe()
 * (MODEL.md, findings), and its pre-handler then reads rp->rh, which the
 * kernel would have freed.  The model makes that read defined: the rethook
 * has no handler, rethook_try_get() fails and the kretprobe counts nmissed.
 */
static struct rethook **hd_retired;
static size_t hd_nretired;

static void rethook_maybe_release(struct rethook *rh)
{
	if (rh->freed && !rh->handler && rh->outstanding == 0 && rh->num == -1) {
		hd_retired = realloc(hd_retired, (hd_nretired + 1) * sizeof(*hd_retired));
		hd_retired[hd_nretired++] = rh;
		rh->num = -2;
	}
}

static void rethook_free_rcu(struct rcu_head *head)
{
	struct rethook *rh = container_of(head, struct rethook, rcu);

	rh->num = -1;	/* pool finalized: released with its last node */
	rethook_maybe_release(rh);
}

void rethook_free(struct rethook *rh)
{
	if (rh->freed)
		hd_fatal("rethook_free twice");
	hd_trace("rethook_free");
	rh->handler = NULL;
	rh->freed = true;
	call_rcu(&rh->rcu, rethook_free_rcu);
}

struct rethook_node *rethook_try_get(struct rethook *rh)
{
	struct rethook_node *n;

	if (!rh->handler || !rh->nfree)
		return NULL;
	rh->nfree--;
	rh->outstanding++;
	n = calloc(1, rh->size);
	n->rethook = rh;
	return n;
}

static void free_rethook_node_rcu(struct rcu_head *head)
{
	struct rethook_node *n = container_of(head, struct rethook_node, rcu);
	struct rethook *rh = n->rethook;

	free(n);
	rh->outstanding--;
	rethook_maybe_release(rh);
}

void rethook_recycle(struct rethook_node *node)
{
	struct rethook *rh = node->rethook;

	if (rh->handler) {
		rh->outstanding--;
		rh->nfree++;
		free(node);
	} else {
		call_rcu(&node->rcu, free_rethook_node_rcu);
	}
}

void rethook_hook(struct rethook_node *node, struct pt_regs *regs, bool mcount)
{
	(void)regs;
	(void)mcount;
	node->frame = hd_frame;
	node->next = hd_task_rethooks;
	hd_task_rethooks = node;
}

/* The innermost hooked frame returns: rethook_trampoline_handler(). */
int hd_rethook_return(void)
{
	struct rethook_node *first, *last, *n;
	struct pt_regs regs = { 0 };
	unsigned long frame;

	if (!hd_task_rethooks)
		return -1;
	frame = hd_task_rethooks->frame;
	last = hd_task_rethooks;
	while (last->next && last->next->frame == frame)
		last = last->next;
	preempt_disable();
	for (n = hd_task_rethooks;; n = n->next) {
		rethook_handler_t handler = READ_ONCE(n->rethook->handler);

		if (handler)
			handler(n, n->rethook->data, 0, &regs);
		if (n == last)
			break;
	}
	preempt_enable();
	first = hd_task_rethooks;
	hd_task_rethooks = last->next;
	last->next = NULL;
	while (first) {
		n = first;
		first = first->next;
		rethook_recycle(n);
	}
	return 0;
}

/* ---- seq_file, debugfs, sysctl -------------------------------------------------- */
static void seq_put(struct seq_file *m, const char *s, size_t n)
{
	if (m->len + n + 1 > m->cap) {
		m->cap = (m->len + n + 1) * 2;
		m->buf = realloc(m->buf, m->cap);
	}
	memcpy(m->buf + m->len, s, n);
	m->len += n;
	m->buf[m->len] = 0;
}

/* The subset of vsnprintf() the core uses, with %px, %pS and %ps. */
void seq_printf(struct seq_file *m, const char *fmt, ...)
{
	va_list ap;
	char tmp[256];

	va_start(ap, fmt);
	for (const char *f = fmt; *f; f++) {
		if (*f != '%') {
			seq_put(m, f, 1);
			continue;
		}
		f++;
		if (*f == 'p') {
			unsigned long a = (unsigned long)va_arg(ap, void *);
			const struct hd_symbol *s;

			f++;
			if (*f == 'x') {
				snprintf(tmp, sizeof(tmp), "%016lx", a);
			} else if (*f == 'S' || *f == 's') {
				s = hd_present_sym(a);
				if (!s)
					snprintf(tmp, sizeof(tmp), "0x%lx", a);
				else if (*f == 's')
					snprintf(tmp, sizeof(tmp), "%s", s->name);
				else if (s->module)
					snprintf(tmp, sizeof(tmp), "%s+0x%lx/0x%lx [%s]", s->name, a - s->addr,
						 s->size, hd_m0.name);
				else
					snprintf(tmp, sizeof(tmp), "%s+0x%lx/0x%lx", s->name, a - s->addr, s->size);
			} else {
				hd_fatal("seq_printf: %%p%c", *f);
			}
		} else if (*f == 's') {
			const char *s = va_arg(ap, const char *);
			snprintf(tmp, sizeof(tmp), "%s", s ? s : "(null)");
		} else if (*f == 'x') {
			snprintf(tmp, sizeof(tmp), "%x", va_arg(ap, unsigned int));
		} else if (*f == 'd') {
			snprintf(tmp, sizeof(tmp), "%d", va_arg(ap, int));
		} else if (*f == '%') {
			snprintf(tmp, sizeof(tmp), "%%");
		} else {
			hd_fatal("seq_printf: %%%c", *f);
		}
		seq_put(m, tmp, strlen(tmp));
	}
	va_end(ap);
}

struct list_head *seq_list_start(struct list_head *head, loff_t pos)
{
	struct list_head *lh;

	for (lh = head->next; lh != head; lh = lh->next)
		if (pos-- == 0)
			return lh;
	return NULL;
}

struct list_head *seq_list_next(void *v, struct list_head *head, loff_t *ppos)
{
	struct list_head *lh = ((struct list_head *)v)->next;

	++*ppos;
	return lh == head ? NULL : lh;
}

bool kallsyms_show_value(const struct cred *cred) { (void)cred; return true; }

static int hd_dentry;
struct dentry *debugfs_create_dir(const char *name, struct dentry *parent)
{
	(void)name; (void)parent;
	return (struct dentry *)&hd_dentry;
}

struct dentry *debugfs_create_file(const char *name, unsigned short mode, struct dentry *parent,
				   void *data, const struct file_operations *fops)
{
	(void)name; (void)mode; (void)parent; (void)data; (void)fops;
	return (struct dentry *)&hd_dentry;
}

loff_t default_llseek(struct file *file, loff_t offset, int whence)
{
	(void)file; (void)whence;
	return offset;
}

ssize_t simple_read_from_buffer(void __user *to, size_t count, loff_t *ppos, const void *from, size_t available)
{
	size_t n;

	if (*ppos >= (loff_t)available)
		return 0;
	n = available - *ppos < count ? available - *ppos : count;
	memcpy(to, (const char *)from + *ppos, n);
	*ppos += n;
	return n;
}

/* kstrtobool() */
int kstrtobool_from_user(const char __user *s, size_t count, bool *res)
{
	if (!count)
		return -EINVAL;
	switch (s[0]) {
	case 'y': case 'Y': case 't': case 'T': case '1':
		*res = true;
		return 0;
	case 'n': case 'N': case 'f': case 'F': case '0':
		*res = false;
		return 0;
	case 'o': case 'O':
		if (count > 1 && (s[1] == 'n' || s[1] == 'N')) { *res = true; return 0; }
		if (count > 1 && (s[1] == 'f' || s[1] == 'F')) { *res = false; return 0; }
		break;
	}
	return -EINVAL;
}

const int hd_sysctl_vals[] = { 0, 1 };
struct ctl_table *hd_sysctl_table;

void hd_register_sysctl_init(const char *path, struct ctl_table *table, size_t n)
{
	(void)path; (void)n;
	hd_sysctl_table = table;
}

/* proc_dointvec_minmax() for one int, written as decimal text. */
int proc_dointvec_minmax(const struct ctl_table *table, int write, void *buffer, size_t *lenp, loff_t *ppos)
{
	char buf[32], *end;
	long v;

	(void)ppos;
	if (!write)
		return 0;
	snprintf(buf, sizeof(buf), "%.*s", (int)*lenp, (char *)buffer);
	v = strtol(buf, &end, 10);
	if (end == buf || (*end && *end != '\n'))
		return -EINVAL;
	if ((table->extra1 && v < *(const int *)table->extra1) ||
	    (table->extra2 && v > *(const int *)table->extra2))
		return -EINVAL;
	*(int *)table->data = (int)v;
	return 0;
}
