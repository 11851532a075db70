//! XLA's sharding text (HloSharding::ToString): `{replicated}`,
//! `{maximal device=0}`, `{devices=[2,1,4]<=[8] last_tile_dim_replicate}`,
//! tuples as `{{…}, {…}}`.

use proflens_model::hlo_attributes::Sharding;

fn join<T: ToString>(values: &[T], sep: &str) -> String {
    values.iter().map(T::to_string).collect::<Vec<_>>().join(sep)
}

/// XLA's canonical iota device list: dimensions of size 1 dropped and
/// dimensions that stay adjacent under the transpose merged.
fn canonical_iota(dims: &[i64], perm: &[i32]) -> (Vec<i64>, Vec<usize>) {
    let mut dims: Vec<i64> = dims.to_vec();
    let mut perm: Vec<usize> = perm.iter().map(|&p| usize::try_from(p).unwrap_or(0)).collect();
    if perm.len() != dims.len() || perm.iter().any(|&p| p >= dims.len()) {
        perm = (0..dims.len()).collect();
    }
    // Drop size-1 dimensions.
    while let Some(d) = dims.iter().position(|&n| n == 1) {
        dims.remove(d);
        perm.retain(|&p| p != d);
        perm.iter_mut().filter(|p| **p > d).for_each(|p| *p -= 1);
    }
    // Merge p, p+1 when they follow each other in the transpose.
    while let Some(i) = (1..perm.len()).find(|&i| perm[i] == perm[i - 1] + 1) {
        let (a, b) = (perm[i - 1], perm[i]);
        dims[a] *= dims[b];
        dims.remove(b);
        perm.remove(i);
        perm.iter_mut().filter(|p| **p > b).for_each(|p| *p -= 1);
    }
    if dims.is_empty() {
        dims.push(1);
        perm.push(0);
    }
    (dims, perm)
}

fn type_name(kind: i32) -> &'static str {
    match kind {
        0 => "replicated",
        1 => "maximal",
        4 => "manual",
        5 => "unknown",
        6 => "unreduced",
        _ => "other",
    }
}

pub fn sharding_text(s: &Sharding) -> String {
    match s.kind {
        0 => "{replicated}".into(),
        1 => format!("{{maximal device={}}}", s.tile_assignment_devices.first().copied().unwrap_or(0)),
        2 => format!("{{{}}}", s.tuple_shardings.iter().map(sharding_text).collect::<Vec<_>>().join(", ")),
        4 => "{manual}".into(),
        5 => "{unknown}".into(),
        6 => "{unreduced}".into(),
        _ => {
            let mut text = format!("{{devices=[{}]", join(&s.tile_assignment_dimensions, ","));
            if s.iota_reshape_dims.is_empty() {
                text.push_str(&join(&s.tile_assignment_devices, ","));
            } else {
                let (dims, perm) = canonical_iota(&s.iota_reshape_dims, &s.iota_transpose_perm);
                text.push_str(&format!("<=[{}]", join(&dims, ",")));
                if perm.iter().enumerate().any(|(i, &p)| i != p) {
                    text.push_str(&format!("T({})", join(&perm, ",")));
                }
            }
            if s.replicate_on_last_tile_dim {
                text.push_str(" last_tile_dim_replicate");
            }
            if !s.last_tile_dims.is_empty() {
                let kinds: Vec<&str> = s.last_tile_dims.iter().map(|&k| type_name(k)).collect();
                text.push_str(&format!(" last_tile_dims={{{}}}", kinds.join(", ")));
            }
            text.push('}');
            text
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iota_devices_are_canonical() {
        assert_eq!(canonical_iota(&[2, 4], &[0, 1]), (vec![8], vec![0]));
        assert_eq!(canonical_iota(&[2, 4], &[1, 0]), (vec![2, 4], vec![1, 0]));
        assert_eq!(canonical_iota(&[1, 8], &[1, 0]), (vec![8], vec![0]));
        let s = Sharding {
            kind: 3,
            tile_assignment_dimensions: vec![2, 1, 4],
            replicate_on_last_tile_dim: true,
            iota_reshape_dims: vec![8],
            iota_transpose_perm: vec![0],
            ..Sharding::default()
        };
        assert_eq!(sharding_text(&s), "{devices=[2,1,4]<=[8] last_tile_dim_replicate}");
    }
}
