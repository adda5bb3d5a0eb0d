// SPDX-License-Identifier: GPL-2.0

//! [`kp_pr!`](crate::kp_pr): the core's messages (one definition for the
//! kernel build, the host tests and the host differential's crate root).

/// `pr_err()`, `pr_warn()`, `pr_info()` with upstream's `pr_fmt` prefix
/// ("kprobes: "): the kernel crate's `pr_*!` (whose prefix is this crate's
/// `__LOG_PREFIX`) in the kernel build, the simulation's log on the host.
#[macro_export]
macro_rules! kp_pr {
    (err, $($arg:tt)+) => { $crate::kp_pr!(@ pr_err, 3, $($arg)+) };
    (warn, $($arg:tt)+) => { $crate::kp_pr!(@ pr_warn, 4, $($arg)+) };
    (info, $($arg:tt)+) => { $crate::kp_pr!(@ pr_info, 6, $($arg)+) };
    (@ $m:ident, $level:literal, $($arg:tt)+) => {{
        #[cfg(CONFIG_RUST)]
        kernel::$m!($($arg)+);
        #[cfg(not(CONFIG_RUST))]
        $crate::sys::pr_log($level, format_args!($($arg)+));
    }};
}
