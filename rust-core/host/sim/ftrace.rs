// SPDX-License-Identifier: GPL-2.0

//! ftrace: the two kprobe ops' filters and registration, with injected
//! failures; each call is an `ftrace-*` line in [`Arch::events`](super::Arch).

use super::image::image;
use super::text::arch;
use super::trace::{ev, sym_off, warn};
use super::ENOENT;
use crate::ffi::c_int;
use crate::types::KprobeOpcode;

/// `ftrace_location()`: the call site if `addr` is one, else 0 (the
/// simulation has no symbol-start lookup, which the core never relies on).
pub fn ftrace_location(addr: usize) -> usize {
    if image(|i| i.ftrace_sites.contains(&addr)) {
        addr
    } else {
        0
    }
}

fn ops_name(ipmodify: bool) -> &'static str {
    if ipmodify {
        "ipmodify"
    } else {
        "ftrace"
    }
}

/// `ftrace_set_filter_ip()` on one of the two ops.
pub fn ftrace_set_filter_ip(ipmodify: bool, ip: usize, remove: bool) -> c_int {
    assert!(
        arch(|a| a.kprobe_mutex),
        "ftrace arming without kprobe_mutex"
    );
    ev(format!(
        "ftrace-filter {} {}{}",
        ops_name(ipmodify),
        if remove { "-" } else { "+" },
        sym_off(ip)
    ));
    if let Some(e) = arch(|a| a.ftrace_fail.take()) {
        return e;
    }
    arch(|a| {
        let f = &mut a.ftrace_filter[ipmodify as usize];
        if remove {
            f.retain(|&x| x != ip);
        } else {
            f.push(ip);
        }
    });
    0
}

/// `ftrace_set_filter_ips()` on one of the two ops: all or nothing, as
/// ftrace's (which sets a copy of the filter hash); one `ftrace-filters`
/// event per call, with every address.
pub fn ftrace_set_filter_ips(ipmodify: bool, ips: &[usize], remove: bool) -> c_int {
    assert!(
        arch(|a| a.kprobe_mutex),
        "ftrace arming without kprobe_mutex"
    );
    let sign = if remove { "-" } else { "+" };
    let list: Vec<String> = ips
        .iter()
        .map(|&ip| format!("{sign}{}", sym_off(ip)))
        .collect();
    ev(format!(
        "ftrace-filters {} {}",
        ops_name(ipmodify),
        list.join(" ")
    ));
    arch(|a| a.ftrace_batch_calls[ipmodify as usize] += 1);
    if let Some(e) = arch(|a| a.ftrace_fail.take()) {
        return e;
    }
    if let Some((_, e)) = arch(|a| a.ftrace_batch_fail.take_if(|f| f.0 == ipmodify)) {
        return e;
    }
    let ok = arch(|a| {
        let f = &a.ftrace_filter[ipmodify as usize];
        ips.iter().all(|ip| !remove || f.contains(ip))
    });
    if !ok {
        return -ENOENT;
    }
    arch(|a| {
        let f = &mut a.ftrace_filter[ipmodify as usize];
        for &ip in ips {
            if remove {
                f.retain(|&x| x != ip);
            } else if !f.contains(&ip) {
                f.push(ip);
            }
        }
    });
    0
}

/// `register_ftrace_function()`.
pub fn register_ftrace_function(ipmodify: bool) -> c_int {
    ev(format!("ftrace-register {}", ops_name(ipmodify)));
    if let Some(e) = arch(|a| a.ftrace_register_fail.take()) {
        return e;
    }
    arch(|a| a.ftrace_ops_registered[ipmodify as usize] = true);
    0
}

/// `unregister_ftrace_function()`.
pub fn unregister_ftrace_function(ipmodify: bool) -> c_int {
    ev(format!("ftrace-unregister {}", ops_name(ipmodify)));
    arch(|a| a.ftrace_ops_registered[ipmodify as usize] = false);
    0
}

/// `WARN(1, "Failed to unregister kprobe-ftrace ...")`.
pub fn warn_ftrace_unregister(_ret: c_int) {
    warn();
}

/// `WARN_ONCE(1, "Failed to disarm kprobe-ftrace ...")`.
pub fn warn_once_ftrace_disarm(_addr: *mut KprobeOpcode, _ret: c_int) {
    warn();
}
