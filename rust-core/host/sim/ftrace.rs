// SPDX-License-Identifier: GPL-2.0

//! ftrace: the two kprobe ops' filters and registration, with injected
//! failures; each call is a line in [`Arch::events`](super::Arch) as
//! model.c traces it (`ftrace_set_filter_ip OPS A remove=R reset=0 = RET`,
//! ...; OPS is `ftrace_ops` or `ipmodify_ops`).
//!
//! Two semantics: the unit tests' default (an address may be added twice,
//! removing takes every copy, (un)registering always succeeds) and, with
//! [`Image::as_model`](super::Image::as_model), model.c's (MODEL.md section 1,
//! "ftrace"): each address at most once, `-EINVAL` for an address that is
//! no ftrace site, `-ENOENT` for removing an absent one, `-ENOMEM` for a
//! full filter, and `WARN` + `-EBUSY` for registering an enabled ops or
//! unregistering a disabled one.

use super::image::{image, lookup, model};
use super::text::{arch, Arch};
use super::trace::{ev, hd_sym, warn};
use super::{EBUSY_SIM, EINVAL, ENOENT, ENOMEM};
use crate::ffi::{c_int, c_ulong};
use crate::ktypes::{FtraceOps, FTRACE_MAX_FILTER, FTRACE_OPS_FL_ENABLED};
use crate::types::KprobeOpcode;

/// `ftrace_location()`: the call site if `addr` is one, else 0 (the
/// simulation has no symbol-start lookup, which the core never relies on;
/// with [`Image::as_model`](super::Image::as_model), only a present
/// symbol's site, as model.c's).
pub fn ftrace_location(addr: usize) -> usize {
    if image(|i| i.ftrace_sites.contains(&addr)) && (!model() || lookup(addr).is_some()) {
        addr
    } else {
        0
    }
}

/// `hd_ops_name()`: model.c names the two ops by their flags.
pub fn ops_name(ipmodify: bool) -> &'static str {
    if ipmodify {
        "ipmodify_ops"
    } else {
        "ftrace_ops"
    }
}

/// `ftrace_set_filter_ip()` on one of the two ops.
pub fn ftrace_set_filter_ip(ipmodify: bool, ip: usize, remove: bool) -> c_int {
    assert!(
        arch(|a| a.kprobe_mutex),
        "ftrace arming without kprobe_mutex"
    );
    let ret = if let Some(e) = arch(|a| a.ftrace_fail.take()) {
        e
    } else {
        let loc = model().then(|| ftrace_location(ip));
        arch(|a| {
            let ops = &mut a.ftrace_ops[ipmodify as usize];
            if let Some(loc) = loc {
                model_filter_ip(ops, loc, remove)
            } else {
                if remove {
                    filter_remove(ops, ip);
                } else {
                    filter_add(ops, ip);
                }
                0
            }
        })
    };
    ev(format!(
        "ftrace_set_filter_ip {} {} remove={} reset=0 = {ret}",
        ops_name(ipmodify),
        hd_sym(ip),
        remove as c_int
    ));
    ret
}

/// The host tests' view of the two kprobe ftrace ops.
impl Arch {
    /// The filter of the plain (0) or the IPMODIFY (1) ops.
    pub fn ftrace_filter(&self, ops: usize) -> Vec<usize> {
        self.ftrace_ops[ops]
            .filter()
            .iter()
            .map(|&a| a as usize)
            .collect()
    }

    /// Which of the two ops are registered (plain, IPMODIFY).
    pub fn ftrace_ops_registered(&self) -> [bool; 2] {
        [self.ftrace_ops[0].enabled(), self.ftrace_ops[1].enabled()]
    }
}

/// Adds `ip` to `ops`' filter (again if it is there).
fn filter_add(ops: &mut FtraceOps, ip: usize) {
    let n = ops.nfilter as usize;
    assert!(n < FTRACE_MAX_FILTER, "ftrace filter full");
    ops.filter[n] = ip as c_ulong;
    ops.nfilter += 1;
}

/// Removes every `ip` from `ops`' filter.
fn filter_remove(ops: &mut FtraceOps, ip: usize) {
    let kept: Vec<c_ulong> = ops
        .filter()
        .iter()
        .copied()
        .filter(|&x| x != ip as c_ulong)
        .collect();
    ops.filter[..kept.len()].copy_from_slice(&kept);
    ops.nfilter = kept.len() as c_int;
}

/// model.c's `ftrace_filter_ip()` (no reset) on `ops`, `loc` being
/// `ftrace_location(ip)`.
fn model_filter_ip(ops: &mut FtraceOps, loc: usize, remove: bool) -> c_int {
    if loc == 0 {
        return -EINVAL;
    }
    let has = filter_has(ops, loc);
    if remove {
        if !has {
            return -ENOENT;
        }
        filter_remove(ops, loc);
    } else if !has {
        if ops.nfilter as usize == FTRACE_MAX_FILTER {
            return -ENOMEM;
        }
        filter_add(ops, loc);
    }
    0
}

