//! Any bytes as the `xla.HloProto` of an XLA program in an XSpace's
//! `/host:metadata` plane, beside device events built from a fixed choice:
//! the HLO reaches the op profile, HLO stats, memory viewer, the XLA ops of
//! the overview and the trace viewer's GPU tracks.

use crate::build;
use crate::common::{self, Reader};

/// The device planes around the HLO: fixed, so that mutations go to the HLO.
const SKELETON: &[u8] = &[
    3, 1, 3, 0, 200, 3, 0, 1, 2, 4, 2, 3, 5, 1, 9, 4, 0, 3, 1, 1, 7, 5, 9, 3, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
    13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
];

pub fn run(data: &[u8]) {
    let bytes = build::xspace(&mut Reader::new(SKELETON), Some(data));
    let host = common::host("vm.xplane.pb", None, &bytes);
    common::run_everything(&host);
}
