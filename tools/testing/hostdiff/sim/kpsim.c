// SPDX-License-Identifier: GPL-2.0
/*
 * The C side of libkpsim.a (lib.rs, abi.rs): the simulated kernel of the
 * host tests (rust-core/host/sim/) for C programs built against the stubs
 * in ../include/.  Here: the variadic functions, whose arguments only C can
 * take (hd_trace(), hd_fatal(), hd_printk(), seq_printf(): each formats,
 * then hands the text to the simulation), the C data that the stubs and
 * hd.h declare, and the constructor that gives the simulation the
 * addresses of the C data it shares (kpsim_init()).  As the C model's
 * (model.c, which it replaced), but every rule and every trace line is the
 * simulation's.
 */
#include "hd.h"

struct kpsim_links {
	struct kprobe **current_kprobe;
	unsigned long *kprobe_status;
	struct kprobe_insn_cache *insn_slots, *optinsn_slots;
	struct module *m0;
	struct mutex *text_mutex;
	unsigned long *frame;
	bool *init_freed;
	int *relax_count;
	struct rethook_node **task_rethooks;
	struct ftrace_ops **ftrace_ops;
	struct notifier_block **module_nb;
	struct ctl_table **sysctl_table;
	struct hd_sections *sections;
	unsigned long *blacklist;
	size_t blacklist_room;
	unsigned long *blacklist_nr;
};

void kpsim_init(const struct kpsim_links *l);
void kpsim_trace(const char *line);
void kpsim_printk(const char *level, const char *msg);
void kpsim_fatal(const char *text) __attribute__((noreturn));
void kpsim_seq_sym(char *buf, size_t n, unsigned long a, bool full);
int kpsim_arch_populate_kprobe_blacklist(void);

/* ---- data (the stubs' and hd.h's; the simulation fills or reads them) ---- */
const char *hd_progname = "hostdiff";	/* for stderr messages (driver.c sets it) */
DEFINE_PER_CPU(struct kprobe *, current_kprobe);
DEFINE_PER_CPU(struct kprobe_ctlblk, kprobe_ctlblk);
struct mutex text_mutex = __MUTEX_INITIALIZER(text_mutex);
unsigned long hd_frame;
bool hd_init_freed;
int hd_relax_count;
struct rethook_node *hd_task_rethooks;
struct ftrace_ops *hd_ftrace_ops[2];
struct notifier_block *hd_module_nb;
struct ctl_table *hd_sysctl_table;
const int hd_sysctl_vals[] = { 0, 1 };
struct module hd_m0;
struct hd_sections hd_sec;
unsigned long hd_kprobe_blacklist_syms[8];
unsigned long hd_kprobe_blacklist_nr;
struct kretprobe_blackpoint kretprobe_blacklist[] = { { NULL, NULL } };
const int kretprobe_blacklist_size = 0;

__attribute__((constructor)) static void kpsim_ctor(void)
{
	static const struct kpsim_links l = {
		.current_kprobe = &current_kprobe,
		.kprobe_status = &kprobe_ctlblk.kprobe_status,
		.insn_slots = &kprobe_insn_slots,
		.optinsn_slots = &kprobe_optinsn_slots,
		.m0 = &hd_m0,
		.text_mutex = &text_mutex,
		.frame = &hd_frame,
		.init_freed = &hd_init_freed,
		.relax_count = &hd_relax_count,
		.task_rethooks = &hd_task_rethooks,
		.ftrace_ops = hd_ftrace_ops,
		.module_nb = &hd_module_nb,
		.sysctl_table = &hd_sysctl_table,
		.sections = &hd_sec,
		.blacklist = hd_kprobe_blacklist_syms,
		.blacklist_room = ARRAY_SIZE(hd_kprobe_blacklist_syms),
		.blacklist_nr = &hd_kprobe_blacklist_nr,
	};

	kpsim_init(&l);
}

/* x86's, overriding upstream's __weak default (a strong symbol here, where
 * the linker surely takes it). */
int arch_populate_kprobe_blacklist(void)
{
	return kpsim_arch_populate_kprobe_blacklist();
}

/*
 * ---- the one kthread (include/kstub.h, "kthreads and wait queues") -----------
 * 7.3's optimizer thread.  A wake_up() queues a step on the simulated
 * workqueue (kpsim_work_queue(), abi.rs); the workqueue runs it through
 * kprobes_rust_optimizer_work() (kcore_link.c: hd_optimizer_work(), kcore.c;
 * the Rust core's shim in hostdiff-rust), which calls hd_kthread_step().  A
 * step calls the thread function, which returns once it sleeps in
 * hd_kthread_wait() (kthread_should_stop() is then true).
 */
