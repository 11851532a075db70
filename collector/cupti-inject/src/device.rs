//! The GPUs' capabilities from the CUDA driver (already loaded in the
//! traced process), for the device planes' stats.

use libloading::Library;
use proflens_collector::cupti::DeviceInfo;
use std::ffi::c_char;

/// `CUdevice_attribute` values (cuda.h).
const CLOCK_RATE: i32 = 13;
const MULTIPROCESSOR_COUNT: i32 = 16;
const MEMORY_CLOCK_RATE: i32 = 36;
const GLOBAL_MEMORY_BUS_WIDTH: i32 = 37;
const COMPUTE_CAPABILITY_MAJOR: i32 = 75;
const COMPUTE_CAPABILITY_MINOR: i32 = 76;

/// Every device the driver sees; empty (with the reason) when it cannot say.
pub fn query() -> Result<Vec<DeviceInfo>, String> {
    // SAFETY: the driver library is already loaded by the process being traced.
    let lib = unsafe { Library::new("libcuda.so.1") }.map_err(|e| format!("libcuda.so.1: {e}"))?;
    type Count = unsafe extern "C" fn(*mut i32) -> i32;
    type Get = unsafe extern "C" fn(*mut i32, i32) -> i32;
    type Name = unsafe extern "C" fn(*mut c_char, i32, i32) -> i32;
    type Attribute = unsafe extern "C" fn(*mut i32, i32, i32) -> i32;
    type TotalMem = unsafe extern "C" fn(*mut usize, i32) -> i32;
    // SAFETY: signatures as cuda.h declares them (CUdevice is an int).
    let (count, get, name, attribute, total_mem) = unsafe {
        (
            *lib.get::<Count>(b"cuDeviceGetCount\0").map_err(|e| e.to_string())?,
            *lib.get::<Get>(b"cuDeviceGet\0").map_err(|e| e.to_string())?,
            *lib.get::<Name>(b"cuDeviceGetName\0").map_err(|e| e.to_string())?,
            *lib.get::<Attribute>(b"cuDeviceGetAttribute\0").map_err(|e| e.to_string())?,
            *lib.get::<TotalMem>(b"cuDeviceTotalMem_v2\0").map_err(|e| e.to_string())?,
        )
    };
    let mut n = 0;
    // SAFETY: out-pointers to locals; a non-zero result means "no answer".
    if unsafe { count(&mut n) } != 0 {
        return Err("cuDeviceGetCount failed".into());
    }
    let mut devices = Vec::new();
    for ordinal in 0..n {
        let mut device = 0;
        // SAFETY: as above.
        if unsafe { get(&mut device, ordinal) } != 0 {
            continue;
        }
        let attr = |a: i32| {
            let mut v = 0;
            // SAFETY: as above.
            if unsafe { attribute(&mut v, a, device) } == 0 {
                v
            } else {
                0
            }
        };
        let mut raw = [0 as c_char; 256];
        // SAFETY: the buffer's length is passed; the driver NUL-terminates.
        let gpu_name = if unsafe { name(raw.as_mut_ptr(), raw.len() as i32, device) } == 0 {
            // SAFETY: NUL-terminated within `raw`.
            unsafe { std::ffi::CStr::from_ptr(raw.as_ptr()) }.to_string_lossy().into_owned()
        } else {
            String::new()
        };
        let mut memory = 0usize;
        // SAFETY: as above.
        unsafe { total_mem(&mut memory, device) };
        devices.push(DeviceInfo {
            ordinal: ordinal as u32,
            name: gpu_name,
            compute_capability: (attr(COMPUTE_CAPABILITY_MAJOR) as u32, attr(COMPUTE_CAPABILITY_MINOR) as u32),
            clock_rate_khz: attr(CLOCK_RATE).max(0) as u64,
            core_count: attr(MULTIPROCESSOR_COUNT).max(0) as u64,
            memory_bandwidth: bandwidth(attr(MEMORY_CLOCK_RATE), attr(GLOBAL_MEMORY_BUS_WIDTH)),
            memory_size: memory as u64,
        });
    }
    Ok(devices)
}

/// Peak memory bandwidth (bytes/s) from the memory clock (kHz) and bus width
/// (bits): double data rate, as the CUDA samples and XLA compute it.
pub fn bandwidth(memory_clock_khz: i32, bus_width_bits: i32) -> u64 {
    2 * memory_clock_khz.max(0) as u64 * 1000 * bus_width_bits.max(0) as u64 / 8
}

#[cfg(test)]
mod tests {
    #[test]
    fn bandwidth_of_an_a100() {
        // A100 40GB: 1215 MHz, 5120-bit HBM2 → 1555 GB/s.
        assert_eq!(super::bandwidth(1_215_000, 5120), 1_555_200_000_000);
        assert_eq!(super::bandwidth(-1, 5120), 0);
    }
}
