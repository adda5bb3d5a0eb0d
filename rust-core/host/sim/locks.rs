// SPDX-License-Identifier: GPL-2.0

//! Locks: the slot caches' spinning `struct mutex`, and the kernel's
//! other locks as flags that assert upstream's order (`kprobe_mutex`,
//! `text_mutex`, `cpus_read_lock()`, `jump_label_lock()`, the sysctl mutex).

use super::cpu::cpu;
use super::image::{image, model};
use super::text::arch;
use super::trace::{hd_fatal, record};
use super::Mutex;
use std::sync::atomic::{AtomicI32, Ordering};

/// `m->locked`, accessed atomically (the C layout's `int`).
///
/// # Safety
/// `m` points to a live [`Mutex`] whose `locked` is only accessed
/// atomically while it lives (the simulation's lock and unlock below).
unsafe fn locked<'a>(m: *mut Mutex) -> &'a AtomicI32 {
    // SAFETY: `locked` is a live, aligned `c_int` (an `i32`) that is only
    // accessed atomically (this function's `# Safety`).
    unsafe { AtomicI32::from_ptr(core::ptr::addr_of_mut!((*m).locked)) }
}

/// model.c's `mutex_lock()` check (with
/// [`Image::as_model`](super::Image::as_model)): taking a mutex inside an
/// RCU read-side section or with preemption disabled is fatal.
fn model_atomic_check(name: &str) {
    if model() && (record(|r| r.rcu_nesting) != 0 || cpu(|c| c.preempt) != 0) {
        hd_fatal(format_args!("mutex_lock({name}) in atomic context"));
    }
}

/// `mutex_lock()`; with [`Image::as_model`](super::Image::as_model),
/// model.c's: fatal in atomic context, and fatal if `m` is held (one
/// thread: a deadlock), where the unit tests' mutex spins.
///
/// # Safety
/// `m` must point to a live [`Mutex`].
pub unsafe fn mutex_lock(m: *mut Mutex) {
    // SAFETY: `m` is live (this function's `# Safety`) and the core takes
    // its mutexes only through these two functions.
    let l = unsafe { locked(m) };
    if model() {
        // SAFETY: `m` is live (this function's `# Safety`); `name` is null
        // or a C string (`Mutex::new()`, `__MUTEX_INITIALIZER`).
        let name = super::trace::cstr(unsafe { (*m).name });
        if l.load(Ordering::Relaxed) != 0 {
            hd_fatal(format_args!("deadlock: {name} already held"));
        }
        model_atomic_check(&name);
    }
    while l
        .compare_exchange(0, 1, Ordering::Acquire, Ordering::Relaxed)
        .is_err()
    {
        std::thread::yield_now();
    }
}

/// `mutex_unlock()`; unlocking a mutex that is not held is a bug (with
/// [`Image::as_model`](super::Image::as_model), model.c's fatal error).
///
/// # Safety
/// `m` must point to a live [`Mutex`].
pub unsafe fn mutex_unlock(m: *mut Mutex) {
    // SAFETY: `m` is live (this function's `# Safety`), and only accessed
    // atomically.
    let l = unsafe { locked(m) };
    if l.swap(0, Ordering::Release) == 0 {
        if model() {
            // SAFETY: as above; `name` is null or a C string.
            let name = super::trace::cstr(unsafe { (*m).name });
            hd_fatal(format_args!("mutex_unlock of unlocked {name}"));
        }
        panic!("mutex_unlock of an unlocked mutex");
    }
}

/// `jump_label_lock()`.
pub fn jump_label_lock() {
    model_atomic_check("jump_label_mutex");
    image(|i| i.lock_log.push("jump_label_lock"));
    arch(|a| a.jump_label = true);
}

/// `jump_label_unlock()`.
///
/// # Safety
/// The current task holds `jump_label_mutex` (taken with `jump_label_lock()`).
pub unsafe fn jump_label_unlock() {
    image(|i| i.lock_log.push("jump_label_unlock"));
    arch(|a| a.jump_label = false);
}