static struct task_struct hd_kthread;
static bool hd_kthread_running;		/* inside hd_kthread_step() */
static bool hd_kthread_asleep;		/* it slept this step: kthread_should_stop() */
static int hd_kthread_waits;		/* wait_event_interruptible()s this step */

void kpsim_work_queue(void);

struct task_struct *kthread_run(int (*threadfn)(void *data), void *data, const char *namefmt, ...)
{
	if (hd_kthread.threadfn)
		hd_fatal("kthread_run(%s): the model has one kthread", namefmt);
	hd_kthread.threadfn = threadfn;
	hd_kthread.data = data;
	hd_kthread.name = namefmt;
	return &hd_kthread;
}

bool kthread_should_stop(void)
{
	if (!hd_kthread_running)
		hd_fatal("kthread_should_stop() outside the kthread");
	return hd_kthread_asleep;
}

void wake_up(wait_queue_head_t *wq)
{
	if (!wq->initialized)
		hd_fatal("wake_up() of an uninitialized wait queue");
	if (!hd_kthread.threadfn)
		hd_fatal("wake_up() before kthread_run()");
	kpsim_work_queue();
}

void hd_kthread_step(void)
{
	int r;

	if (!hd_kthread.threadfn)
		hd_fatal("a kthread step before kthread_run()");
	if (hd_kthread_running)
		hd_fatal("kthread %s: a step inside its own step", hd_kthread.name);
	hd_kthread_running = true;
	hd_kthread_asleep = false;
	hd_kthread_waits = 0;
	r = hd_kthread.threadfn(hd_kthread.data);
	if (!hd_kthread_asleep)
		hd_fatal("kthread %s returned %d", hd_kthread.name, r);
	hd_kthread_running = false;
}

void hd_kthread_assert_running(wait_queue_head_t *wq)
{
	if (!hd_kthread_running)
		hd_fatal("a kthread wait outside the kthread");
	if (hd_kthread_asleep)
		hd_fatal("kthread %s waits again after it slept", hd_kthread.name);
	if (!wq->initialized)
		hd_fatal("kthread %s waits on an uninitialized wait queue", hd_kthread.name);
}

void hd_kthread_wait(wait_queue_head_t *wq, bool cond)
{
	hd_kthread_assert_running(wq);
	if (!cond || hd_kthread_waits++)
		hd_kthread_asleep = true;
}

void hd_schedule(const char *waiter)
{
	if (hd_kthread_running)
		hd_fatal("%s in kthread %s", waiter, hd_kthread.name);
	if (!hd_work_run())
		hd_fatal("hang: %s sleeps and nothing wakes it", waiter);
}

/* ---- output: the simulation's trace sink and fatal path ---------------------- */
void kpsim_emit(const char *line, size_t len)
{
	fputs("  ", stdout);
	fwrite(line, 1, len, stdout);
	fputc('\n', stdout);
}

void __attribute__((noreturn)) kpsim_die(const char *msg, size_t len)
{
	fflush(stdout);
	fprintf(stderr, "%s: %.*s\n", hd_progname, (int)len, msg);
	abort();
}

/* ---- the variadic functions -------------------------------------------------- */
static char *vformat(const char *fmt, va_list ap)
{
	va_list aq;
	char *s;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	s = malloc(n + 1);
	if (!s)
		abort();
	vsnprintf(s, n + 1, fmt, ap);
	return s;
}

void hd_trace(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = vformat(fmt, ap);
	va_end(ap);
	kpsim_trace(s);
	free(s);
}

void hd_fatal(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	kpsim_fatal(buf);
}

void hd_printk(const char *level, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	kpsim_printk(level, buf);
}

static void seq_put(struct seq_file *m, const char *s, size_t n)
{
	if (m->len + n + 1 > m->cap) {
		m->cap = (m->len + n + 1) * 2;
		m->buf = realloc(m->buf, m->cap);
		if (!m->buf)
			abort();
	}
	memcpy(m->buf + m->len, s, n);
	m->len += n;
	m->buf[m->len] = 0;
}

/*
 * The subset of vsnprintf() the core uses, with %px, and %pS and %ps as the
 * simulation prints them.  The buffer is malloc()ed and NUL-terminated: the
 * driver splits it into lines and frees it.
 */
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

			f++;
			if (*f == 'x')
				snprintf(tmp, sizeof(tmp), "%016lx", a);
			else if (*f == 'S' || *f == 's')
				kpsim_seq_sym(tmp, sizeof(tmp), a, *f == 'S');
			else
				hd_fatal("seq_printf: %%p%c", *f);
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
