//! XProf's tool JSON: Google Charts DataTables (overview, input pipeline,
//! framework op stats, kernel stats) and
//! proto3 JSON objects (op profile, pod viewer, memory profile, memory viewer).

use super::{LegacyError, LegacyFile, LegacyTool};
use serde_json::{Map, Value};

/// One column of a DataTable.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GvizColumn {
    pub id: String,
    pub label: String,
    /// `string`, `number`, `boolean`.
    pub kind: String,
}

/// A DataTable as XProf writes it: `{"cols":[…],"rows":[{"c":[{"v":…}]}],"p":{…}}`.
/// A cell that is `null` or missing is `Value::Null`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GvizTable {
    pub columns: Vec<GvizColumn>,
    pub rows: Vec<Vec<Value>>,
    pub properties: Map<String, Value>,
}

impl GvizTable {
    pub fn column(&self, id: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.id == id)
    }

    /// The cell of column `id` in `row` (`None` without that column).
    pub fn cell<'a>(&self, row: &'a [Value], id: &str) -> Option<&'a Value> {
        self.column(id).and_then(|i| row.get(i))
    }

    /// A number cell; XProf writes some counts as strings, so those parse too.
    pub fn number(&self, row: &[Value], id: &str) -> Option<f64> {
        match self.cell(row, id)? {
            Value::Number(n) => n.as_f64(),
            Value::String(s) => s.trim().parse().ok(),
            _ => None,
        }
    }

    pub fn text(&self, row: &[Value], id: &str) -> Option<String> {
        match self.cell(row, id)? {
            Value::String(s) => Some(s.clone()),
            Value::Null => None,
            other => Some(other.to_string()),
        }
    }

    pub fn boolean(&self, row: &[Value], id: &str) -> Option<bool> {
        self.cell(row, id)?.as_bool()
    }

    /// A property as text (XProf's properties are strings).
    pub fn property(&self, key: &str) -> Option<&str> {
        self.properties.get(key).and_then(Value::as_str)
    }

    /// A numeric property: `"96.3"`, `"99.7%"`.
    pub fn property_number(&self, key: &str) -> Option<f64> {
        self.property(key)?.trim().trim_end_matches('%').trim().parse().ok()
    }

    fn has_column(&self, id: &str) -> bool {
        self.column(id).is_some()
    }

    fn parse(value: &Value) -> Option<GvizTable> {
        let object = value.as_object()?;
        let columns = match object.get("cols") {
            Some(Value::Array(cols)) => cols
                .iter()
                .map(|c| {
                    let field = |k: &str| c.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
                    GvizColumn { id: field("id"), label: field("label"), kind: field("type") }
                })
                .collect(),
            None => Vec::new(),
            Some(_) => return None,
        };
        let rows = match object.get("rows") {
            Some(Value::Array(rows)) => rows
                .iter()
                .map(|r| match r.get("c") {
                    Some(Value::Array(cells)) => {
                        cells.iter().map(|c| c.get("v").cloned().unwrap_or(Value::Null)).collect()
                    }
                    _ => Vec::new(),
                })
                .collect(),
            None => Vec::new(),
            Some(_) => return None,
        };
        let properties = match object.get("p") {
            Some(Value::Object(p)) => p.clone(),
            _ => Map::new(),
        };
        Some(GvizTable { columns, rows, properties })
    }
}

/// An array of DataTables (empty objects allowed, as XProf writes `{}`), or
/// one DataTable object (kernel stats).
fn tables(value: &Value) -> Option<Vec<GvizTable>> {
    if value.get("cols").is_some() {
        return GvizTable::parse(value).map(|t| vec![t]);
    }
    let items = value.as_array()?;
    if !items.iter().any(|t| t.get("cols").is_some()) {
        return None;
    }
    items.iter().map(GvizTable::parse).collect()
}

fn has_any_key(object: &Map<String, Value>, keys: &[&str]) -> bool {
    keys.iter().any(|k| object.contains_key(*k))
}

