// SPDX-License-Identifier: GPL-2.0
/*
 * The simulated x86 arch layer of the host differential (MODEL.md): the
 * hooks kernel/kprobes.c calls, modelled on arch/x86/kernel/kprobes/{core,
 * opt,ftrace}.c of 6.12, over a model of the kernel text (int3 bytes and
 * optimized jumps), and the trap paths that run the handlers on a hit.
 * Every hook call is written to the trace.
 */
#include "hd.h"

DEFINE_PER_CPU(struct kprobe *, current_kprobe);
DEFINE_PER_CPU(struct kprobe_ctlblk, kprobe_ctlblk);
unsigned long hd_frame;

int arch_init_kprobes(void) { return 0; }
int arch_trampoline_kprobe(struct kprobe *p) { (void)p; return 0; }

int arch_populate_kprobe_blacklist(void)
{
	return kprobe_add_area_blacklist(hd_sec.entry_start, hd_sec.entry_end);
}

/* ---- the text model --------------------------------------------------------- */
#define HD_MAX_TEXT 512
static unsigned long int3s[HD_MAX_TEXT];
static int nint3;
static struct { unsigned long addr, size; struct optimized_kprobe *op; } jumps[HD_MAX_TEXT];
static int njumps;

static int int3_at(unsigned long a)
{
	for (int i = 0; i < nint3; i++)
		if (int3s[i] == a)
			return i;
	return -1;
}

static int jump_over(unsigned long a)
{
	for (int i = 0; i < njumps; i++)
		if (a >= jumps[i].addr && a < jumps[i].addr + jumps[i].size)
			return i;
	return -1;
}

static void set_int3(unsigned long a)
{
	int j = jump_over(a);

	if (j >= 0)
		hd_trace("!text %s %s", jumps[j].addr == a ? "int3-on-jump" : "int3-in-jump", hd_sym(a));
	if (int3_at(a) >= 0) {
		hd_trace("!text int3-twice %s", hd_sym(a));
		return;
	}
	if (nint3 == HD_MAX_TEXT)
		hd_fatal("text model full");
	int3s[nint3++] = a;
}

static void clear_int3(unsigned long a)
{
	int i = int3_at(a);

	if (i < 0) {
		hd_trace("!text no-int3 %s", hd_sym(a));
		return;
	}
	int3s[i] = int3s[--nint3];
}

/* Text in [start, end) was freed (module unload, init text freed). */
void hd_text_forget(unsigned long start, unsigned long end)
{
	for (int i = 0; i < nint3;)
		if (int3s[i] >= start && int3s[i] < end)
			int3s[i] = int3s[--nint3];
		else
			i++;
	for (int i = 0; i < njumps;)
		if (jumps[i].addr >= start && jumps[i].addr < end)
			jumps[i] = jumps[--njumps];
		else
			i++;
}

/* The int3 addresses, sorted. */
static int sorted_int3s(unsigned long *v)
{
	int n = nint3;

	memcpy(v, int3s, n * sizeof(v[0]));
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (v[j] < v[i]) { unsigned long t = v[i]; v[i] = v[j]; v[j] = t; }
	return n;
}

/* `check`: what is left in the text. */
void hd_text_check(void)
{
	unsigned long v[HD_MAX_TEXT];
	int n = sorted_int3s(v);

	for (int i = 0; i < n; i++)
		hd_trace("text int3 %s", hd_sym(v[i]));
	for (int i = 0; i < njumps; i++)
		hd_trace("text jump %s size=%lu", hd_sym(jumps[i].addr), jumps[i].size);
}

/*
 * An int3 at @a is idle when a hit there runs no handler: the probe hashed
 * there is a disabled aggregate (whose probes are all disabled), e.g. an
 * unregistered optimized probe whose queued unoptimization the optimizer
 * will complete by disarming it.  Otherwise the int3 is armed: the trap
 * runs the probe's handlers (the int3 path does not test the flag), or it
 * finds no kprobe at all.
 */
static bool int3_idle(unsigned long a)
{
	struct kprobe *p;
	bool idle;

	preempt_disable();
	p = get_kprobe((kprobe_opcode_t *)a);
	idle = p && kprobe_disabled(p) && hd_kprobe_aggrprobe(p);
	preempt_enable();
	return idle;
}

