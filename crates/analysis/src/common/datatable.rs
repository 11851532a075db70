//! Google Charts DataTable JSON, the shape XProf's tools return
//! (`{"cols":[{"id","label","type"}],"rows":[{"c":[{"v":…}]}],"p":{…}}`).

use serde_json::{json, Map, Value};

#[derive(Debug, Default)]
pub struct DataTable {
    cols: Vec<Value>,
    rows: Vec<Value>,
    properties: Option<Map<String, Value>>,
}

impl DataTable {
    pub fn new() -> DataTable {
        DataTable::default()
    }

    /// Adds a column; `role` is the chart role (`tooltip`, `interval`) if any.
    pub fn column(mut self, id: &str, kind: &str, label: &str) -> DataTable {
        self.cols.push(json!({"id": id, "label": label, "type": kind}));
        self
    }

    pub fn role_column(mut self, id: &str, kind: &str, label: &str, role: &str) -> DataTable {
        self.cols.push(json!({"id": id, "label": label, "type": kind, "p": {"role": role}}));
        self
    }

    pub fn row(&mut self, cells: Vec<Value>) {
        self.rows.push(json!({"c": cells.into_iter().map(|v| json!({"v": v})).collect::<Vec<_>>()}));
    }

    pub fn property(&mut self, key: &str, value: impl Into<String>) {
        self.properties.get_or_insert_with(Map::new).insert(key.to_string(), Value::String(value.into()));
    }

    pub fn into_json(self) -> Value {
        let mut table = Map::new();
        table.insert("cols".into(), Value::Array(self.cols));
        table.insert("rows".into(), Value::Array(self.rows));
        if let Some(p) = self.properties {
            table.insert("p".into(), Value::Object(p));
        }
        Value::Object(table)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_the_charts_shape() {
        let mut t = DataTable::new().column("a", "string", "A").role_column("t", "string", "tooltip", "tooltip");
        t.row(vec![json!("x"), json!("tip")]);
        t.property("k", "v");
        let v = t.into_json();
        assert_eq!(v["cols"][1]["p"]["role"], "tooltip");
        assert_eq!(v["rows"][0]["c"][0]["v"], "x");
        assert_eq!(v["p"]["k"], "v");
        assert!(DataTable::new().into_json().get("p").is_none());
    }
}
