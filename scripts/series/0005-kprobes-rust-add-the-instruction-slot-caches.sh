core rust-core/slots.rs rust-core/rcu_policy.rs
