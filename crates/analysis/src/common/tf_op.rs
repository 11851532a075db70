//! Parsing framework op names (`name:Type`, `Iterator::…`, JAX ops, memcpy).

/// What kind of op a full name denotes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpCategory {
    Unknown,
    TensorFlow,
    Jax,
    TfData,
    MemcpyHToD,
    MemcpyDToH,
    MemcpyDToD,
    MemcpyHToH,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TfOp<'a> {
    pub category: OpCategory,
    pub name: &'a str,
    /// Op type; `Dataset` for tf.data iterators, empty when unknown.
    pub op_type: std::borrow::Cow<'a, str>,
}

pub const DATASET_OP: &str = "Dataset";

const MEMCPY_PREFIXES: [(&str, OpCategory); 4] = [
    ("MemcpyHToD", OpCategory::MemcpyHToD),
    ("MemcpyDToH", OpCategory::MemcpyDToH),
    ("MemcpyDToD", OpCategory::MemcpyDToD),
    ("MemcpyHToH", OpCategory::MemcpyHToH),
];

pub fn parse(full_name: &str) -> TfOp<'_> {
    let unknown = TfOp { category: OpCategory::Unknown, name: full_name, op_type: "".into() };
    let Some((left, right)) = full_name.split_once(':') else {
        for (prefix, category) in MEMCPY_PREFIXES {
            let head = full_name.as_bytes().get(..prefix.len());
            if head.is_some_and(|h| h.eq_ignore_ascii_case(prefix.as_bytes())) {
                return TfOp { category, name: full_name, op_type: prefix.into() };
            }
        }
        return unknown;
    };
    if left == "Iterator" {
        return TfOp { category: OpCategory::TfData, name: full_name, op_type: DATASET_OP.into() };
    }
    if is_tf_op_name(left) && is_tf_op_type(right) {
        return TfOp { category: OpCategory::TensorFlow, name: left, op_type: right.into() };
    }
    let op_type = if right.is_empty() { derive_op_type(left) } else { right };
    if is_jax_op_type(op_type) {
        let stripped = op_type.split_once('[').map_or(op_type, |(t, _)| t);
        return TfOp { category: OpCategory::Jax, name: left, op_type: stripped.into() };
    }
    if right.is_empty() {
        return TfOp { category: OpCategory::TensorFlow, name: left, op_type: op_type.into() };
    }
    unknown
}

/// Category alone, for the many callers that need nothing else.
pub fn category(full_name: &str) -> OpCategory {
    parse(full_name).category
}

/// `[A-Za-z0-9.][A-Za-z0-9_./>-]*`
pub(crate) fn is_tf_op_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric() || c == '.')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '>' | '-'))
}

/// `[A-Z_][a-zA-Z0-9_]*`
pub(crate) fn is_tf_op_type(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_uppercase() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `[a-z_][a-z0-9_]*(\[.*\])?`
fn is_jax_op_type(s: &str) -> bool {
    let (head, rest) = match s.find('[') {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, ""),
    };
    let mut chars = head.chars();
    let head_ok = chars.next().is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    head_ok && (rest.is_empty() || rest.ends_with(']'))
}

/// Op type from a name without one: the last `/` component minus a `_N` suffix.
fn derive_op_type(name: &str) -> &str {
    let last = name.rsplit('/').next().unwrap_or(name);
    match last.rsplit_once('_') {
        Some((head, digits)) if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => head,
        _ => last,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_kinds_of_names() {
        let op = parse("sequential_1/conv1_1/Relu:Relu");
        assert_eq!(
            (op.category, op.name, op.op_type.as_ref()),
            (OpCategory::TensorFlow, "sequential_1/conv1_1/Relu", "Relu")
        );
        assert_eq!(parse("Iterator::Root::Prefetch").category, OpCategory::TfData);
        assert_eq!(parse("Iterator::Root::Prefetch").op_type, "Dataset");
        let jax = parse("jit(train_step)/dot_general:dot_general[precision=None]");
        assert_eq!((jax.category, jax.op_type.as_ref()), (OpCategory::Jax, "dot_general"));
        assert_eq!(parse("MEMCPYHToD").category, OpCategory::MemcpyHToD);
        assert_eq!(parse("ExecutorState::Process").category, OpCategory::Unknown);
        assert_eq!(parse("train").category, OpCategory::Unknown);
        // A multi-byte character where the memcpy prefix would end must not panic.
        assert_eq!(parse("MemcpyHTé_x").category, OpCategory::Unknown);
        let derived = parse("dense/MatMul_1:");
        assert_eq!((derived.category, derived.op_type.as_ref()), (OpCategory::TensorFlow, "MatMul"));
    }
}