/// model.c's `hd_ftrace_match()`: does the ops trace `ip` (an empty
/// filter traces every function)?
pub(super) fn ftrace_match(ipmodify: bool, ip: usize) -> bool {
    arch(|a| {
        let ops = &a.ftrace_ops[ipmodify as usize];
        ops.nfilter == 0 || filter_has(ops, ip)
    })
}

/// Is `ip` in `ops`' filter?
fn filter_has(ops: &FtraceOps, ip: usize) -> bool {
    ops.filter().contains(&(ip as c_ulong))
}

/// `ftrace_set_filter_ips()` on one of the two ops: all or nothing, as
/// ftrace's (which sets a copy of the filter hash); one
/// `ftrace_set_filter_ips` line per call, naming every address.
pub fn ftrace_set_filter_ips(ipmodify: bool, ips: &[usize], remove: bool) -> c_int {
    let ret = filter_ips(ipmodify, ips, remove);
    // model.c joins the addresses with commas into a 1024-byte buffer.
    let mut list = ips
        .iter()
        .map(|&ip| hd_sym(ip))
        .collect::<Vec<_>>()
        .join(",");
    list.truncate(1023);
    ev(format!(
        "ftrace_set_filter_ips {} {list} remove={} reset=0 = {ret}",
        ops_name(ipmodify),
        remove as c_int
    ));
    ret
}

fn filter_ips(ipmodify: bool, ips: &[usize], remove: bool) -> c_int {
    assert!(
        arch(|a| a.kprobe_mutex),
        "ftrace arming without kprobe_mutex"
    );
    arch(|a| a.ftrace_batch_calls[ipmodify as usize] += 1);
    if let Some(e) = arch(|a| a.ftrace_fail.take()) {
        return e;
    }
    if let Some((_, e)) = arch(|a| a.ftrace_batch_fail.take_if(|f| f.0 == ipmodify)) {
        return e;
    }
    if ipmodify && !remove && arch(|a| a.ftrace_busy_ip).is_some_and(|b| ips.contains(&b)) {
        return -EBUSY_SIM;
    }
    if model() {
        // model.c: each address on a copy of the filter, which replaces the
        // filter only if every address succeeded.
        let locs: Vec<usize> = ips.iter().map(|&ip| ftrace_location(ip)).collect();
        return arch(|a| {
            let ops = &mut a.ftrace_ops[ipmodify as usize];
            let mut copy = FtraceOps::new(ops.flags);
            copy.nfilter = ops.nfilter;
            copy.filter = ops.filter;
            for &loc in &locs {
                let ret = model_filter_ip(&mut copy, loc, remove);
                if ret != 0 {
                    return ret;
                }
            }
            ops.nfilter = copy.nfilter;
            ops.filter = copy.filter;
            0
        });
    }
    let ok = arch(|a| {
        let ops = &a.ftrace_ops[ipmodify as usize];
        ips.iter().all(|&ip| !remove || filter_has(ops, ip))
    });
    if !ok {
        return -ENOENT;
    }
    arch(|a| {
        let ops = &mut a.ftrace_ops[ipmodify as usize];
        for &ip in ips {
            if remove {
                filter_remove(ops, ip);
            } else if !filter_has(ops, ip) {
                filter_add(ops, ip);
            }
        }
    });
    0
}

/// `register_ftrace_function()`.
pub fn register_ftrace_function(ipmodify: bool) -> c_int {
    let ret = if let Some(e) = arch(|a| a.ftrace_register_fail.take()) {
        e
    } else if model() && arch(|a| a.ftrace_ops[ipmodify as usize].enabled()) {
        // model.c: `WARN_ON(enabled)`, -EBUSY.
        warn();
        -EBUSY_SIM
    } else {
        arch(|a| {
            a.ftrace_ops[ipmodify as usize].flags |= FTRACE_OPS_FL_ENABLED;
            a.ftrace_registered.retain(|&o| o != ipmodify);
            a.ftrace_registered.insert(0, ipmodify);
        });
        0
    };
    ev(format!(
        "register_ftrace_function {} = {ret}",
        ops_name(ipmodify)
    ));
    ret
}

/// `unregister_ftrace_function()`.
pub fn unregister_ftrace_function(ipmodify: bool) -> c_int {
    let ret = if model() && !arch(|a| a.ftrace_ops[ipmodify as usize].enabled()) {
        // model.c: `WARN_ON(!enabled)`, -EBUSY.
        warn();
        -EBUSY_SIM
    } else {
        arch(|a| {
            a.ftrace_ops[ipmodify as usize].flags &= !FTRACE_OPS_FL_ENABLED;
            a.ftrace_registered.retain(|&o| o != ipmodify);
        });
        0
    };
    ev(format!(
        "unregister_ftrace_function {} = {ret}",
        ops_name(ipmodify)
    ));
    ret
}

/// `WARN(1, "Failed to unregister kprobe-ftrace ...")`.
pub fn warn_ftrace_unregister(_ret: c_int) {
    warn();
}

/// `WARN_ONCE(1, "Failed to disarm kprobe-ftrace ...")`.
pub fn warn_once_ftrace_disarm(_addr: *mut KprobeOpcode, _ret: c_int) {
    warn();
}