/*
 * The driver's note after a successful write to kprobes/enabled that left
 * kprobes globally disabled: every armed int3 (sorted) and every jump of an
 * enabled optimized probe (optimized_callback() runs it) still in the text
 * (MODEL.md section 5, finding 6).
 */
void hd_text_armed_note(void)
{
	unsigned long v[HD_MAX_TEXT];
	int n = sorted_int3s(v);

	for (int i = 0; i < n; i++)
		if (!int3_idle(v[i]))
			hd_trace("!kprobes/enabled is 0 but the int3 at %s stays armed", hd_sym(v[i]));
	for (int i = 0; i < njumps; i++)
		if (!kprobe_disabled(&jumps[i].op->kp))
			hd_trace("!kprobes/enabled is 0 but the jump at %s stays armed", hd_sym(jumps[i].addr));
}

/* ---- kprobes (core.c) --------------------------------------------------------- */
static bool can_probe(unsigned long paddr, bool *boostable)
{
	const struct hd_symbol *s = hd_present_sym(paddr);

	if (!s || !hd_insn_boundary(s, paddr - s->addr, NULL))
		return false;
	*boostable = s->nonboost != (long)(paddr - s->addr);
	return true;
}

int arch_prepare_kprobe(struct kprobe *p)
{
	unsigned long a = (unsigned long)p->addr;
	bool boost;
	int ret = 0;

	if (!can_probe(a, &boost)) {
		ret = -EILSEQ;
		goto out;
	}
	p->opcode = (kprobe_opcode_t)a;
	p->ainsn.insn = get_insn_slot();
	if (!p->ainsn.insn) {
		ret = -ENOMEM;
		goto out;
	}
	p->ainsn.boostable = boost;
out:
	hd_trace("arch_prepare_kprobe %s = %d slot=%s", hd_sym(a), ret, hd_page(ret ? NULL : p->ainsn.insn));
	return ret;
}

void arch_arm_kprobe(struct kprobe *p)
{
	hd_trace("arch_arm_kprobe %s", hd_sym((unsigned long)p->addr));
	set_int3((unsigned long)p->addr);
}

void arch_disarm_kprobe(struct kprobe *p)
{
	unsigned long a = (unsigned long)p->addr;
	int j = jump_over(a);

	hd_trace("arch_disarm_kprobe %s", hd_sym(a));
	if (j >= 0)
		hd_trace("!text disarm-in-jump %s", hd_sym(a));
	clear_int3(a);
}

void arch_remove_kprobe(struct kprobe *p)
{
	hd_trace("arch_remove_kprobe %s slot=%s", hd_sym((unsigned long)p->addr), hd_page(p->ainsn.insn));
	if (p->ainsn.insn) {
		free_insn_slot(p->ainsn.insn, p->ainsn.boostable);
		p->ainsn.insn = NULL;
	}
}

/* ---- optprobes (opt.c) -------------------------------------------------------- */
static int copy_optimized_instructions(unsigned long src, const struct hd_symbol *s)
{
	unsigned long len = 0, l;

	while (len < JMP32_INSN_SIZE) {
		unsigned long off = src + len - s->addr;

		if (!hd_insn_boundary(s, off, &l) || s->nonboost == (long)off)
			return -EINVAL;
		len += l;
	}
	if (src + len > s->addr + s->size)
		return -EINVAL;
	if (hd_reserved_site(src, src + len - 1))
		return -EBUSY;
	return len;
}

static bool can_optimize(unsigned long paddr, const struct hd_symbol **sp)
{
	const struct hd_symbol *s = hd_present_sym(paddr);

	if (!s || s->kind != HD_TEXT)
		return false;
	if (paddr >= hd_sec.entry_start && paddr < hd_sec.entry_end)
		return false;
	if (s->size - (paddr - s->addr) < JMP32_INSN_SIZE)
		return false;
	if (s->noopt)
		return false;
	*sp = s;
	return true;
}

int arch_prepare_optimized_kprobe(struct optimized_kprobe *op, struct kprobe *orig)
{
	unsigned long a = (unsigned long)op->kp.addr;
	const struct hd_symbol *s;
	int ret;

	(void)orig;
	if (!can_optimize(a, &s)) {
		ret = -EILSEQ;
		goto out;
	}
	op->optinsn.insn = get_optinsn_slot();
	if (!op->optinsn.insn) {
		ret = -ENOMEM;
		goto out;
	}
	ret = copy_optimized_instructions(a, s);
	if (ret < 0) {
		free_optinsn_slot(op->optinsn.insn, 0);
		op->optinsn.insn = NULL;
		op->optinsn.size = 0;
		goto out;
	}
	op->optinsn.size = ret;
	ret = 0;
out:
	hd_trace("arch_prepare_optimized_kprobe %s = %d size=%zu slot=%s", hd_sym(a), ret,
		 op->optinsn.size, hd_page(op->optinsn.insn));
	return ret;
}

