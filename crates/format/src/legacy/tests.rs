use super::*;
use prost::Message;

fn limits() -> Limits {
    Limits::default()
}

fn overview_bytes() -> Vec<u8> {
    let page = proto::OverviewPage {
        run_environment: Some(proto::OverviewPageRunEnvironment {
            device_type: "GPU".into(),
            device_core_count: 8,
            ..Default::default()
        }),
        ..Default::default()
    };
    page.encode_to_vec()
}

#[test]
fn names_give_host_and_tool() {
    assert_eq!(tool_file("localhost.overview_page.pb"), Some(("localhost".into(), LegacyTool::OverviewPage)));
    assert_eq!(
        tool_file("run/10.0.0.1_6009.input_pipeline.json"),
        Some(("10.0.0.1_6009".into(), LegacyTool::InputPipeline))
    );
    assert_eq!(tool_file("h.tensorflow_stats.pb"), Some(("h".into(), LegacyTool::TensorflowStats)));
    assert_eq!(tool_file("h.kernel_stats.pb"), Some(("h".into(), LegacyTool::KernelStats)));
    assert_eq!(tool_file("h.memory_profile.json.gz"), Some(("h".into(), LegacyTool::MemoryProfile)));
    assert_eq!(tool_file("h.op_profile.json"), Some(("h".into(), LegacyTool::OpProfile)));
    assert_eq!(tool_file("h.pod_viewer.json"), Some(("h".into(), LegacyTool::PodViewer)));
    assert_eq!(tool_file("h.memory_viewer.json"), Some(("h".into(), LegacyTool::MemoryViewer)));
    assert_eq!(tool_file("overview_page.pb"), Some((String::new(), LegacyTool::OverviewPage)));
    assert_eq!(tool_file("h.xplane.pb"), None);
    assert_eq!(tool_file("h.tensorflow_stats.json"), None, "never written as JSON");
    assert_eq!(tool_file("h.kernel_stats.pb.gz"), None, "gzip only on JSON files");
    assert_eq!(tool_file("xoverview_page.pb"), None);
}

#[test]
fn decodes_a_protobuf_file_by_name() {
    let file = decode("h.overview_page.pb", &overview_bytes(), &limits()).unwrap();
    assert_eq!(file.tool(), LegacyTool::OverviewPage);
    let LegacyFile::OverviewPage(page) = file else { panic!("not an overview") };
    assert_eq!(page.run_environment.unwrap().device_core_count, 8);
}

#[test]
fn truncated_protobuf_is_an_error_naming_the_tool() {
    let bytes = overview_bytes();
    for cut in 1..bytes.len() {
        match decode("h.overview_page.pb", &bytes[..cut], &limits()) {
            Err(e) => {
                assert_eq!(e.tool(), Some(LegacyTool::OverviewPage));
                assert!(e.to_string().contains("overview_page"), "{e}");
            }
            Ok(file) => panic!("cut at {cut} decoded: {file:?}"),
        }
    }
}

#[test]
fn garbage_and_empty_input_are_errors_not_panics() {
    let garbage: Vec<u8> = (0..4096u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
    for tool in LegacyTool::ALL {
        let name = format!("h.{}.{}", tool.file_stem(), tool.extensions()[0]);
        let e = decode(&name, &garbage, &limits()).unwrap_err();
        assert_eq!(e.tool(), Some(tool), "{name}: {e}");
        let e = decode(&name, &[], &limits()).unwrap_err();
        assert_eq!(e, LegacyError::Empty { tool: Some(tool) });
        assert!(e.to_string().contains(tool.file_stem()), "{e}");
    }
    assert_eq!(decode("notes.txt", b"hello", &limits()).unwrap_err(), LegacyError::NotLegacy);
    let bad_gzip = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2];
    assert!(matches!(
        decode("h.memory_profile.json.gz", &bad_gzip, &limits()),
        Err(LegacyError::Container { tool: Some(LegacyTool::MemoryProfile), .. })
    ));
}

