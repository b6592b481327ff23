//! Shared support for the property tests: strategies and independent references.
#![allow(dead_code, unreachable_pub)]

pub mod reference;
pub mod strategies;