/// Keys one of which every tool JSON [`sniff_json`] knows has near its start.
const MARKERS: [&str; 12] = [
    "\"cols\"",
    "\"memoryProfilePerAllocator\"",
    "\"byProgram",
    "\"byCategory",
    "\"podStatsSequence\"",
    "\"heapSizes\"",
    "\"logicalBufferSpans\"",
    "\"maxHeap\"",
    "\"bufferAllocations\"",
    "\"memory_profile_per_allocator\"",
    "\"by_program\"",
    "\"pod_stats_sequence\"",
];

/// How far into a JSON text the markers are looked for.
pub(super) const MARKER_WINDOW: usize = 1 << 20;

/// A cheap test before parsing a whole JSON text (a large trace, say): does
/// its first MiB mention a key of an XProf tool JSON?
pub(super) fn has_marker(raw: &[u8]) -> bool {
    let head = &raw[..raw.len().min(MARKER_WINDOW)];
    MARKERS.iter().any(|m| head.windows(m.len()).any(|w| w == m.as_bytes()))
}

/// The tool whose XProf JSON `value` is, by its shape.
pub fn sniff_json(value: &Value) -> Option<LegacyTool> {
    if let Some(object) = value.as_object().filter(|o| !o.contains_key("cols")) {
        return if has_any_key(object, &["memoryProfilePerAllocator", "memory_profile_per_allocator"]) {
            Some(LegacyTool::MemoryProfile)
        } else if has_any_key(
            object,
            &["byProgram", "byCategory", "byProgramExcludeIdle", "byCategoryExcludeIdle", "by_program", "by_category"],
        ) {
            Some(LegacyTool::OpProfile)
        } else if has_any_key(object, &["podStatsSequence", "pod_stats_sequence"]) {
            Some(LegacyTool::PodViewer)
        } else if has_any_key(object, &["heapSizes", "logicalBufferSpans", "maxHeap", "bufferAllocations"]) {
            Some(LegacyTool::MemoryViewer)
        } else {
            None
        };
    }
    let tables = tables(value)?;
    let any = |f: &dyn Fn(&GvizTable) -> bool| tables.iter().any(f);
    // `self_time_fraction`, `tpu_type`, `matrix_unit_utilization_percent`: the first TPU tools' overview.
    let overview = |t: &GvizTable| {
        t.has_column("selfTimePercent")
            || t.has_column("self_time_fraction")
            || ["host_tf_op_percent", "tpu_type", "matrix_unit_utilization_percent"]
                .iter()
                .any(|k| t.properties.contains_key(*k))
    };
    if any(&overview) {
        Some(LegacyTool::OverviewPage)
    } else if any(&|t| {
        // `inputTimeMs`: the 2020 Cloud TPU tools' step table (tensorflow/profiler's
        // frontend, `COLUMN_IDS_FOR_TPU`), which a file may hold without host ops.
        t.has_column("opName") || t.has_column("inputTimeMs") || t.properties.contains_key("enqueue_us")
    }) {
        Some(LegacyTool::InputPipeline)
    } else if any(&|t| t.has_column("host_or_device")) {
        Some(LegacyTool::TensorflowStats)
    } else if any(&|t| t.has_column("kernel_name")) {
        Some(LegacyTool::KernelStats)
    } else {
        None
    }
}

/// `value` (already sniffed as `tool`) as a [`LegacyFile`].
pub(super) fn into_file(tool: LegacyTool, value: Value) -> Result<LegacyFile, LegacyError> {
    let tables = |value: &Value| {
        tables(value)
            .ok_or_else(|| LegacyError::Shape { tool, detail: "the JSON is not an array of DataTables".into() })
    };
    Ok(match tool {
        LegacyTool::OverviewPage => LegacyFile::OverviewTables(tables(&value)?),
        LegacyTool::InputPipeline => LegacyFile::InputPipelineTables(tables(&value)?),
        LegacyTool::OpProfile => LegacyFile::OpProfile(value),
        LegacyTool::PodViewer => LegacyFile::PodViewer(value),
        LegacyTool::MemoryViewer => LegacyFile::MemoryViewer(value),
        LegacyTool::MemoryProfile => LegacyFile::MemoryProfile(value),
        LegacyTool::TensorflowStats => LegacyFile::TensorflowStatsTables(tables(&value)?),
        LegacyTool::KernelStats => LegacyFile::KernelStatsTables(tables(&value)?),
    })
}
