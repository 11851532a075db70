//! The op profile's tree (category → op, idle left out) on both sides:
//! nodes are matched by name among their siblings, and each gets the
//! change of its time. Category grouping, not program grouping, because
//! program names carry ids that differ between two runs of one program.

use super::model::{DiffNode, Status};
use crate::context::{Output, ToolError};
use crate::tools::op_profile::{Node, OpProfileView};

pub fn compare(base: &Output, candidate: &Output) -> Result<DiffNode, ToolError> {
    let tree = |o: &Output| {
        o.model_as::<OpProfileView>()
            .map(|v| v.profile.by_category_exclude_idle.clone())
            .ok_or_else(|| ToolError::Failed(format!("the {} view is not an op profile", o.view)))
    };
    let (b, c) = (tree(base)?, tree(candidate)?);
    Ok(node(Some(&b), Some(&c)))
}

/// One node from its baseline and candidate (either may be missing).
fn node(base: Option<&Node>, candidate: Option<&Node>) -> DiffNode {
    let figures = |n: Option<&Node>| n.map_or((0, 0.0), |n| (n.metrics.occurrences, n.metrics.raw_time));
    let ((base_count, base_ps), (candidate_count, candidate_ps)) = (figures(base), figures(candidate));
    let no_children: &[Node] = &[];
    let (bk, ck) = (base.map_or(no_children, |n| &n.children), candidate.map_or(no_children, |n| &n.children));
    // Siblings can share a name (one op in several programs): the k-th of
    // a name on one side matches the k-th of that name on the other.
    let keyed = |nodes: &'_ [Node]| -> Vec<(String, usize)> {
        nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.name.clone(), nodes[..i].iter().filter(|m| m.name == n.name).count()))
            .collect()
    };
    let (bkeys, ckeys) = (keyed(bk), keyed(ck));
    let mut children: Vec<DiffNode> = bk
        .iter()
        .zip(&bkeys)
        .map(|(b, key)| node(Some(b), ckeys.iter().position(|k| k == key).map(|i| &ck[i])))
        .chain(ck.iter().zip(&ckeys).filter(|(_, key)| !bkeys.contains(key)).map(|(c, _)| node(None, Some(c))))
        .collect();
    children.sort_by(|a, b| b.delta_ps.abs().total_cmp(&a.delta_ps.abs()).then_with(|| a.name.cmp(&b.name)));
    let status = match (base, candidate) {
        (None, _) => Status::New,
        (_, None) => Status::Gone,
        _ if base_ps == candidate_ps
            && base_count == candidate_count
            && children.iter().all(|c| c.status == Status::Same) =>
        {
            Status::Same
        }
        _ => Status::Changed,
    };
    DiffNode {
        name: base.or(candidate).map(|n| n.name.clone()).unwrap_or_default(),
        status,
        base_count,
        candidate_count,
        base_ps,
        candidate_ps,
        delta_ps: candidate_ps - base_ps,
        children,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaf(name: &str, ps: f64, n: u64) -> Node {
        let mut node = Node { name: name.into(), ..Node::default() };
        node.metrics.raw_time = ps;
        node.metrics.occurrences = n;
        node
    }

    fn parent(name: &str, children: Vec<Node>) -> Node {
        let mut node = leaf(name, children.iter().map(|c| c.metrics.raw_time).sum(), 0);
        node.children = children;
        node
    }

    #[test]
    fn matches_by_name_and_marks_new_and_gone() {
        let base = parent("root", vec![parent("dot", vec![leaf("dot.1", 5.0, 1), leaf("dot.2", 3.0, 1)])]);
        let candidate =
            parent("root", vec![parent("dot", vec![leaf("dot.1", 9.0, 1)]), parent("sin", vec![leaf("sine", 2.0, 1)])]);
        let d = node(Some(&base), Some(&candidate));
        assert_eq!(d.delta_ps, 3.0);
        // Largest change first: sin (+2) before dot (+1).
        assert_eq!(
            d.children.iter().map(|c| (c.name.as_str(), c.delta_ps)).collect::<Vec<_>>(),
            vec![("sin", 2.0), ("dot", 1.0)]
        );
        let dot = &d.children[1];
        assert_eq!(
            dot.children.iter().map(|c| (c.name.as_str(), c.status)).collect::<Vec<_>>(),
            vec![("dot.1", Status::Changed), ("dot.2", Status::Gone)]
        );
        assert_eq!(d.children[0].status, Status::New);
        let same = node(Some(&base), Some(&base));
        assert_eq!(same.status, Status::Same);
        // Two siblings of one name: matched in order, not both to the first.
        let twins = parent("root", vec![leaf("op", 1.0, 1), leaf("op", 7.0, 1)]);
        let d = node(Some(&twins), Some(&twins));
        assert!(d.status == Status::Same && d.children.len() == 2, "{d:?}");
    }
}
