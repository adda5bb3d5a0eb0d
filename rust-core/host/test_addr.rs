// SPDX-License-Identifier: GPL-2.0

//! Host tests of probe address resolution and the address safety checks.

use crate::exports::*;
use crate::ffi::c_ulong;
use crate::sys::{self, cpu, image, ModState, Module, Sym};
use crate::types::{Kprobe, KprobeOpcode, KPROBE_FLAG_FTRACE};
use core::ptr;

const TEXT: usize = 0xffff_ffff_8100_0000;
const A: usize = TEXT; // ENDBR function, ftrace site at +4
const B: usize = TEXT + 0x100; // plain function, ftrace site at +0
const C: usize = TEXT + 0x200;
const CFI_C: usize = C - 0x10;
const D: usize = TEXT + 0x300;
const PFX_D: usize = D - 0x10;
const GAP: usize = TEXT + 0x1000; // text without symbol
const MODT: usize = 0xffff_ffff_c000_0000;
const MODI: usize = 0xffff_ffff_c010_0000;

fn kernel() {
    image(|i| {
        i.text = vec![(TEXT, TEXT + 0x10_0000)];
        i.symbols = vec![
            Sym::new("func_a", A, 0x100),
            Sym::new("func_b", B, 0x80),
            Sym::new("__cfi_func_c", CFI_C, 0x10),
            Sym::new("func_c", C, 0x40),
            Sym::new("__pfx_func_d", PFX_D, 0x10),
            Sym::new("func_d", D, 0x40),
            Sym::new("blacklisted", TEXT + 0x400, 0x40),
            Sym::new("gate_fn", TEXT + 0x500, 0x40),
            Sym::new("mod_fn", MODT, 0x40),
            Sym::new("mod_init_fn", MODI, 0x40),
        ];
        i.endbr = vec![A];
        i.ftrace_sites = vec![A + 4, B];
        i.jump_labels = vec![B + 0x10];
        i.static_calls = vec![B + 0x20];
        i.bugs = vec![B + 0x30];
        i.gate = (TEXT + 0x500, TEXT + 0x540);
    });
    crate::blacklist::add_ksym_blacklist(&crate::locks::kprobe_mutex(), TEXT + 0x400).unwrap();
}

fn resolve(addr: usize, sym: Option<&std::ffi::CStr>, offset: usize) -> (isize, bool) {
    let mut entry = false;
    let r = crate::addr::kprobe_addr(
        addr as *mut KprobeOpcode,
        sym,
        offset as c_ulong,
        &mut entry,
    );
    (
        r.map_or_else(|e| e.to_errno() as isize, |a| a as isize),
        entry,
    )
}

fn err(e: i32) -> isize {
    e as isize
}

#[test]
fn addr_and_symbol_both_or_neither_is_einval() {
    let _g = sys::exclusive();
    kernel();
    assert_eq!(resolve(A, Some(c"func_a"), 0).0, err(-sys::EINVAL));
    assert_eq!(resolve(0, None, 0).0, err(-sys::EINVAL));
}

#[test]
fn unknown_symbol_and_address_outside_symbols_are_enoent() {
    let _g = sys::exclusive();
    kernel();
    assert_eq!(
        resolve(0, Some(c"no_such_function"), 0).0,
        err(-sys::ENOENT)
    );
    assert_eq!(resolve(GAP, None, 0).0, err(-sys::ENOENT));
}

#[test]
fn symbol_plus_offset_and_function_entry() {
    let _g = sys::exclusive();
    kernel();
    assert_eq!(resolve(0, Some(c"func_b"), 0), ((B) as isize, true));
    assert_eq!(resolve(0, Some(c"func_b"), 8), ((B + 8) as isize, false));
    // An address plus an offset is the same place.
    assert_eq!(resolve(B, None, 8), ((B + 8) as isize, false));
    assert_eq!(resolve(B + 8, None, 0), ((B + 8) as isize, false));
}

#[test]
fn endbr_entry_is_skipped_and_offsets_0_and_4_are_the_entry() {
    let _g = sys::exclusive();
    kernel();
    assert_eq!(resolve(0, Some(c"func_a"), 0), ((A + 4) as isize, true));
    assert_eq!(resolve(0, Some(c"func_a"), 4), ((A + 4) as isize, true));
    assert_eq!(resolve(0, Some(c"func_a"), 8), ((A + 8) as isize, false));
    assert_eq!(resolve(A, None, 0), ((A + 4) as isize, true));
}

