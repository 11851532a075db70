//! Compiles the .proto files of `proto/` with protox (pure Rust, no protoc).

fn main() {
    let proto_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../proto");
    let file = proto_dir.join("xplane.proto");
    println!("cargo:rerun-if-changed={}", file.display());
    let descriptors = protox::compile([&file], [&proto_dir]).expect("proto/xplane.proto compiles");
    prost_build::Config::new().compile_fds(descriptors).expect("prost generates Rust for proto/xplane.proto");
}