int arch_check_optimized_kprobe(struct optimized_kprobe *op)
{
	int ret = 0;

	for (size_t i = 1; i < op->optinsn.size; i++) {
		struct kprobe *p = get_kprobe(op->kp.addr + i);

		if (p && !kprobe_disarmed(p)) {
			ret = -EEXIST;
			break;
		}
	}
	hd_trace("arch_check_optimized_kprobe %s = %d", hd_sym((unsigned long)op->kp.addr), ret);
	return ret;
}

int arch_within_optimized_kprobe(struct optimized_kprobe *op, kprobe_opcode_t *addr)
{
	int r = op->kp.addr <= addr && op->kp.addr + op->optinsn.size > addr;

	hd_trace("?arch_within_optimized_kprobe %s %s = %d", hd_sym((unsigned long)op->kp.addr),
		 hd_sym((unsigned long)addr), r);
	return r;
}

void arch_remove_optimized_kprobe(struct optimized_kprobe *op)
{
	hd_trace("arch_remove_optimized_kprobe %s slot=%s", hd_sym((unsigned long)op->kp.addr),
		 hd_page(op->optinsn.insn));
	if (op->optinsn.insn) {
		free_optinsn_slot(op->optinsn.insn, 1);
		op->optinsn.insn = NULL;
		op->optinsn.size = 0;
	}
}

void arch_optimize_kprobes(struct list_head *oplist)
{
	struct optimized_kprobe *op, *tmp;

	list_for_each_entry_safe(op, tmp, oplist, list) {
		unsigned long a = (unsigned long)op->kp.addr;

		hd_trace("arch_optimize_kprobes %s", hd_sym(a));
		WARN_ON(kprobe_disabled(&op->kp));
		if (int3_at(a) < 0)
			hd_trace("!text optimize-unarmed %s", hd_sym(a));
		else
			clear_int3(a);
		for (unsigned long i = 1; i < op->optinsn.size; i++)
			if (int3_at(a + i) >= 0)
				hd_trace("!text optimize-over-int3 %s", hd_sym(a + i));
		if (jump_over(a) >= 0)
			hd_trace("!text optimize-jump-twice %s", hd_sym(a));
		jumps[njumps].addr = a;
		jumps[njumps].size = op->optinsn.size;
		jumps[njumps].op = op;
		njumps++;
		list_del_init(&op->list);
	}
}

void arch_unoptimize_kprobe(struct optimized_kprobe *op)
{
	unsigned long a = (unsigned long)op->kp.addr;
	int j = jump_over(a);

	hd_trace("arch_unoptimize_kprobe %s", hd_sym(a));
	if (j < 0 || jumps[j].addr != a) {
		hd_trace("!text unoptimize-no-jump %s", hd_sym(a));
	} else {
		jumps[j] = jumps[--njumps];
	}
	set_int3(a);
}

void arch_unoptimize_kprobes(struct list_head *oplist, struct list_head *done_list)
{
	struct optimized_kprobe *op, *tmp;

	list_for_each_entry_safe(op, tmp, oplist, list) {
		arch_unoptimize_kprobe(op);
		list_move(&op->list, done_list);
	}
}

/* ---- kprobes on ftrace (ftrace.c) ----------------------------------------------- */
int arch_prepare_kprobe_ftrace(struct kprobe *p)
{
	p->ainsn.insn = NULL;
	p->ainsn.boostable = false;
	hd_trace("arch_prepare_kprobe_ftrace %s = 0", hd_sym((unsigned long)p->addr));
	return 0;
}