#[test]
fn offset_past_the_symbol_is_re_resolved_in_the_next_one() {
    let _g = sys::exclusive();
    kernel();
    // func_a + 0x100 is func_b + 0: upstream re-resolves the symbol.
    assert_eq!(resolve(0, Some(c"func_a"), 0x100), (B as isize, true));
    // ... and past the last symbol into the gap: -ENOENT.
    assert_eq!(resolve(0, Some(c"func_d"), 0x1000).0, err(-sys::ENOENT));
}

#[test]
fn arch_refusal_is_einval() {
    let _g = sys::exclusive();
    kernel();
    image(|i| i.unreadable.push(C));
    assert_eq!(resolve(0, Some(c"func_c"), 0).0, err(-sys::EINVAL));
}

#[test]
fn on_func_entry_results() {
    let _g = sys::exclusive();
    kernel();
    // SAFETY: valid C strings.
    unsafe {
        assert_eq!(
            kprobe_on_func_entry(ptr::null_mut(), c"func_b".as_ptr().cast(), 0),
            0
        );
        assert_eq!(
            kprobe_on_func_entry(ptr::null_mut(), c"func_a".as_ptr().cast(), 4),
            0
        );
        assert_eq!(
            kprobe_on_func_entry(ptr::null_mut(), c"func_b".as_ptr().cast(), 1),
            -sys::EINVAL
        );
        assert_eq!(
            kprobe_on_func_entry(ptr::null_mut(), c"nope".as_ptr().cast(), 0),
            -sys::ENOENT
        );
        assert_eq!(
            kprobe_on_func_entry(B as *mut KprobeOpcode, c"func_b".as_ptr().cast(), 0),
            -sys::EINVAL
        );
        assert_eq!(
            kprobe_on_func_entry(B as *mut KprobeOpcode, ptr::null(), 0),
            0
        );
    }
}

fn probe_at(addr: usize) -> Box<Kprobe> {
    // SAFETY: all-zero is a valid struct kprobe.
    let mut p: Box<Kprobe> = Box::new(unsafe { core::mem::zeroed() });
    p.addr = addr as *mut KprobeOpcode;
    p
}

/// `check_kprobe_address_safe()` at `addr`: the errno, the module whose
/// reference it returned (kept: the test plays the caller holding it) and
/// the probe's flags.
fn safe(addr: usize) -> (i32, *mut Module, u32) {
    let mut p = probe_at(addr);
    // SAFETY: a live probe, not registered, that the test owns.
    let np = unsafe { crate::probe::NewProbe::new(crate::probe::Probe::from_raw(&mut *p)) };
    let r = crate::addr::check_kprobe_address_safe(&np, None);
    assert_eq!(cpu(|c| c.preempt), 0, "preemption re-enabled on every path");
    let (rc, m) = match r {
        Ok(Some(mr)) => {
            let m = mr.as_ptr();
            core::mem::forget(mr);
            (0, m)
        }
        Ok(None) => (0, ptr::null_mut()),
        Err(e) => (e.to_errno(), ptr::null_mut()),
    };
    (rc, m, p.flags)
}

/// Under `jump_label_lock`; on 6.12 with preemption disabled too (mainline
/// takes an RCU read lock only around a module lookup).
#[test]
fn core_text_is_safe_under_jump_label() {
    let _g = sys::exclusive();
    kernel();
    let (r, m, f) = safe(B + 8);
    assert_eq!((r, m.is_null(), f), (0, true, 0));
    let mut want = vec!["jump_label_lock"];
    if !crate::tree::MODULE_REF_BEFORE_CHECKS {
        want.extend(["preempt_disable", "preempt_enable"]);
    }
    want.push("jump_label_unlock");
    assert_eq!(image(|i| i.lock_log.clone()), want);
}

#[test]
fn ftrace_site_sets_the_ftrace_flag_only_exactly_there() {
    let _g = sys::exclusive();
    kernel();
    assert_eq!(safe(A + 4).2, KPROBE_FLAG_FTRACE);
    assert_eq!(safe(B).2, KPROBE_FLAG_FTRACE);
    assert_eq!(safe(A + 8).2, 0);
}

