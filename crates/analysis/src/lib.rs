//! Pure analysis over the profile model.
//!
//! One module per tool; each turns a [`proflens_model::Profile`] into a serde
//! view model that the CLI prints and the app renders. No I/O, no web types.

pub mod info;
