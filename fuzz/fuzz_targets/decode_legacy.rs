//! Any bytes as each legacy TensorBoard tool file, then its view model: an
//! error or a view, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use proflens_format::legacy::{decode, LegacyTool};
use proflens_format::Limits;

fuzz_target!(|data: &[u8]| {
    let limits = Limits { max_input_bytes: 8 << 20, max_decompressed_bytes: 64 << 20 };
    for tool in LegacyTool::ALL {
        let name = format!("host.{}.{}", tool.file_stem(), tool.extensions()[0]);
        if let Ok(file) = decode(&name, data, &limits) {
            let _ = proflens_analysis::common::legacy::view(&file);
        }
    }
});
