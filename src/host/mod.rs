//! Host adapters: a host's wire format in, [`crate::Event`] out, and a
//! [`crate::Verdict`] back to the host's wire format.

pub mod hermes;
pub mod plugin;
