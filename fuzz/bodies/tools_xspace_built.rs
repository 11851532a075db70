//! An XSpace built from the bytes' choices (`build.rs`): planes, lines and
//! events named as the profilers name them, and XLA programs whose HLO has
//! cycles, dangling ids and edge-value sizes; then every tool in every
//! format, the combining tools and the trace viewer's queries.

use crate::build;
use crate::common::{self, Reader};

pub fn run(data: &[u8]) {
    // The first half builds the events, the second the XLA programs.
    let (events, programs) = data.split_at(data.len() / 2);
    let bytes = build::xspace(&mut Reader::new(events), &mut Reader::new(programs));
    let host = common::host("vm.xplane.pb", None, &bytes);
    common::run_everything(&host);
}