#[test]
fn reserved_places_are_einval() {
    let _g = sys::exclusive();
    kernel();
    for (what, a) in [
        ("not text", 0x1234_0000usize),
        ("blacklist", TEXT + 0x410),
        ("jump label", B + 0x10),
        ("static call", B + 0x20),
        ("BUG()", B + 0x30),
        ("__cfi_ preamble", CFI_C + 4),
        ("__pfx_ padding", PFX_D + 4),
        ("gate area", TEXT + 0x510),
    ] {
        assert_eq!(safe(a).0, -sys::EINVAL, "{what}");
    }
    assert_eq!(safe(C).0, 0, "the function after a CFI preamble is fine");
    // The blacklist's suffix check and the CFI check share one look-up of
    // the symbol's name (upstream makes one each).
    image(|i| i.symbol_name_lookups = 0);
    assert_eq!(safe(C + 8).0, 0);
    assert_eq!(image(|i| i.symbol_name_lookups), 1);
}

fn module(state: ModState) -> Box<Module> {
    Box::new(Module::sim(
        (MODT, MODT + 0x1000),
        (MODI, MODI + 0x100),
        state,
    ))
}

#[test]
fn module_text_takes_a_reference() {
    let _g = sys::exclusive();
    kernel();
    let mut md = module(ModState::Live);
    let mp: *mut Module = &mut *md;
    image(|i| i.modules.push(mp as usize));
    let (r, m, _) = safe(MODT + 8);
    assert_eq!((r, m), (0, mp));
    assert_eq!(md.refs, 1);
    // The reference is the returned `ModuleRef`'s: dropping it puts it.
    let mut p = probe_at(MODT + 8);
    // SAFETY: a live probe, not registered, that the test owns.
    let np = unsafe { crate::probe::NewProbe::new(crate::probe::Probe::from_raw(&mut *p)) };
    let mr = crate::addr::check_kprobe_address_safe(&np, None)
        .unwrap()
        .unwrap();
    // SAFETY: read through the pointer the simulation writes through.
    assert_eq!(unsafe { (*mp).refs }, 2);
    drop(mr);
    // SAFETY: as above.
    assert_eq!(unsafe { (*mp).refs }, 1);
}

#[test]
fn going_module_is_enoent_without_a_reference() {
    let _g = sys::exclusive();
    kernel();
    let mut md = module(ModState::Going);
    image(|i| {
        i.modules.push(&mut *md as *mut Module as usize);
        i.module_get_fails = true;
    });
    assert_eq!(safe(MODT + 8).0, -sys::ENOENT);
    assert_eq!(md.refs, 0);
}

#[test]
fn module_init_text_only_while_coming() {
    let _g = sys::exclusive();
    kernel();
    let mut live = module(ModState::Live);
    image(|i| i.modules.push(&mut *live as *mut Module as usize));
    let (r, m, _) = safe(MODI + 8);
    assert_eq!((r, m.is_null()), (-sys::ENOENT, true));
    assert_eq!(live.refs, 0, "the reference is dropped again");

    live.state = ModState::Coming;
    let (r, m, _) = safe(MODI + 8);
    assert_eq!((r, m.is_null()), (0, false));
    assert_eq!(live.refs, 1);
}

