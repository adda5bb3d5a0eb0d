// SPDX-License-Identifier: GPL-2.0
/*
 * fatal (hostdiff/fatal, fatal.py): each case breaks one rule of the
 * simulated kernel, which must end the program as hd_fatal() does: its
 * trace so far on stdout, then `fatal: FATAL: TEXT` on stderr and abort().
 * Linked with kcore.o (upstream kprobes.c) and the simulation (kpsim.o,
 * kcore_link.o, libkpsim.a); each case must print what fatal.expected
 * records, the texts of the C model the simulation replaced (model.c, see
 * MODEL.md), and for the kthread cases kpsim.c's (7.3's optimizer thread;
 * the same on both trees).  `fatal --list` prints the cases,
 * `fatal CASE` runs one.
 */
#include "hd.h"

static DEFINE_MUTEX(m1);
static struct kprobe kp;
static unsigned long var;
static wait_queue_head_t wq;

static int idle_thread(void *data)
{
	(void)data;
	return 0;
}

static void rh_handler(struct rethook_node *n, void *data, unsigned long flags, struct pt_regs *regs)
{
	(void)n; (void)data; (void)flags; (void)regs;
}

/* A pre_handler that breaks x86's handler state, then hits its own int3. */
static int reenter(struct kprobe *p, struct pt_regs *regs)
{
	(void)regs;
	hd_trace("pre reenter");
	get_kprobe_ctlblk()->kprobe_status = KPROBE_REENTER;
	hd_hit((unsigned long)p->addr, 1);
	return 0;
}

static void boot(void)
{
	printf("> boot\n");
	hd_early_initcall();
	hd_subsys_initcall();
	hd_late_initcall();
	hd_rcu_quiesce();
}

static const char *const cases[] = {
	"mutex-deadlock", "mutex-unlock-unlocked", "mutex-atomic", "lockdep-not-held",
	"cpus-not-held", "cpus-underflow", "preempt-underflow", "rcu-underflow",
	"synchronize-rcu-read-side", "synchronize-rcu-tasks-preempt", "quiesce-held",
	"module-put-underflow", "execmem-free-unknown", "too-many-insn-pages",
	"rethook-free-twice", "cpu-relax-hang", "bug-on", "unrecoverable-kprobe",
	"kthread-run-twice", "kthread-wait-outside", "wait-var-event-hang",
};

static void run(const char *c)
{
	if (!strcmp(c, "mutex-deadlock")) {
		mutex_lock(&m1);
		mutex_lock(&m1);
	} else if (!strcmp(c, "mutex-unlock-unlocked")) {
		mutex_unlock(&m1);
	} else if (!strcmp(c, "mutex-atomic")) {
		rcu_read_lock();
		mutex_lock(&m1);
	} else if (!strcmp(c, "lockdep-not-held")) {
		lockdep_assert_held(&m1);
	} else if (!strcmp(c, "cpus-not-held")) {
		lockdep_assert_cpus_held();
	} else if (!strcmp(c, "cpus-underflow")) {
		cpus_read_unlock();
	} else if (!strcmp(c, "preempt-underflow")) {
		preempt_enable();
	} else if (!strcmp(c, "rcu-underflow")) {
		rcu_read_unlock();
	} else if (!strcmp(c, "synchronize-rcu-read-side")) {
		rcu_read_lock();
		synchronize_rcu();
	} else if (!strcmp(c, "synchronize-rcu-tasks-preempt")) {
		preempt_disable();
		synchronize_rcu_tasks();
	} else if (!strcmp(c, "quiesce-held")) {
		cpus_read_lock();
		hd_rcu_quiesce();
	} else if (!strcmp(c, "module-put-underflow")) {
		module_put(&hd_m0);
	} else if (!strcmp(c, "execmem-free-unknown")) {
		execmem_free(&m1);
	} else if (!strcmp(c, "too-many-insn-pages")) {
		for (int i = 0; i <= 256; i++)
			execmem_alloc(EXECMEM_KPROBES, PAGE_SIZE);
	} else if (!strcmp(c, "rethook-free-twice")) {
		struct rethook *rh = rethook_alloc(NULL, rh_handler, sizeof(struct rethook_node), 1);

		rethook_free(rh);
		rethook_free(rh);
	} else if (!strcmp(c, "cpu-relax-hang")) {
		hd_relax_count = 0;
		for (;;)
			hd_cpu_relax();
	} else if (!strcmp(c, "bug-on")) {
		BUG_ON(hd_relax_count == 0);
	} else if (!strcmp(c, "unrecoverable-kprobe")) {
		boot();
		printf("> reg\n");
		kp.symbol_name = "f2";
		kp.offset = 8;
		kp.pre_handler = reenter;
		hd_trace("= %d", register_kprobe(&kp));
		hd_rcu_quiesce();
		printf("> hit f2+8\n");
		hd_frame++;
		hd_hit((unsigned long)kp.addr, 0);
	} else if (!strcmp(c, "kthread-run-twice")) {
		kthread_run(idle_thread, NULL, "t1");
		kthread_run(idle_thread, NULL, "t2");
	} else if (!strcmp(c, "kthread-wait-outside")) {
		init_waitqueue_head(&wq);
		wait_event_interruptible(wq, var != 0);
	} else if (!strcmp(c, "wait-var-event-hang")) {
		mutex_lock(&m1);
		wait_var_event_mutex(&var, var != 0, &m1);
	} else {
		fprintf(stderr, "%s: unknown case '%s'\n", hd_progname, c);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	hd_progname = "fatal";
	if (argc != 2) {
		fprintf(stderr, "usage: %s --list | CASE\n", argv[0]);
		return 2;
	}
	if (!strcmp(argv[1], "--list")) {
		for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
			printf("%s\n", cases[i]);
		return 0;
	}
	run(argv[1]);
	fflush(stdout);
	fprintf(stderr, "%s: case %s did not end the program\n", hd_progname, argv[1]);
	return 1;
}
