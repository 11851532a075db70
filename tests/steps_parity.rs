//! Parity of steps, step-time breakdown, overview and input pipeline with XProf 2.24 goldens.
