//! Helpers every layer uses: XProf's stat names and op-name rules, DataTables,
//! CSV fields, the hardware type and the legacy files' shape errors.

pub mod byte_column;
pub mod csv;
pub mod datatable;
pub mod hardware;
pub mod html;
pub mod id_hash;
pub mod legacy;
pub mod schema;
pub mod stats;
pub mod tf_op;
