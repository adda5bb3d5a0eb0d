core rust-core/state.rs rust-core/ftrace.rs rust-core/opt.rs rust-core/opt_none.rs rust-core/opt_aggr.rs \
	rust-core/arm.rs
