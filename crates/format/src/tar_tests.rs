//! The tar reader on archives built here block by block (synthetic), each
//! header as POSIX or GNU tar lays it out.

use super::*;

/// A header for `name` of `size` bytes with type `flag`; `gnu` writes GNU's
/// magic, else POSIX ustar's. The checksum is computed as POSIX says.
fn header(name: &str, size: u64, flag: u8, gnu: bool) -> [u8; 512] {
    let mut h = [0u8; 512];
    h[..name.len()].copy_from_slice(name.as_bytes());
    h[100..108].copy_from_slice(b"0000644\0");
    h[124..136].copy_from_slice(format!("{size:011o}\0").as_bytes());
    h[156] = flag;
    h[257..265].copy_from_slice(if gnu { b"ustar  \0" } else { b"ustar\x0000" });
    seal(&mut h);
    h
}

/// Writes the checksum of `h` into its field.
fn seal(h: &mut [u8; 512]) {
    h[148..156].copy_from_slice(b"        ");
    let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
    h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
}

/// `data` padded to whole blocks.
fn padded(data: &[u8]) -> Vec<u8> {
    let mut v = data.to_vec();
    v.resize(data.len().div_ceil(512) * 512, 0);
    v
}

/// An archive of entries (header, data), ended by two zero blocks.
fn archive(entries: &[([u8; 512], &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    for (h, data) in entries {
        out.extend_from_slice(h);
        out.extend(padded(data));
    }
    out.extend([0u8; 1024]);
    out
}

fn names(bytes: &[u8]) -> Vec<(String, EntryKind, u64, u64)> {
    entries(&bytes).unwrap().into_iter().map(|e| (e.name, e.kind, e.offset, e.len)).collect()
}

#[test]
fn files_and_directories_of_ustar_and_gnu_headers() {
    let bytes = archive(&[
        (header("run/", 0, b'5', true), b""),
        (header("run/rank0.json", 3, b'0', true), b"abc"),
        (header("run/link", 0, b'2', false), b""),
        (header("run/rank1.json", 600, 0, false), &[7u8; 600]),
    ]);
    assert_eq!(
        names(&bytes),
        vec![
            // An entry of no bytes takes no data block: the next header follows it.
            ("run/".into(), EntryKind::Directory, 512, 0),
            ("run/rank0.json".into(), EntryKind::File, 1024, 3),
            ("run/link".into(), EntryKind::Link, 2048, 0),
            ("run/rank1.json".into(), EntryKind::File, 2560, 600),
        ]
    );
    assert!(is_header(&bytes));
    assert!(!is_header(&[0u8; 512]) && !is_header(&bytes[..511]) && !is_header(&[b'x'; 512]));
}

#[test]
fn a_ustar_prefix_gnu_long_names_and_pax_paths_name_the_next_entry() {
    let mut prefixed = header("h.xplane.pb", 1, b'0', false);
    prefixed[345..352].copy_from_slice(b"a/b/run");
    seal(&mut prefixed);
    // GNU headers use the prefix's bytes for times: not a name there.
    let mut gnu = header("g.json", 1, b'0', true);
    gnu[345..349].copy_from_slice(b"1234");
    seal(&mut gnu);
    let long = format!("{}/rank7.pt.trace.json.gz", "d".repeat(150));
    let long_data = format!("{long}\0");
    let pax_path = "p/".repeat(80) + "pax.json";
    let record = |k: &str, v: &str| {
        let body = format!(" {k}={v}\n");
        let mut n = body.len() + 1;
        while (n.to_string().len() + body.len()) != n {
            n += 1;
        }
        format!("{n}{body}")
    };
    let pax_data = record("mtime", "1.5") + &record("path", &pax_path) + &record("size", "2");
    let bytes = archive(&[
        (prefixed, b"x"),
        (gnu, b"y"),
        (header("././@LongLink", long_data.len() as u64, b'L', true), long_data.as_bytes()),
        (header("truncated-name", 1, b'0', true), b"z"),
        (header("PaxHeaders/x", pax_data.len() as u64, b'x', false), pax_data.as_bytes()),
        // The pax size (2) overrides the header's (0).
        (header("short", 0, b'0', false), b"ab"),
        (header("after", 1, b'0', false), b"c"),
    ]);
    let got: Vec<(String, u64)> = names(&bytes).into_iter().map(|(n, _, _, len)| (n, len)).collect();
    assert_eq!(
        got,
        vec![("a/b/run/h.xplane.pb".into(), 1), ("g.json".into(), 1), (long, 1), (pax_path, 2), ("after".into(), 1)]
    );
}

#[test]
fn sizes_in_base_256_and_signed_checksums() {
    let mut field = [0u8; 12];
    field[0] = 0x80;
    field[4..12].copy_from_slice(&(9u64 << 30).to_be_bytes());
    assert_eq!(number(&field), Some(9 << 30));
    field[0] = 0xff;
    assert_eq!(number(&field), None);
    assert_eq!(number(b"  0000000017 "), Some(15));
    assert_eq!(number(b"0000009\0"), None);
    // An old tar's signed sum over a name with high bytes.
    let mut h = header("é.json", 0, b'0', true);
    h[148..156].copy_from_slice(b"        ");
    let signed: i64 = h.iter().map(|&b| i64::from(b as i8)).sum();
    h[148..156].copy_from_slice(format!("{signed:06o}\0 ").as_bytes());
    assert!(checksum_agrees(&h));
    // A size past 8 GiB in base-256 is read, then refused as past the end.
    let mut big = header("big.json", 0, b'0', true);
    big[124..136].copy_from_slice(&{
        let mut f = [0u8; 12];
        f[0] = 0x80;
        f[4..12].copy_from_slice(&(9u64 << 30).to_be_bytes());
        f
    });
    seal(&mut big);
    let err = entries(&archive(&[(big, b"")])).unwrap_err();
    assert!(err.to_string().contains("claims 9663676416 bytes, more than the whole archive"), "{err}");
}

#[test]
fn damage_is_an_error_that_says_where() {
    let good = archive(&[(header("a.json", 700, b'0', true), &[1u8; 700])]);
    let mut bad_sum = good.clone();
    bad_sum[3] ^= 1;
    let err = entries(&bad_sum).unwrap_err();
    assert!(matches!(&err, Error::Corrupt { detail } if detail.contains("byte 0 has a wrong checksum")), "{err}");
    // Cut inside the member's data.
    let err = entries(&&good[..900]).unwrap_err();
    assert!(matches!(&err, Error::Truncated { detail } if detail.contains("ends inside 'a.json'")), "{err}");
    // Cut inside a header.
    let two = archive(&[(header("a", 1, b'0', true), b"1"), (header("b", 1, b'0', true), b"2")]);
    assert!(matches!(entries(&&two[..1100]), Err(Error::Truncated { .. })));
    // Ending without zero blocks, or after one, is an archive's end.
    assert_eq!(entries(&&two[..2048]).unwrap().len(), 2);
    assert_eq!(entries(&&good[..1536]).unwrap().len(), 1);
    // Bad metadata.
    let pax = b"99 path=x\n";
    let bytes = archive(&[(header("p", pax.len() as u64, b'x', false), pax), (header("a", 0, b'0', false), b"")]);
    assert!(matches!(entries(&bytes), Err(Error::Corrupt { detail }) if detail.contains("pax header")));
    let mut not_octal = header("a", 0, b'0', true);
    not_octal[124..136].copy_from_slice(b"12345678901\0");
    seal(&mut not_octal);
    assert!(matches!(entries(&archive(&[(not_octal, b"")])), Err(Error::Corrupt { .. })));
    let huge_name = header("././@LongLink", 2 << 20, b'L', true);
    let bytes = [huge_name.to_vec(), vec![b'a'; 2 << 20]].concat();
    assert!(matches!(entries(&bytes), Err(Error::Corrupt { detail }) if detail.contains("names or attributes")));
}
