# SPDX-License-Identifier: GPL-2.0
# Optional guest job of scripts/bench.sh (KPB_PROFILE=1): where the
# instructions of kprobe registration go.  Registers/unregisters 10 kprobes
# one by one and 10 batched (kprobes_bench.ko run=reg maxn=10) under the
# function tracer, then prints per kernel service the number of calls and,
# from function_graph at depth 1 (durations under icount are instruction
# counts, tracer overhead included), their total cost.
. /kpt/lib.sh
for m in $(ls /extra/kpb_fns*.ko | sort -V); do insmod "$m"; done
insmod /extra/kprobes_bench.ko run=none
echo 0 > /proc/sys/debug/kprobes-optimization

# 1. call counts of the kernel services the core uses
for f in kallsyms_lookup_size_offset kallsyms_lookup_name module_address_lookup find_kallsyms_symbol \
	lookup_module_symbol_name text_poke text_poke_sync synchronize_rcu \
	__get_insn_slot __free_insn_slot arch_prepare_kprobe arch_prepare_optimized_kprobe \
	static_call_text_reserved __module_text_address try_module_get module_put \
	arch_arm_kprobe arch_disarm_kprobe kfree __kmalloc_cache_noprof __kmalloc_noprof call_rcu \
	recover_probed_instruction can_boost within_kprobe_blacklist arch_within_kprobe_blacklist \
	search_exception_tables ftrace_location; do
	echo $f >> $T/set_ftrace_filter 2>/dev/null
done
echo function > $T/current_tracer
echo > $T/trace
rmmod kprobes_bench; insmod /extra/kprobes_bench.ko run=reg maxn=10
echo 0 > $T/tracing_on
echo "KPP calls during 20 register_kprobe + 20 unregister_kprobe (function tracer; functions of the"
echo "KPP core itself do not appear when it is Rust, which has no ftrace sites):"
grep -v '^#' $T/trace | awk '{for(i=1;i<=NF;i++) if ($i ~ /^[a-z_0-9.]+$/ && $(i+1) ~ /^<-/) {print $i; break}}' |
	sort | uniq -c | sort -rn | sed 's/^/KPP /'
echo nop > $T/current_tracer
echo > $T/set_ftrace_filter

# 2. cost of the heaviest ones (top-level calls only, so no double counting)
for f in find_kallsyms_symbol text_poke text_poke_sync __get_insn_slot search_exception_tables; do
	echo $f >> $T/set_graph_function
done
echo 1 > $T/max_graph_depth
echo function_graph > $T/current_tracer
echo > $T/trace
echo 1 > $T/tracing_on
rmmod kprobes_bench; insmod /extra/kprobes_bench.ko run=reg maxn=10
echo 0 > $T/tracing_on
echo "KPP instructions (tracer overhead included), same 20 + 20 operations:"
grep -E 'us +\|' $T/trace | sed 's/[!#+*@$]//g' |
	awk '{for(i=1;i<=NF;i++) if ($(i+1)=="us") d=$i; fn=$NF; sub(/\(\);/,"",fn); n[fn]++; s[fn]+=d}
	     END {for (f in n) printf "KPP %-26s calls=%-5d total=%10.0f  per call=%7.0f\n", f, n[f], s[f]*1000, s[f]*1000/n[f]}' | sort -k4 -t= -rn
grep -E 'KPB reg_int3_(one|batch)_10 ' $D/kprobes_bench/results | sed 's/^/KPP traced run: /'
echo nop > $T/current_tracer
rmmod kprobes_bench
