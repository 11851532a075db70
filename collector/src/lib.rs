//! proflens-collect: writes profiles in the logdir layout Proflens and XProf
//! read (`LOGDIR/plugins/profile/<run>/<host>.xplane.pb`).
//!
//! [`capture`] asks running TensorFlow/JAX jobs for a profile over the
//! ProfilerService gRPC protocol ([`proto`], addresses in [`target`], the
//! layout in [`logdir`]); [`monitor`] shows their utilisation; [`index`]
//! lists a logdir's runs for the app; [`run`] traces a CUDA program through
//! the CUPTI injection library (collector/cupti-inject); [`cupti`] turns CUPTI activity records
//! into an XSpace (built with [`xplane_builder`]).

pub mod capture;
pub mod cupti;
pub mod index;
pub mod logdir;
pub mod monitor;
pub mod proto;
pub mod run;
pub mod target;
pub mod xplane_builder;
