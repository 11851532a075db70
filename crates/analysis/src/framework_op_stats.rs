//! Framework (TensorFlow) op stats: the tool view and its XProf JSON.
