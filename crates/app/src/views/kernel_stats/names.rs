//! Kernel names for display: C++ signatures hundreds of characters long
//! made short enough for a table cell (the full name stays the hover text).

/// Template arguments nested deeper than this are always shown as `<…>`.
const MAX_TEMPLATE_DEPTH: usize = 6;
/// Longest shortened name, in characters.
const SHORT_NAME_CHARS: usize = 120;

/// A kernel's name for display: without its return type, parameter list
/// and namespaces, with template arguments nested too deep to fit in 120
/// characters as `<…>` (and cut there if even that is too long). A mangled
/// name (`_ZN…`) reads as its unqualified name.
pub fn short_kernel_name(name: &str) -> String {
    let name = name.trim();
    if let Some(demangled) = demangle_qualified(name) {
        return demangled;
    }
    // A return type is a word before the qualified name, ahead of any `<` or `(`.
    let head_end = name.find(['<', '(']).unwrap_or(name.len());
    let start = name[..head_end].rfind(' ').map_or(0, |i| i + 1);
    let body = &name[start..];
    let mut shortest = String::new();
    for depth in (1..=MAX_TEMPLATE_DEPTH).rev() {
        shortest = without_namespaces(&templates_to_depth(body, depth));
        if shortest.chars().count() <= SHORT_NAME_CHARS {
            break;
        }
    }
    let out = shortest.trim();
    let out = if out.is_empty() { name } else { out };
    if out.chars().count() > SHORT_NAME_CHARS {
        let cut: String = out.chars().take(SHORT_NAME_CHARS - 1).collect();
        format!("{}…", cut.trim_end())
    } else {
        out.to_string()
    }
}

/// `body` up to its parameter list, with template arguments nested deeper
/// than `max` levels as `<…>`.
fn templates_to_depth(body: &str, max: usize) -> String {
    let mut out = String::with_capacity(body.len());
    let mut depth = 0usize;
    let mut rest = body;
    while let Some(c) = rest.chars().next() {
        match c {
            '(' if depth == 0 => {
                // `(anonymous namespace)::` is part of the name; anything else is the parameter list.
                const ANON: &str = "(anonymous namespace)";
                if rest.starts_with(ANON) {
                    out.push_str(ANON);
                    rest = &rest[ANON.len()..];
                    continue;
                }
                break;
            }
            '<' => {
                depth += 1;
                if depth <= max {
                    out.push('<');
                } else if depth == max + 1 {
                    out.push_str("<…");
                }
            }
            '>' => {
                if depth <= max + 1 {
                    out.push('>');
                }
                depth = depth.saturating_sub(1);
            }
            c if depth <= max => out.push(c),
            _ => {}
        }
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// Every qualified name with its namespaces left out: `Eigen::internal::EigenMetaKernel<Eigen::half>`
/// → `EigenMetaKernel<half>`.
fn without_namespaces(text: &str) -> String {
    const ANON: &str = "(anonymous namespace)";
    let mut out = String::with_capacity(text.len());
    // Where the identifier being written started in `out`.
    let mut ident_start = 0;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if rest.starts_with("::") {
            out.truncate(ident_start);
            if out.ends_with(ANON) {
                out.truncate(out.len() - ANON.len());
            }
            rest = &rest[2..];
            continue;
        }
        if !(c.is_alphanumeric() || c == '_') {
            ident_start = out.len() + c.len_utf8();
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// The unqualified name of an Itanium-mangled function (`_ZN4cuda6kernelIfEEvT_`
/// → `kernel<…>`), or `None` when `name` is not one this reads.
fn demangle_qualified(name: &str) -> Option<String> {
    let rest = name.strip_prefix("_Z")?;
    let (nested, mut rest) = match rest.strip_prefix('N') {
        // Const/volatile member functions: `_ZNK…`.
        Some(r) => (true, r.trim_start_matches(['K', 'V'])),
        None => (false, rest),
    };
    let mut parts: Vec<&str> = Vec::new();
    let mut templated = false;
    loop {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            break;
        }
        let len: usize = rest[..digits].parse().ok()?;
        let ident = rest.get(digits..digits + len)?;
        parts.push(ident);
        rest = &rest[digits + len..];
        if rest.starts_with('I') {
            templated = true;
            break;
        }
        if !nested {
            break;
        }
    }
    if parts.is_empty() {
        return None;
    }
    let mut out = parts.last()?.to_string();
    if templated {
        out.push_str("<…>");
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_shortened() {
        let eigen = "void Eigen::internal::EigenMetaKernel<Eigen::TensorEvaluator<Eigen::TensorAssignOp<Eigen::TensorMap<Eigen::Tensor<float, 1, 1, int>, 16>, Eigen::TensorMap<float> const> const, Eigen::GpuDevice>, int>(Eigen::TensorEvaluator<int>, int)";
        // As deep as fits in 120 characters, without namespaces.
        assert_eq!(
            short_kernel_name(eigen),
            "EigenMetaKernel<TensorEvaluator<TensorAssignOp<TensorMap<Tensor<…>, 16>, TensorMap<float> const> const, GpuDevice>, int>"
        );
        let nested = format!("void ns::f<{}int{}>(int)", "ns::Wrapper<".repeat(20), ">".repeat(20));
        assert_eq!(short_kernel_name(&nested), format!("f{}<…{}", "<Wrapper".repeat(6), ">".repeat(7)));
        assert_eq!(short_kernel_name("input_transpose_fusion"), "input_transpose_fusion");
        assert_eq!(short_kernel_name("void (anonymous namespace)::foo<int>(int*)"), "foo<int>");
        assert_eq!(short_kernel_name("_ZN10tensorflow7functor6kernelIfEEvPT_"), "kernel<…>");
        assert_eq!(short_kernel_name("_Z6addOnePf"), "addOne");
        assert_eq!(short_kernel_name("_Z"), "_Z");
        assert_eq!(short_kernel_name("_ZN99x"), "_ZN99x");
        let long = format!("k{}", "a".repeat(300));
        let short = short_kernel_name(&long);
        assert_eq!(short.chars().count(), SHORT_NAME_CHARS);
        assert!(short.ends_with('…'));
        // Unbalanced brackets never panic.
        assert_eq!(short_kernel_name("a>>b<<<c"), "a>>b<<<c");
        assert_eq!(short_kernel_name("()"), "()");
        assert_eq!(short_kernel_name("::"), "::");
    }
}