#[test]
fn model_image_is_model_c_s_table_and_m0_appears_while_loaded() {
    use sys::{HD_D, HD_M, HD_MI, HD_T};
    let _g = sys::exclusive();
    sys::install_model();
    let size_off = |a: usize| {
        let (mut size, mut off) = (0, 0);
        sys::kallsyms_lookup_size_offset(a, &mut size, &mut off).then_some((size, off))
    };
    let modname = |a: usize| {
        let mut off: c_ulong = 0;
        let mut m: *mut crate::ffi::c_char = ptr::null_mut();
        let mut buf = vec![0 as crate::ffi::c_char; sys::KSYM_NAME_LEN];
        // SAFETY: `buf` has KSYM_NAME_LEN bytes.
        let r = unsafe { sys::kallsyms_lookup(a, &mut off, &mut m, buf.as_mut_ptr()) };
        assert!(!r.is_null());
        // SAFETY: a module's name is a C string.
        (!m.is_null()).then(|| unsafe { std::ffi::CStr::from_ptr(m.cast()) }.to_owned())
    };
    assert_eq!(sys::MODEL_SYMBOLS.len(), 19);
    // model.c's hd_sym(): every table symbol, present or not.
    assert_eq!(sys::hd_sym(HD_T + 0x84), "f2+0x4");
    assert_eq!(sys::hd_sym(HD_T + 0x254), "f9+0x4");
    assert_eq!(sys::hd_sym(HD_D + 8), "data_var+0x8");
    assert_eq!(sys::hd_sym(HD_M + 0x44), "m0_fn2+0x4", "m0 is not loaded");
    assert_eq!(sys::hd_sym(HD_MI), "m0_init+0x0");
    assert_eq!(sys::hd_sym(HD_T + 0x300), "0xffffffff81000300");
    // kallsyms and text: vmlinux only.
    assert_eq!(size_off(HD_T + 0x254), Some((0x30, 4)));
    assert_eq!(size_off(HD_M + 0x44), None);
    assert_eq!(modname(HD_T + 0x84), None);
    assert!(
        sys::kernel_text_address(HD_T + 0x300),
        "core text without symbol"
    );
    assert!(sys::core_kernel_text(HD_T + 0x400), "init_fn");
    assert!(!sys::kernel_text_address(HD_D));
    assert!(!sys::kernel_text_address(HD_M));
    assert_eq!(resolve(0, Some(c"m0_fn"), 0).0, err(-sys::ENOENT));
    assert_eq!(resolve(0, Some(c"f9"), 4), ((HD_T + 0x254) as isize, false));
    // ftrace sites at +0 of f0, f1, f4, blacklisted_fn, f9 (and m0_fn).
    for s in [0, 0x40, 0x100, 0x140, 0x250] {
        assert_eq!(sys::ftrace_location(HD_T + s), HD_T + s);
    }
    assert_eq!(sys::ftrace_location(HD_T + 0x80), 0, "f2 has none");
    assert_eq!(sys::ftrace_location(HD_M), 0, "m0 is not loaded");
    // f7's static call site covers 4 bytes at +0x10; its BUG() is at +0x20.
    assert!(!sys::static_call_text_reserved(HD_T + 0x1c8, HD_T + 0x1cf));
    assert!(sys::static_call_text_reserved(HD_T + 0x1d3, HD_T + 0x1d8));
    assert!(!sys::jump_label_text_reserved(HD_T, HD_T + 0x440));
    assert!(sys::find_bug(HD_T + 0x1e0));
    // module-load: m0's core and init symbols appear.
    sys::hd_module_load();
    assert_eq!(size_off(HD_M + 0x44), Some((0x40, 4)));
    assert_eq!(size_off(HD_MI + 4), Some((0x40, 4)));
    assert_eq!(modname(HD_M + 0x44).as_deref(), Some(c"m0"));
    assert!(sys::kernel_text_address(HD_M + 0x44));
    assert_eq!(sys::ftrace_location(HD_M), HD_M);
    assert_eq!(resolve(0, Some(c"m0_fn"), 0), (HD_M as isize, true));
    // module-init-done frees the init text: m0_init goes, and is still named.
    sys::hd_module_init_done();
    assert_eq!(size_off(HD_MI + 4), None);
    assert_eq!(sys::hd_sym(HD_MI + 4), "m0_init+0x4");
    // module-unload (m0's blacklist entries are freed after the grace
    // period, at the end of the operation).
    sys::hd_module_unload();
    sys::hd_rcu_quiesce();
    assert_eq!(size_off(HD_M), None);
    assert!(!sys::kernel_text_address(HD_M + 0x44));
    // free-init: init_fn stays a symbol but is no longer text.
    sys::hd_free_init();
    assert!(!sys::core_kernel_text(HD_T + 0x400));
    assert!(!sys::kernel_text_address(HD_T + 0x400));
    assert!(sys::core_kernel_text(HD_T + 0x3ff));
    assert_eq!(size_off(HD_T + 0x404), Some((0x40, 4)));
    // Free m0 and its blacklist array now: the image keeps them by address,
    // which Miri does not count as reachable.
    image(|i| *i = sys::Image::default());
}
