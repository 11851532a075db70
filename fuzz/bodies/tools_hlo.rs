//! Any bytes as the `xla.HloProto` of an XLA program in an XSpace's
//! `/host:metadata` plane, beside a TPU's events named after its
//! instructions, then beside a GPU's (`build::around_hlo`): the HLO reaches
//! the op profile, HLO stats, the memory viewer, the overview's and op
//! stats' XLA ops, the trace viewer's GPU tracks.

use crate::build;
use crate::common;

pub fn run(data: &[u8]) {
    for device in [build::Device::Tpu, build::Device::Gpu] {
        let host = common::host("vm.xplane.pb", None, &build::around_hlo(data, device));
        common::run_everything(&host);
    }
}
