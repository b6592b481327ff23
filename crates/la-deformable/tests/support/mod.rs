//! Shared test support: the exact rational reference for vertex–face / edge–edge CCD and the
//! reader of the Tight-Inclusion conformance set.
#![allow(dead_code, unreachable_pub)]

pub mod conformance;
pub mod exact;
