//! The viewer's side of the conversation with the worker: the kinds of
//! query and which are in flight, so that only the latest of each goes.

use crate::protocol::TraceQuery;

/// The kinds of query; one of each may be in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Window = 0,
    Event = 1,
    Search = 2,
    Summary = 3,
    Export = 4,
    Links = 5,
    Flame = 6,
}

const KINDS: [Kind; 7] =
    [Kind::Window, Kind::Event, Kind::Search, Kind::Summary, Kind::Export, Kind::Links, Kind::Flame];

/// An answer's kind, whether it is stale, and the query to post now.
pub type Answered = (Kind, bool, Option<(u32, TraceQuery)>);

/// Latest request wins: while a query of a kind is in flight, a newer one
/// waits (replacing any older waiting one) and goes when the answer comes.
#[derive(Debug, Default)]
pub struct Client {
    next_seq: u32,
    in_flight: [Option<u32>; KINDS.len()],
    waiting: [Option<TraceQuery>; KINDS.len()],
}

impl Client {
    /// The query to post now with its number, or `None` if it must wait.
    pub fn send(&mut self, kind: Kind, query: TraceQuery) -> Option<(u32, TraceQuery)> {
        let k = kind as usize;
        if self.in_flight[k].is_some() {
            self.waiting[k] = Some(query);
            return None;
        }
        self.next_seq = self.next_seq.wrapping_add(1);
        self.in_flight[k] = Some(self.next_seq);
        Some((self.next_seq, query))
    }

    /// An answer came: its kind, whether a newer query was waiting (the
    /// answer is then stale), and that query to post now.
    pub fn answered(&mut self, seq: u32) -> Option<Answered> {
        let kind = KINDS.into_iter().find(|&k| self.in_flight[k as usize] == Some(seq))?;
        self.in_flight[kind as usize] = None;
        let next = self.waiting[kind as usize].take();
        let stale = next.is_some();
        Some((kind, stale, next.and_then(|q| self.send(kind, q))))
    }

    pub fn busy(&self, kind: Kind) -> bool {
        self.in_flight[kind as usize].is_some()
    }

    /// The worker was replaced: nothing in flight will be answered.
    pub fn reset(&mut self) {
        *self = Client { next_seq: self.next_seq, ..Client::default() };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latest_query_wins() {
        let mut c = Client::default();
        let q = |n: u32| TraceQuery::Event { track: n, event: 0 };
        let (first, _) = c.send(Kind::Event, q(1)).expect("sent");
        assert!(c.send(Kind::Event, q(2)).is_none());
        assert!(c.send(Kind::Event, q(3)).is_none(), "waits, replacing 2");
        let (search, _) = c
            .send(Kind::Search, TraceQuery::Search { pattern: "x".into(), regex: false, limit: 1 })
            .expect("other kinds go at once");
        let (kind, stale, next) = c.answered(first).expect("known");
        assert_eq!(kind, Kind::Event);
        assert!(stale);
        let (third, query) = next.expect("the waiting one goes");
        assert_eq!(query, q(3));
        assert_eq!(c.answered(third).map(|(k, s, n)| (k, s, n.is_none())), Some((Kind::Event, false, true)));
        assert!(c.answered(third).is_none(), "answered once");
        c.reset();
        assert!(c.answered(search).is_none());
        assert!(c.send(Kind::Search, TraceQuery::Export { range: None }).is_some());
    }
}