void kprobe_ftrace_handler(unsigned long ip, unsigned long parent_ip,
			   struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	struct pt_regs regs = { .ip = ip };
	struct kprobe_ctlblk *kcb;
	struct kprobe *p;

	(void)parent_ip; (void)ops; (void)fregs;
	if (unlikely(kprobe_ftrace_disabled))
		return;
	/* ftrace_test_recursion_trylock(): one nested level (transition) is allowed */
	if (hd_ftrace_recursion >= 2) {
		hd_trace("ftrace recursion");
		return;
	}
	hd_ftrace_recursion++;
	preempt_disable();
	p = get_kprobe((kprobe_opcode_t *)ip);
	if (unlikely(!p) || kprobe_disabled(p))
		goto out;
	kcb = get_kprobe_ctlblk();
	if (kprobe_running()) {
		kprobes_inc_nmissed_count(p);
	} else {
		regs.ip = ip + sizeof(kprobe_opcode_t);
		__this_cpu_write(current_kprobe, p);
		kcb->kprobe_status = KPROBE_HIT_ACTIVE;
		if (!p->pre_handler || !p->pre_handler(p, &regs)) {
			if (unlikely(p->post_handler)) {
				kcb->kprobe_status = KPROBE_HIT_SSDONE;
				p->post_handler(p, &regs, 0);
			}
		}
		__this_cpu_write(current_kprobe, NULL);
	}
out:
	preempt_enable();
	hd_ftrace_recursion--;
}

/* ---- trap paths --------------------------------------------------------------- */
static void optimized_callback(struct optimized_kprobe *op, struct pt_regs *regs)
{
	if (kprobe_disabled(&op->kp))
		return;
	preempt_disable();
	if (kprobe_running()) {
		kprobes_inc_nmissed_count(&op->kp);
	} else {
		struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();

		regs->ip = (unsigned long)op->kp.addr + INT3_INSN_SIZE;
		__this_cpu_write(current_kprobe, &op->kp);
		kcb->kprobe_status = KPROBE_HIT_ACTIVE;
		opt_pre_handler(&op->kp, regs);
		__this_cpu_write(current_kprobe, NULL);
	}
	preempt_enable();
}

static void kprobe_int3_handler(unsigned long a, struct pt_regs *regs)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe *p;

	preempt_disable();
	p = get_kprobe((kprobe_opcode_t *)a);
	if (!p) {
		hd_trace("!int3 without kprobe %s", hd_sym(a));
	} else if (kprobe_running()) {
		switch (kcb->kprobe_status) {
		case KPROBE_HIT_SSDONE:
		case KPROBE_HIT_ACTIVE:
		case KPROBE_HIT_SS:
			kprobes_inc_nmissed_count(p);
			break;
		default:
			hd_fatal("Unrecoverable kprobe detected");
		}
	} else {
		__this_cpu_write(current_kprobe, p);
		kcb->kprobe_status = KPROBE_HIT_ACTIVE;
		if (!p->pre_handler || !p->pre_handler(p, regs)) {
			/* single-step, then kprobe_post_process() */
			kcb->kprobe_status = KPROBE_HIT_SSDONE;
			if (p->post_handler)
				p->post_handler(p, regs, 0);
		}
		reset_current_kprobe();
	}
	preempt_enable();
}

/* Execution reaches `a` (a top-level hit, or a call from a handler). */
void hd_hit(unsigned long a, int nested)
{
	struct pt_regs regs = { .ip = a + 1 };
	int j = jump_over(a);
	bool trapped = false;

	(void)nested;
	if (int3_at(a) >= 0) {
		/* an int3 written over the first byte of a jump is executed */
		hd_trace("trap int3 %s", hd_sym(a));
		if (j >= 0)
			hd_trace("!text int3 over the jump of %s: resumes inside the jump", hd_sym(jumps[j].addr));
		kprobe_int3_handler(a, &regs);
		return;
	}
	if (j >= 0) {
		if (jumps[j].addr != a) {
			hd_trace("trap none (inside optimized jump of %s)", hd_sym(jumps[j].addr));
			return;
		}
		hd_trace("trap jump %s", hd_sym(a));
		optimized_callback(jumps[j].op, &regs);
		return;
	}
	if (ftrace_location(a) == a) {
		struct ftrace_ops *list[2] = { hd_ftrace_ops[0], hd_ftrace_ops[1] };

		for (int i = 0; i < 2; i++) {
			if (!list[i] || !hd_ftrace_match(list[i], a))
				continue;
			hd_trace("trap ftrace %s %s", hd_ops_name(list[i]), hd_sym(a));
			trapped = true;
			list[i]->func(a, 0, list[i], NULL);
		}
	}
	if (!trapped)
		hd_trace("trap none %s", hd_sym(a));
}
