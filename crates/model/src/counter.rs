//! Counter series: a value sampled over time (memory in use, GPU
//! utilisation, a Chrome trace's `"ph":"C"` events), drawn as an area chart.

/// One counter: samples in time order; each value holds until the next sample.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Counter {
    pub name: String,
    /// Unit of the values ("B", "%", "W"; empty when the file names none).
    pub unit: String,
    /// Sample times, ps from the profile origin, ascending.
    pub times_ps: Vec<i64>,
    pub values: Vec<f64>,
}

impl Counter {
    pub fn new(name: impl Into<String>, unit: impl Into<String>) -> Counter {
        Counter { name: name.into(), unit: unit.into(), ..Counter::default() }
    }

    pub fn len(&self) -> usize {
        self.times_ps.len()
    }

    pub fn is_empty(&self) -> bool {
        self.times_ps.is_empty()
    }

    pub fn push(&mut self, time_ps: i64, value: f64) {
        self.times_ps.push(time_ps);
        self.values.push(value);
    }

    /// Sorts the samples by time (stable: samples at one time keep their order).
    pub fn sort(&mut self) {
        if self.times_ps.windows(2).all(|w| w[0] <= w[1]) {
            return;
        }
        let mut order: Vec<usize> = (0..self.len()).collect();
        order.sort_by_key(|&i| self.times_ps[i]);
        self.times_ps = order.iter().map(|&i| self.times_ps[i]).collect();
        self.values = order.iter().map(|&i| self.values[i]).collect();
    }

    /// First and last sample time.
    pub fn span_ps(&self) -> Option<(i64, i64)> {
        Some((*self.times_ps.first()?, *self.times_ps.last()?))
    }

    /// Largest value (0 when empty or all negative: the chart's axis starts at 0).
    pub fn max_value(&self) -> f64 {
        self.values.iter().copied().filter(|v| v.is_finite()).fold(0.0, f64::max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sort_orders_samples_by_time() {
        let mut c = Counter::new("c", "B");
        c.push(30, 3.0);
        c.push(10, 1.0);
        c.push(20, 2.0);
        c.sort();
        assert_eq!(c.times_ps, vec![10, 20, 30]);
        assert_eq!(c.values, vec![1.0, 2.0, 3.0]);
        assert_eq!(c.span_ps(), Some((10, 30)));
        assert_eq!(c.max_value(), 3.0);
    }
}
