//! Whether a run trains or infers, as XProf's overview decides `is_training`.

use crate::common::tf_op::{is_tf_op_name, is_tf_op_type};

/// Whether the ops look like training (XProf's ModelTracker): a TensorFlow
/// name scope `gradient_tape` / `gradients…`, or a JAX `transpose(` scope.
#[derive(Default)]
pub struct ModelTracker {
    gradients: bool,
}

impl ModelTracker {
    pub fn process_op(&mut self, name: &str, op_type: &str) {
        if self.gradients {
            return;
        }
        if is_tf_op_type(op_type) && is_tf_op_name(name) {
            let scopes = name.rsplit_once('/').map_or("", |(scopes, _)| scopes);
            self.gradients = !scopes.is_empty()
                && scopes.split('/').any(|scope| {
                    scope.strip_prefix("gradient").is_some_and(|rest| rest == "_tape" || rest.starts_with('s'))
                });
        } else if is_jax_op_name_and_type(name, op_type) || op_type.is_empty() {
            self.gradients = name.split('/').any(|scope| scope.starts_with("transpose("));
        }
    }

    pub fn task_type(&self) -> &'static str {
        if self.gradients {
            "Training"
        } else {
            "Inference"
        }
    }
}

/// Whether XLA programs train: the ModelTracker's rule applied to the
/// framework ops (`op_name`, `op_type` metadata) their HLO instructions came
/// from, as XProf's overview decides `is_training`.
pub fn programs_train(modules: &[proflens_model::hlo::HloModule]) -> bool {
    let mut model = ModelTracker::default();
    for (_, instr) in modules.iter().flat_map(|m| m.instructions()) {
        let meta = &instr.metadata;
        if !meta.op_name.is_empty() {
            let full = format!("{}:{}", meta.op_name, meta.op_type);
            let op = crate::common::tf_op::parse(&full);
            model.process_op(op.name, &op.op_type);
            if model.gradients {
                return true;
            }
        }
    }
    false
}

/// A JAX op type (`[a-z_][a-z0-9_]*(\[.*\])?`) that the name's last scope contains.
fn is_jax_op_name_and_type(name: &str, op_type: &str) -> bool {
    let (head, rest) = op_type.find('[').map_or((op_type, ""), |i| op_type.split_at(i));
    let mut chars = head.chars();
    let is_type = chars.next().is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && (rest.is_empty() || rest.ends_with(']'));
    !name.is_empty() && is_type && name.rsplit('/').next().is_some_and(|last| last.contains(op_type))
}