#[test]
fn json_with_the_wrong_shape_is_refused() {
    let e = decode("h.memory_profile.json", br#"{"podStatsSequence":{}}"#, &limits()).unwrap_err();
    assert!(e.to_string().contains("pod_viewer data instead"), "{e}");
    let e = decode("h.op_profile.json", br#"{"a":1}"#, &limits()).unwrap_err();
    assert!(matches!(e, LegacyError::Shape { tool: LegacyTool::OpProfile, .. }));
    let e = decode("h.op_profile.json", br#"{"byProgram": "#, &limits()).unwrap_err();
    assert!(matches!(e, LegacyError::Json { tool: Some(LegacyTool::OpProfile), .. }), "{e}");
    // Named by the file kind it holds (format knows files; tools name themselves in the registry).
    let e = decode("h.kernel_stats.pb", br#"{"cols":[{"id":"opName"}]}"#, &limits()).unwrap_err();
    assert!(e.to_string().contains("input_pipeline data instead"), "{e}");
    let e = decode("h.kernel_stats.pb", br#"{"a":1}"#, &limits()).unwrap_err();
    assert!(matches!(e, LegacyError::Shape { tool: LegacyTool::KernelStats, .. }));
}

#[test]
fn sniffs_datatable_json_without_a_helpful_name() {
    let overview = br#"[{"cols":[{"id":"selfTimePercent","label":"Time (%)","type":"number"}],"rows":[{"c":[{"v":0.5}]}],"p":{"a":"1.5%"}},{}]"#;
    let file = decode("data_overview.json", overview, &limits()).unwrap();
    let LegacyFile::OverviewTables(tables) = file else { panic!("not overview tables") };
    assert_eq!(tables.len(), 2);
    assert_eq!(tables[0].number(&tables[0].rows[0], "selfTimePercent"), Some(0.5));
    assert_eq!(tables[0].property_number("a"), Some(1.5));
    let input = br#"[{"cols":[],"rows":[]},{"cols":[{"id":"opName"}],"rows":[]}]"#;
    assert_eq!(recognise("x.json", input, &limits()), Some(LegacyTool::InputPipeline));
    assert_eq!(recognise("x.json", br#"[1,2]"#, &limits()), None);
    assert_eq!(recognise("x.json", br#"{"traceEvents":[]}"#, &limits()), None);
    // The 2020 Cloud TPU step table alone is the input pipeline's.
    let steps =
        br#"[{"cols":[{"id":"stepnum"},{"id":"computeTimeMs"},{"id":"inputTimeMs"},{"id":"idleTimeMs"}],"rows":[]}]"#;
    assert_eq!(recognise("x.json", steps, &limits()), Some(LegacyTool::InputPipeline));
}

#[test]
fn protobuf_of_another_kind_is_refused() {
    // A kernel stats database read as tensorflow_stats: field 1 is no TfStatsDatabase field,
    // so nothing of the tool is found.
    let kernels =
        proto::KernelStatsDb { reports: vec![proto::KernelReport { name: "k".into(), ..Default::default() }] }
            .encode_to_vec();
    let e = decode("h.tensorflow_stats.pb", &kernels, &limits()).unwrap_err();
    assert!(matches!(e, LegacyError::Shape { tool: LegacyTool::TensorflowStats, .. }), "{e}");
    assert!(decode("h.kernel_stats.pb", &kernels, &limits()).is_ok());
    // Only a device type (field 6), no table.
    assert!(decode("h.tensorflow_stats.pb", &[0x32, 0x00], &limits()).is_err());
}

#[test]
fn large_json_without_tool_keys_is_not_parsed() {
    let trace = format!("{{\"traceEvents\":[{}]}}", "{\"ph\":\"X\"},".repeat(1000) + "{}");
    assert_eq!(recognise("trace.json", trace.as_bytes(), &limits()), None);
    assert!(!json::has_marker(trace.as_bytes()));
    assert!(json::has_marker(br#"{"memoryIds":[],"memoryProfilePerAllocator":{}}"#));
}

#[test]
fn json_in_utf16_reaches_the_same_error_as_utf8() {
    let text = r#"{"podStatsSequence":{}}"#;
    let utf16: Vec<u8> = [0xFEFF].into_iter().chain(text.encode_utf16()).flat_map(u16::to_le_bytes).collect();
    let a = decode("h.memory_profile.json", text.as_bytes(), &limits()).unwrap_err();
    let b = decode("h.memory_profile.json", &utf16, &limits()).unwrap_err();
    assert_eq!(a, b);
    assert!(matches!(a, LegacyError::Shape { .. }), "{a:?}");
}
