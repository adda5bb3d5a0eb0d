// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Transitional: the parts of the kprobes core that have not been moved to
 * rust-core/ yet are still compiled from upstream kernel/kprobes.c.  Each
 * group that moves to Rust is removed from this build; when none is left
 * this file is deleted.
 */
#include "../../kprobes.c"