/// `mutex_lock(&kprobe_mutex)`: asserts it is not held (no recursion).
pub fn kprobe_mutex_lock() {
    model_atomic_check("kprobe_mutex");
    arch(|a| {
        assert!(!a.kprobe_mutex, "kprobe_mutex taken recursively");
        a.kprobe_mutex = true;
    });
}

/// `mutex_unlock(&kprobe_mutex)`.
///
/// # Safety
/// The current task holds `kprobe_mutex` (taken with `kprobe_mutex_lock()`).
pub unsafe fn kprobe_mutex_unlock() {
    arch(|a| {
        assert!(a.kprobe_mutex, "kprobe_mutex unlocked but not held");
        a.kprobe_mutex = false;
    });
}

/// `mutex_lock(&kprobe_sysctl_mutex)`.
pub fn sysctl_mutex_lock() {
    model_atomic_check("kprobe_sysctl_mutex");
    arch(|a| {
        assert!(!a.sysctl_mutex);
        a.sysctl_mutex = true;
    });
}

/// `mutex_unlock(&kprobe_sysctl_mutex)`.
///
/// # Safety
/// The current task holds `kprobe_sysctl_mutex` (taken with `sysctl_mutex_lock()`).
pub unsafe fn sysctl_mutex_unlock() {
    arch(|a| a.sysctl_mutex = false);
}

/// `mutex_lock(&text_mutex)`: upstream's order is cpus_read_lock, then
/// (jump_label_lock,) then text_mutex, all inside kprobe_mutex.
pub fn text_mutex_lock() {
    model_atomic_check("text_mutex");
    arch(|a| {
        assert!(!a.text_mutex, "text_mutex taken recursively");
        assert!(a.cpus_read > 0, "text_mutex without cpus_read_lock");
        assert!(a.kprobe_mutex, "text_mutex without kprobe_mutex");
        a.text_mutex = true;
    });
}

/// `mutex_unlock(&text_mutex)`.
///
/// # Safety
/// The current task holds `text_mutex` (taken with `text_mutex_lock()`).
pub unsafe fn text_mutex_unlock() {
    arch(|a| {
        assert!(a.text_mutex);
        a.text_mutex = false;
    });
}

/// `lockdep_assert_held(&kprobe_mutex)`: the simulated kernel checks it.
pub fn lockdep_assert_held_kprobe_mutex() {
    arch(|a| assert!(a.kprobe_mutex, "lockdep: kprobe_mutex not held"));
}

/// `lockdep_assert_held(&text_mutex)`.
pub fn lockdep_assert_held_text_mutex() {
    arch(|a| assert!(a.text_mutex, "lockdep: text_mutex not held"));
}

/// `lockdep_assert_cpus_held()` (with
/// [`Image::as_model`](super::Image::as_model), model.c's fatal error).
pub fn lockdep_assert_cpus_held() {
    if arch(|a| a.cpus_read) == 0 {
        model_fatal("lockdep: cpus_read_lock not held");
    }
}

/// A broken locking rule: model.c's fatal error with
/// [`Image::as_model`](super::Image::as_model), else a failed assertion.
fn model_fatal(what: &str) -> ! {
    if model() {
        hd_fatal(format_args!("{what}"));
    }
    panic!("{what}");
}

/// `cpus_read_lock()`.
pub fn cpus_read_lock() {
    arch(|a| {
        assert!(!a.text_mutex, "cpus_read_lock inside text_mutex");
        a.cpus_read += 1;
    });
}

/// `cpus_read_unlock()`.
///
/// # Safety
/// The current task holds the CPU hotplug lock for reading (taken with
/// `cpus_read_lock()`).
pub unsafe fn cpus_read_unlock() {
    if arch(|a| a.cpus_read) == 0 {
        model_fatal("cpus_read_unlock underflow");
    }
    arch(|a| a.cpus_read -= 1);
}
