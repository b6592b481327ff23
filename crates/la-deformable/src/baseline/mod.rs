//! Baselines for comparison only: the cubic-coplanarity vertex–face / edge–edge test
//! (Provot-style), which LA is measured against.
