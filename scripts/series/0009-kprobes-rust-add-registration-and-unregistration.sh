core rust-core/register.rs
