//! A whole HLO module as XLA's HloModule::ToString writes it with the options
//! XProf's graph viewer uses for `type=long_txt` (default print options,
//! large constants printed, metadata off): the header (schedule, aliasing,
//! entry layout, frontend attributes), then every computation callees first
//! (XLA's computation post order), each instruction in its scheduled order or
//! else in XLA's instruction post order, with operands by name and every
//! attribute.

mod attributes;
pub mod number;
mod order;
mod sharding;

use crate::hlo::text::shape_text;
use proflens_model::hlo::{HloComputation, HloInstruction, HloModule, Shape, TOKEN_TYPE, TUPLE_TYPE};
use rustc_hash::FxHashMap;

/// Lookups the printer needs: instructions by id within each computation,
/// computation names by id. (Maps of one type, index values: each distinct
/// map type costs the wasm its own copy of the hash table code.)
pub(crate) struct Names<'a> {
    module: &'a HloModule,
    /// Computation id → its index.
    computations: FxHashMap<i64, usize>,
    /// Per computation: instruction id → its index.
    instructions: Vec<FxHashMap<i64, usize>>,
    /// Instruction id → its computation's index (ids are unique within a module).
    owner: FxHashMap<i64, usize>,
}

impl<'a> Names<'a> {
    pub(crate) fn new(module: &'a HloModule) -> Names<'a> {
        let mut owner = FxHashMap::default();
        let mut instructions = Vec::with_capacity(module.computations.len());
        let mut computations = FxHashMap::default();
        for (ci, c) in module.computations.iter().enumerate() {
            computations.insert(c.id, ci);
            let mut ids = FxHashMap::default();
            for (ii, i) in c.instructions.iter().enumerate() {
                ids.insert(i.id, ii);
                owner.insert(i.id, ci);
            }
            instructions.push(ids);
        }
        Names { module, computations, instructions, owner }
    }

    pub(crate) fn computation(&self, id: i64) -> &'a str {
        self.computations.get(&id).map_or("", |&ci| self.module.computations[ci].name.as_str())
    }

    /// The instruction `id` of the computation `user` belongs to.
    pub(crate) fn instruction(&self, user: &HloInstruction, id: i64) -> Option<&'a HloInstruction> {
        let ci = *self.owner.get(&user.id)?;
        let ii = *self.instructions[ci].get(&id)?;
        Some(&self.module.computations[ci].instructions[ii])
    }

    pub(crate) fn operand(&self, instr: &HloInstruction, n: usize) -> Option<&'a HloInstruction> {
        self.instruction(instr, *instr.operand_ids.get(n)?)
    }
}

/// `(a, b, c, d, e, /*index=5*/f)`: XLA marks every fifth element.
fn indexed_list(items: impl Iterator<Item = String>) -> String {
    let parts: Vec<String> =
        items.enumerate().map(|(i, s)| if i > 0 && i % 5 == 0 { format!("/*index={i}*/{s}") } else { s }).collect();
    parts.join(", ")
}

/// A shape without its layout (XLA's ShapeUtil::HumanString).
pub fn human_shape(shape: &Shape) -> String {
    if shape.element_type == TUPLE_TYPE {
        return format!("({})", indexed_list(shape.tuple_shapes.iter().map(human_shape)));
    }
    if shape.element_type == TOKEN_TYPE {
        return "token".into();
    }
    let mut no_layout = shape.clone();
    no_layout.layout = None;
    shape_text(&no_layout)
}

fn index_text(index: &[i64]) -> String {
    format!("{{{}}}", index.iter().map(i64::to_string).collect::<Vec<_>>().join(","))
}

fn header(module: &HloModule) -> String {
    let a = &module.attributes;
    let mut out = format!("HloModule {}", module.name);
    if a.is_scheduled {
        out.push_str(", is_scheduled=true");
    }
    if !a.input_output_alias.is_empty() {
        let entries: Vec<String> = a
            .input_output_alias
            .iter()
            .map(|e| {
                let kind = if e.kind == 2 { "must-alias" } else { "may-alias" };
                format!(
                    "{}: ({}, {}, {kind})",
                    index_text(&e.output_index),
                    e.parameter_number,
                    index_text(&e.parameter_index)
                )
            })
            .collect();
        out.push_str(&format!(", input_output_alias={{ {} }}", entries.join(", ")));
    }
    let layout = module.entry_layout.clone().or_else(|| {
        // Without the proto's host program shape: the entry's own signature.
        let entry = module.entry_computation()?;
        let root = entry.instructions.iter().find(|i| i.id == entry.root_id)?;
        Some((parameters(entry).iter().map(|p| p.shape.clone()).collect(), root.shape.clone()))
    });
    if let Some((params, result)) = layout {
        out.push_str(&format!(
            ", entry_computation_layout={{({})->{}}}",
            indexed_list(params.iter().map(shape_text)),
            shape_text(&result)
        ));
    }
    if !a.frontend_attributes.is_empty() {
        out.push_str(&format!(
            ", frontend_attributes={}",
            attributes::frontend_attributes_text(&a.frontend_attributes)
        ));
    }
    out
}

fn parameters(c: &HloComputation) -> Vec<&HloInstruction> {
    let mut params: Vec<&HloInstruction> = c.instructions.iter().filter(|i| i.opcode == "parameter").collect();
    params.sort_by_key(|p| p.parameter_number);
    params
}

/// One instruction's line without indent or `ROOT`.
pub(crate) fn instruction_text(names: &Names, instr: &HloInstruction) -> String {
    let operands = match instr.opcode.as_str() {
        "parameter" => instr.parameter_number.to_string(),
        "constant" => match &instr.attributes.literal {
            Some(l) => number::literal_text(l),
            None => instr.scalar_literal.clone().unwrap_or_else(|| "{...}".into()),
        },
        _ => indexed_list(
            instr
                .operand_ids
                .iter()
                .map(|&id| format!("%{}", names.instruction(instr, id).map_or("", |o| o.name.as_str()))),
        ),
    };
    let mut line = format!("%{} = {} {}({operands})", instr.name, shape_text(&instr.shape), instr.opcode);
    for attr in attributes::attributes(names, instr) {
        line.push_str(", ");
        line.push_str(&attr);
    }
    line
}

fn computation_text(module: &HloModule, names: &Names, c: &HloComputation, entry: bool, out: &mut String) {
    let params: Vec<String> = parameters(c).iter().map(|p| format!("{}: {}", p.name, human_shape(&p.shape))).collect();
    let root = c.instructions.iter().find(|i| i.id == c.root_id).or(c.instructions.last());
    let result = root.map(|r| human_shape(&r.shape)).unwrap_or_default();
    if entry {
        out.push_str("ENTRY ");
    }
    out.push_str(&format!("%{} ({}) -> {result} {{\n", c.name, params.join(", ")));
    for instr in order::instruction_order(module, c) {
        out.push_str("  ");
        if instr.id == c.root_id {
            out.push_str("ROOT ");
        }
        out.push_str(&instruction_text(names, instr));
        out.push('\n');
    }
    out.push('}');
}

/// The module as XProf's graph viewer prints it for `type=long_txt`.
pub fn module_text(module: &HloModule) -> String {
    let names = Names::new(module);
    let mut out = header(module);
    out.push_str("\n\n");
    let entry_id = module.entry_computation().map(|c| c.id);
    for c in order::computation_order(module) {
        computation_text(module, &names, c, Some(c.id) == entry_id, &mut out);
        out.push_str("\n\n");
    }
    out
}
