//! Element counts the cost rules share.

use crate::hlo::text::element_count;
use proflens_model::hlo::{Shape, TUPLE_TYPE};

/// Elements of a shape, tuples summed over their leaves
/// (ShapeUtil::ElementsInRecursive).
pub fn elements_recursive(shape: &Shape) -> u64 {
    if shape.element_type == TUPLE_TYPE {
        return shape.tuple_shapes.iter().map(elements_recursive).fold(0, u64::saturating_add);
    }
    element_count(shape)
}

/// The array an op's count refers to: the shape, or its first element when
/// the op returns a tuple (variadic reduce, cuDNN calls with scratch space).
pub fn first_array(shape: &Shape) -> &Shape {
    if shape.element_type == TUPLE_TYPE {
        shape.tuple_shapes.first().unwrap_or(shape)
    } else {
        shape
    }
}
