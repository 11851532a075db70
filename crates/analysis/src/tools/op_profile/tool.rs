//! The op profile as a registry tool: the device's XLA ops as a tree.

use super::{legacy, op_profile, to_xprof_json, OpProfile};
use crate::context::{Format, GroupBy, HostContext, Inputs, Output, Rendered, Request, Tool, ToolError};
use crate::passes::xla_ops::{program_names, XlaOpDb};
use crate::passes::xla_ops_combine::combine;
use proflens_format::legacy::{LegacyFile, LegacyTool};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::rc::Rc;

pub struct OpProfileTool;

/// The op profile, and how XProf's JSON of it groups the ops.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct OpProfileView {
    pub profile: OpProfile,
    #[serde(skip)]
    pub by_category: bool,
}

impl Tool for OpProfileTool {
    fn id(&self) -> &'static str {
        "op_profile"
    }

    fn label(&self) -> &'static str {
        "Op profile"
    }

    fn formats(&self) -> &'static [Format] {
        &[Format::Json, Format::Xprof]
    }

    fn inputs(&self) -> Inputs {
        Inputs { xspace: true, tool_files: &[LegacyTool::OpProfile], all_hosts: true, ..Inputs::default() }
    }

    fn run(&self, host: &HostContext, request: &Request) -> Result<Output, ToolError> {
        if let Some(file) = host.tool_file(LegacyTool::OpProfile) {
            let LegacyFile::OpProfile(value) = &*file? else {
                return Err(ToolError::Failed("not an op profile file".into()));
            };
            let profile = legacy::op_profile_from_json(value).map_err(|e| e.to_string())?;
            // A file holds one grouping: XProf's JSON keeps the one it has.
            let by_category = profile.by_program.children.is_empty() && !profile.by_category.children.is_empty();
            return Ok(Output::new("op_profile", OpProfileView { profile, by_category }));
        }
        let hlo = host.xla_programs_if_any()?;
        Ok(output(&*host.xla_ops()?, &program_names(&hlo.modules), request))
    }

    /// Every host's device ops as one database, as XProf combines the op
    /// stats of all hosts: the same instruction of the same program adds up.
    fn combine(&self, hosts: &[Rc<HostContext>], request: &Request) -> Result<Output, ToolError> {
        let mut names = FxHashMap::default();
        let mut dbs = Vec::with_capacity(hosts.len());
        for host in hosts {
            if host.tool_file_kinds().contains(&LegacyTool::OpProfile) {
                return Err(ToolError::OneHost);
            }
            names.extend(program_names(&host.xla_programs_if_any()?.modules));
            dbs.push(host.xla_ops()?);
        }
        Ok(output(&combine(&dbs.iter().map(|d| d.as_ref()).collect::<Vec<_>>()), &names, request))
    }
}

fn output(db: &XlaOpDb, names: &FxHashMap<u64, String>, request: &Request) -> Output {
    // XProf builds its trees from the device's ops, IDLE among them: with no
    // device time at all (a CPU-only profile) they stay unset.
    let profile =
        if db.ops.is_empty() && db.total_time_ps == 0 { OpProfile::without_device() } else { op_profile(db, names) };
    Output::new("op_profile", OpProfileView { profile, by_category: request.group_by == GroupBy::Category })
}

impl Rendered for OpProfileView {
    fn csv(&self) -> Result<String, ToolError> {
        Err(ToolError::NoFormat("op_profile is a tree, not a table; hlo_stats has its ops as CSV".into()))
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn xprof(&self) -> Result<Value, ToolError> {
        Ok(to_xprof_json(&self.profile, self.by_category))
    }
}
