//! Generates the ProfilerService client (and server, used by the tests' fake
//! server) from proto/ with protox: pure Rust, no protoc binary needed.
//! XSpace types are not regenerated: they come from proflens-format so the
//! collector writes exactly the messages Proflens reads.

fn main() {
    let proto_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../proto");
    let files = ["profiler_service.proto", "profiler_options.proto", "xplane.proto"];
    for f in files {
        println!("cargo:rerun-if-changed={}", proto_dir.join(f).display());
    }
    let descriptors =
        protox::compile([proto_dir.join("profiler_service.proto")], [&proto_dir]).expect("proto/ compiles");
    tonic_prost_build::configure()
        .extern_path(".tensorflow.profiler", "::proflens_format::proto")
        .compile_fds(descriptors)
        .expect("tonic-prost-build generates the ProfilerService code");
}
