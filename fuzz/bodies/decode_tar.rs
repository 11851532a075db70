//! Any bytes as a tar archive of profiles (`.tar` or `.tar.gz`): its
//! packing sniffed, a gzip inflated under a limit, its members listed
//! (ustar, GNU and pax headers) and each profile member decoded where it
//! lies, read whole and streamed: an error or a listing, never a panic.

use proflens_format::archive::{self, Packing};
use proflens_format::load_source::load_with_chunk;
use proflens_format::source::Part;
use proflens_format::{load_profile_source, ByteSource, Limits};

pub fn run(data: &[u8]) {
    let limits = Limits { max_input_bytes: 8 << 20, max_decompressed_bytes: 64 << 20 };
    let inflated;
    let tar: &[u8] = match archive::packing(data) {
        Some(Packing::TarGzip) => match archive::inflate(&data, limits.max_decompressed_bytes) {
            Ok(bytes) => {
                inflated = bytes;
                &inflated
            }
            Err(_) => return,
        },
        _ => data,
    };
    let Ok(listing) = archive::list(&tar) else { return };
    for member in &listing.members {
        let part = Part::new(tar, member.offset, member.len);
        assert_eq!(part.len(), member.len, "a member lies inside its archive");
        let _ = load_profile_source(&member.listed, &part, &limits, &mut |_| {}).map(|p| p.event_count());
        // Streamed (no slice): the reads of a member stay inside it.
        let owned = Part::new(tar.to_vec(), member.offset, member.len);
        let _ = load_with_chunk(&member.listed, &Streamed(owned), &limits, 61, &mut |_| {});
    }
}

/// A source that does not offer its bytes as a slice, as a file on disk.
struct Streamed(Part<Vec<u8>>);

impl ByteSource for Streamed {
    fn len(&self) -> u64 {
        self.0.len()
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), proflens_format::Error> {
        self.0.read_at(offset, buf)
    }
}
