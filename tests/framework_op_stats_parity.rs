//! Parity of framework_op_stats with XProf 2.24 goldens.
