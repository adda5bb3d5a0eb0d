// SPDX-License-Identifier: GPL-2.0
/*
 * A QEMU TCG plugin: how many times each kernel-text instruction executed,
 * written at exit as "ADDRESS COUNT" lines.  With per_symbol.py it tells
 * which functions a hit row of the bench spends its instructions in, on
 * each kernel (docs/bench.md, "Where a row's instructions go").
 *
 * QEMU installs no plugin header, so the few functions of the plugin API
 * (version 1, QEMU 7.2) used here are declared below.
 *
 *   cc -O2 -shared -fPIC -o insn_count.so insn_count.c
 *   KP_QEMU_EXTRA="-plugin $PWD/insn_count.so,out=c.txt" scripts/vm.sh c JOB NAME
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
struct qemu_info_t;
typedef void (*tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*udata_cb_t)(qemu_plugin_id_t id, void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
/* op 0: QEMU_PLUGIN_INLINE_ADD_U64 */
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn, int op,
						void *ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, udata_cb_t cb, void *userdata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* One counter per translation of an instruction; summed per address later. */
struct counter {
	uint64_t addr;
	uint64_t n;
	struct counter *next;
};
static struct counter *counters;
static const char *out = "insn_count.txt";

static void translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t addr = qemu_plugin_insn_vaddr(insn);
		struct counter *c;

		if (addr < 0xffff800000000000ULL)	/* user space */
			continue;
		c = calloc(1, sizeof(*c));
		if (!c)
			abort();
		c->addr = addr;
		c->next = counters;
		counters = c;
		qemu_plugin_register_vcpu_insn_exec_inline(insn, 0, &c->n, 1);
	}
}

static void done(qemu_plugin_id_t id, void *unused)
{
	FILE *f = fopen(out, "w");
	struct counter *c;

	if (!f)
		return;
	for (c = counters; c; c = c->next)
		if (c->n)
			fprintf(f, "%llx %llu\n", (unsigned long long)c->addr,
				(unsigned long long)c->n);
	fclose(f);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const struct qemu_info_t *info, int argc, char **argv)
{
	if (argc > 0 && !strncmp(argv[0], "out=", 4))
		out = argv[0] + 4;
	qemu_plugin_register_vcpu_tb_trans_cb(id, translated);
	qemu_plugin_register_atexit_cb(id, done, NULL);
	return 0;
}
