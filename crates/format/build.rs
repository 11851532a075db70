//! Compiles the .proto files of `proto/` with protox (pure Rust, no protoc).

fn main() {
    let proto_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../proto");
    let files = [
        proto_dir.join("xplane.proto"),
        proto_dir.join("hlo.proto"),
        proto_dir.join("legacy_tools.proto"),
        proto_dir.join("trace_events.proto"),
    ];
    for file in &files {
        println!("cargo:rerun-if-changed={}", file.display());
    }
    let descriptors = protox::compile(&files, [&proto_dir]).expect("the .proto files in proto/ compile");
    prost_build::Config::new().compile_fds(descriptors).expect("prost generates Rust for proto/*.proto");
}
