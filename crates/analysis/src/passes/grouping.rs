//! Event grouping: which step (group) every event belongs to.
//!
//! Follows the TF profiler's EventForest (xla/tsl/profiler/utils/group_events.cc):
//! events nest within their thread; `ExecutorState::Process` adopts the
//! `IteratorGetNextOp` of the same (id, iter_num); a host launch adopts the
//! device kernel with its `correlation_id`; producers (`_pt`,`_p`) adopt
//! consumers (`_ct`,`_c`); then every root (`_r`, or `TraceContext`) gives its
//! group id to everything reachable below it. Files grouped at capture time
//! (they carry `group_id`) keep their own groups.

use crate::common::id_hash::{IdHashMap, IdHashSet};
use crate::common::schema::{event_stat, plane_stat, EventType, StatKeys, StatPicker, HOST_PLANE, TPU_PLANE_PREFIX};
use proflens_model::{Plane, Profile, StatValue, StrId};
use rustc_hash::FxHashSet;
use std::collections::{BTreeMap, VecDeque};

mod contexts;
mod eager;
mod graph;
mod group_ids;
use contexts::ContextEnds;
use graph::{Adjacency, Nesting, Visited};
pub use group_ids::GroupIds;

/// Flag bits per event.
pub const FLAG_STEP_ROOT: u8 = 1;
pub const FLAG_EAGER: u8 = 2;

/// Groups of one line's events, parallel to its event columns.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LineGroups {
    /// Each event's group id, if it belongs to a step.
    pub group: GroupIds,
    /// [`FLAG_STEP_ROOT`] (a user-marked root, renamed by its step name), [`FLAG_EAGER`].
    pub flags: Vec<u8>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Grouping {
    /// `planes[p][l]`: the groups of line `l` of plane `p`.
    pub planes: Vec<Vec<LineGroups>>,
    /// Step names by group id (`train 5`, `3`…).
    pub names: BTreeMap<i32, String>,
    /// The file carried its own `group_id`s.
    pub from_file: bool,
}

impl Grouping {
    pub fn group(&self, plane: usize, line: usize, event: usize) -> Option<i32> {
        self.planes.get(plane)?.get(line)?.group.get(event)
    }

    pub fn flags(&self, plane: usize, line: usize, event: usize) -> u8 {
        self.planes.get(plane).and_then(|p| p.get(line)).and_then(|l| l.flags.get(event)).copied().unwrap_or(0)
    }
}

/// Keras 3 marks each profiled batch with this TraceMe (with `step_num`, without `_r`).
pub const KERAS_BATCH_MARKER: &str = "Profiled batch";

/// Groups events as XProf does.
pub fn group_events(profile: &Profile) -> Grouping {
    group_events_with(profile, false)
}

/// Groups events; with `keras_batches`, Keras 3's `Profiled batch` markers
/// count as step roots, which XProf does not recognise.
pub fn group_events_with(profile: &Profile, keras_batches: bool) -> Grouping {
    let keys = StatKeys::new(profile);
    if keys.group_id.is_some() {
        let mut grouping = ungrouped(profile);
        read_file_groups(profile, &keys, &mut grouping);
        return grouping;
    }
    let has_loop_op = profile
        .planes
        .iter()
        .flat_map(|p| &p.event_metadata)
        .any(|m| EventType::of_name(profile.str(m.name)) == EventType::LoopOp);
    if has_loop_op {
        return ungrouped(profile);
    }
    // The forest is built before the result is made: building it is when
    // grouping holds the most.
    let forest = Forest::build(profile, &keys, keras_batches);
    // The forest's lines get their groups at the end, from its list of every
    // node's: made now, every group would be held twice meanwhile.
    let mut grouping = ungrouped_where(profile, |plane| !in_forest(profile, plane));
    forest.group(profile, &keys, &mut grouping);
    grouping
}

/// Every event in no group.
fn ungrouped(profile: &Profile) -> Grouping {
    ungrouped_where(profile, |_| true)
}

/// Every event in no group; the lines of the planes not `with_columns` are
/// left empty, for the forest to fill.
fn ungrouped_where(profile: &Profile, with_columns: impl Fn(&Plane) -> bool) -> Grouping {
    let planes = profile.planes.iter().map(|plane| {
        let columns = with_columns(plane);
        let line = |n: usize| LineGroups { group: GroupIds::none(n), flags: vec![0; n] };
        plane.lines.iter().map(|l| if columns { line(l.events.len()) } else { LineGroups::default() }).collect()
    });
    Grouping { planes: planes.collect(), ..Grouping::default() }
}

/// Whether the forest holds the plane's events: TPU device planes are
/// grouped through their step lines, not by nesting.
fn in_forest(profile: &Profile, plane: &Plane) -> bool {
    !profile.str(plane.name).starts_with(TPU_PLANE_PREFIX)
}

/// Groups written by the profiler at capture time.
fn read_file_groups(profile: &Profile, keys: &StatKeys, grouping: &mut Grouping) {
    grouping.from_file = true;
    for (p, plane) in profile.planes.iter().enumerate() {
        for (l, line) in plane.lines.iter().enumerate() {
            for i in 0..line.events.len() {
                let Some(g) = event_stat(profile, plane, line, i, keys.group_id).and_then(|v| v.as_i64()) else {
                    continue;
                };
                let g = i32::try_from(g).unwrap_or(-1);
                grouping.planes[p][l].group.set(i, g);
                if let Some(name) =
                    event_stat(profile, plane, line, i, keys.step_name).and_then(|v| v.as_str().map(str::to_owned))
                {
                    grouping.planes[p][l].flags[i] |= FLAG_STEP_ROOT;
                    grouping.names.entry(g).or_insert(name);
                }
                if event_stat(profile, plane, line, i, keys.is_eager).and_then(|v| v.as_i64()) == Some(1) {
                    grouping.planes[p][l].flags[i] |= FLAG_EAGER;
                }
            }
        }
    }
    // Groups seen without a name are named by their id, as the profiler does.
    let ids: FxHashSet<i32> = grouping.planes.iter().flatten().flat_map(|l| l.group.iter().flatten()).collect();
    for g in ids {
        grouping.names.entry(g).or_insert_with(|| g.to_string());
    }
}

// Slots of the stats the forest reads (order of the StatPicker keys).
const CORRELATION: usize = 0;
const IS_ROOT: usize = 1;
const STEP_NUM: usize = 2;
const CONSUMER_PID: usize = 3;
const PRODUCER_TYPE: usize = 4;
const PRODUCER_ID: usize = 5;
const CONSUMER_TYPE: usize = 6;
const CONSUMER_ID: usize = 7;
const STEP_ID: usize = 8;
const ITER_NUM: usize = 9;
const IS_ASYNC: usize = 10;

/// Node `n` is event `n - line_base[k]` of the k-th (plane, line).
struct Forest {
    /// (plane, line, first node id) per line, in node order.
    lines: Vec<(u32, u32, u32)>,
    types: Vec<EventType>,
    /// Root level of the nodes whose level is positive (roots are few).
    root_levels: IdHashMap<u32, i32>,
    nesting: Nesting,
    /// The edges other than nesting, both ways.
    other_children: Adjacency,
    other_parents: Adjacency,
    tf_loop_roots: Vec<u32>,
    tf_data_step_ids: IdHashSet<i64>,
}

/// How many ancestors a search looks at. Real nesting and launch chains are
/// tens of events deep; a crafted file nesting a million events would
/// otherwise make each event's search walk the whole chain (quadratic work).
const MAX_ANCESTOR_SEARCH: usize = 1024;

/// An executor event of a TF loop: (loop id, iteration, node).
type LoopNode = (i64, i64, u32);

/// How many stats of the events have one of the `wanted` keys.
fn stat_count(profile: &Profile, wanted: &[Option<StrId>]) -> usize {
    let lines = profile.planes.iter().flat_map(|plane| &plane.lines);
    let stats = lines.map(|line| &line.events.stats);
    stats.map(|stats| (0..stats.len()).filter(|&j| wanted.contains(&Some(stats.key_at(j)))).count()).sum()
}

/// The last item of the run of sorted `items` that `order` finds equal.
fn last_of<T>(items: &[T], order: impl Fn(&T) -> std::cmp::Ordering) -> Option<&T> {
    let end = items.partition_point(|item| order(item) != std::cmp::Ordering::Greater);
    items[..end].last().filter(|item| order(item) == std::cmp::Ordering::Equal)
}

/// (plane, line, event) of `node` (`lines`: [`Forest::lines`]).
fn locate(lines: &[(u32, u32, u32)], node: u32) -> (usize, usize, usize) {
    let k = lines.partition_point(|&(_, _, base)| base <= node) - 1;
    let (p, l, base) = lines[k];
    (p as usize, l as usize, (node - base) as usize)
}

/// A node's start, read from its event (the forest keeps no copy of the times).
fn node_start(profile: &Profile, lines: &[(u32, u32, u32)], node: u32) -> i64 {
    let (p, l, i) = locate(lines, node);
    profile.planes[p].lines[l].events.start_ps.at(i)
}

/// TF while-loops: each iteration's first executor event is a root, and the
/// iteration's other executor events are its children. Gives the roots in time
/// order and the root → node edges. `executions` is sorted: each loop's
/// iterations, and each iteration's nodes, lie together.
fn tf_loops(
    profile: &Profile,
    lines: &[(u32, u32, u32)],
    mut executions: Vec<LoopNode>,
    tf_data_step_ids: &IdHashSet<i64>,
) -> (Vec<u32>, Vec<(u32, u32)>) {
    executions.retain(|(id, _, _)| !tf_data_step_ids.contains(id));
    // (first node, the iteration's nodes) of every iteration of a real loop.
    let mut iterations: Vec<(u32, &[LoopNode])> = Vec::new();
    for iters in executions.chunk_by(|a, b| a.0 == b.0) {
        // A loop that only ever ran iteration 0 is no loop.
        if iters.iter().all(|&(_, it, _)| it == 0) {
            continue;
        }
        for nodes in iters.chunk_by(|a, b| a.1 == b.1) {
            // The earliest node; the first in event order among equals.
            let first = nodes.iter().map(|n| n.2).min_by_key(|&n| node_start(profile, lines, n)).expect("non-empty");
            iterations.push((first, nodes));
        }
    }
    iterations.sort_by_key(|(first, _)| (node_start(profile, lines, *first), *first));
    let mut roots = Vec::with_capacity(iterations.len());
    let mut edges = Vec::new();
    for (first, nodes) in iterations {
        roots.push(first);
        edges.extend(nodes.iter().map(|n| n.2).filter(|&n| n != first).map(|n| (first, n)));
    }
    (roots, edges)
}

impl Forest {
    fn build(profile: &Profile, keys: &StatKeys, keras_batches: bool) -> Forest {
        let nodes = profile.event_count();
        let mut lines = Vec::new();
        let mut types = Vec::with_capacity(nodes);
        let mut root_levels = IdHashMap::default();
        let mut nesting = Nesting::with_capacity(nodes);
        let mut edges: Vec<(u32, u32)> = Vec::new();
        // The lists that grow with the events are allocated once, at most at
        // the count of the stats that fill them.
        let mut contexts =
            ContextEnds::with_capacity(stat_count(profile, &[keys.producer_type, keys.consumer_type]), nodes);
        let mut get_next: Vec<(u32, i64, i64)> = Vec::new();
        // Launches by correlation id, and kernels: lists sorted once read
        // (a map per launch held twice the room, and three times while it grew).
        let mut launches: Vec<(i64, u32)> = Vec::new();
        let mut kernels: Vec<(u32, i64)> = Vec::new();
        let mut tf_data_step_ids = IdHashSet::default();
        // The executor events of each (step id, iteration): they adopt the
        // iterators' events, and make TF loops.
        let mut executions: Vec<LoopNode> = Vec::with_capacity(stat_count(profile, &[keys.iter_num]));
        let picker = StatPicker::new(
            profile,
            &[
                keys.correlation_id,
                keys.is_root,
                keys.step_num,
                keys.consumer_pid,
                keys.producer_type,
                keys.producer_id,
                keys.consumer_type,
                keys.consumer_id,
                keys.step_id,
                keys.iter_num,
                keys.is_async,
            ],
        );
        let mut values = [None; 11];

        for (p, plane) in profile.planes.iter().enumerate() {
            if !in_forest(profile, plane) {
                continue;
            }
            let is_host = profile.str(plane.name) == HOST_PLANE;
            let plane_pid = plane_stat(profile, plane, keys.process_id).and_then(|v| v.as_i64());
            let meta_types: Vec<EventType> =
                plane.event_metadata.iter().map(|m| EventType::of_name(profile.str(m.name))).collect();
            for (l, line) in plane.lines.iter().enumerate() {
                let base = types.len() as u32;
                lines.push((p as u32, l as u32, base));
                let ev = &line.events;
                for i in 0..ev.len() {
                    let node = base + i as u32;
                    picker.pick(profile, plane, line, i, &mut values);
                    let int = |slot: usize| values[slot].and_then(|v| v.as_i64());
                    let mut ty = meta_types[ev.metadata[i] as usize];
                    if let (EventType::Other, Some(c)) = (ty, int(CORRELATION)) {
                        // Launches and kernels are typed by where they are.
                        if is_host {
                            ty = EventType::KernelLaunch;
                            launches.push((c, node));
                        } else {
                            ty = EventType::KernelExecute;
                            kernels.push((node, c));
                        }
                    }
                    let level = int(IS_ROOT).map(|v| v as i32);
                    let keras_root = keras_batches
                        && values[STEP_NUM].is_some()
                        && profile.str(plane.event_metadata[ev.metadata[i] as usize].name) == KERAS_BATCH_MARKER;
                    let level = level.unwrap_or(if ty == EventType::TraceContext || keras_root { 1 } else { 0 });
                    let pid = int(CONSUMER_PID).or(plane_pid);
                    let uint = |slot: usize| values[slot].and_then(|v| v.as_u64());
                    if let (Some(t), Some(id)) = (int(PRODUCER_TYPE), uint(PRODUCER_ID)) {
                        contexts.push((t, id, pid), false, node);
                    }
                    if let (Some(t), Some(id)) = (int(CONSUMER_TYPE), uint(CONSUMER_ID)) {
                        contexts.push((t, id, pid), true, node);
                    }
                    match (ty, int(STEP_ID), int(ITER_NUM)) {
                        (EventType::ExecutorStateProcess, Some(id), Some(it)) => {
                            executions.push((id, it, node));
                        }
                        (EventType::IteratorGetNextOp | EventType::IteratorGetNextAsOptionalOp, Some(id), Some(it)) => {
                            get_next.push((node, id, it));
                        }
                        (EventType::CapturedFunctionRun, Some(id), _) => {
                            tf_data_step_ids.insert(id);
                        }
                        _ => {}
                    }
                    let is_async = int(IS_ASYNC).is_some_and(|v| v != 0);
                    nesting.push(ev.start_ps.at(i), ev.end_ps(i), is_async);
                    types.push(ty);
                    if level > 0 {
                        root_levels.insert(node, level);
                    }
                }
                nesting.end_line();
            }
        }

        // An event adopted by key takes the last event of that key (XProf's
        // map keeps the last one inserted): sorted, the last of its run.
        executions.sort_unstable();
        for (node, id, it) in get_next {
            if let Some(&(_, _, parent)) = last_of(&executions, |e| (e.0, e.1).cmp(&(id, it))) {
                edges.push((parent, node));
            }
        }
        launches.sort_unstable();
        for (node, c) in kernels {
            if let Some(&(_, launch)) = last_of(&launches, |l| l.0.cmp(&c)) {
                edges.push((launch, node));
            }
        }
        drop(launches);
        // The loops' edges come after the contexts' (edge order is the order
        // parents are searched in), but are found first: the executor list is
        // then given back before the contexts are linked (held beside their
        // ends, it was a sixth of grouping's peak).
        let (tf_loop_roots, loop_edges) = tf_loops(profile, &lines, executions, &tf_data_step_ids);
        contexts.edges_into(&mut edges, loop_edges.len());
        edges.extend(loop_edges);

        let nodes = types.len();
        Forest {
            lines,
            types,
            root_levels,
            nesting,
            other_children: Adjacency::new(nodes, &edges, false),
            other_parents: Adjacency::new(nodes, &edges, true),
            tf_loop_roots,
            tf_data_step_ids,
        }
    }

    fn locate(&self, node: u32) -> (usize, usize, usize) {
        locate(&self.lines, node)
    }

    /// Its nesting parent first, then the others in the order they were found.
    fn parents(&self, n: u32) -> impl Iterator<Item = u32> + '_ {
        self.nesting.parent(n).into_iter().chain(self.other_parents.of(n).iter().copied())
    }

    fn children(&self, n: u32) -> impl Iterator<Item = u32> + '_ {
        self.nesting.children(n).chain(self.other_children.of(n).iter().copied())
    }

    fn root_level(&self, n: u32) -> i32 {
        self.root_levels.get(&n).copied().unwrap_or(0)
    }

    fn stat<'a>(&self, profile: &'a Profile, node: u32, key: Option<proflens_model::StrId>) -> Option<StatValue<'a>> {
        let (p, l, i) = self.locate(node);
        let plane = &profile.planes[p];
        event_stat(profile, plane, &plane.lines[l], i, key)
    }

    /// Breadth-first over `node` (if `include_self`) and its nearest
    /// [`MAX_ANCESTOR_SEARCH`] ancestors.
    fn find_ancestor(
        &self,
        visited: &mut Visited,
        node: u32,
        include_self: bool,
        pred: impl FnMut(u32) -> bool,
    ) -> Option<u32> {
        // The walk's queue is kept between walks: one search per event of
        // millions would otherwise allocate one each.
        let mut queue = std::mem::take(&mut visited.queue);
        queue.clear();
        let found = self.search_ancestors(visited, &mut queue, node, include_self, pred);
        visited.queue = queue;
        found
    }

    fn search_ancestors(
        &self,
        visited: &mut Visited,
        queue: &mut VecDeque<u32>,
        node: u32,
        include_self: bool,
        mut pred: impl FnMut(u32) -> bool,
    ) -> Option<u32> {
        visited.next();
        visited.insert(node);
        if include_self {
            queue.push_back(node);
        } else {
            for p in self.parents(node) {
                if visited.insert(p) {
                    queue.push_back(p);
                }
            }
        }
        let mut searched = 0;
        while let Some(n) = queue.pop_front() {
            if pred(n) {
                return Some(n);
            }
            searched += 1;
            if searched == MAX_ANCESTOR_SEARCH {
                return None;
            }
            for p in self.parents(n) {
                if visited.insert(p) {
                    queue.push_back(p);
                }
            }
        }
        None
    }

    fn context_stat<'a>(
        &self,
        visited: &mut Visited,
        profile: &'a Profile,
        node: u32,
        key: Option<proflens_model::StrId>,
    ) -> Option<StatValue<'a>> {
        key?;
        let found = self.find_ancestor(visited, node, true, |n| self.stat(profile, n, key).is_some())?;
        self.stat(profile, found, key)
    }

    fn group(&self, profile: &Profile, keys: &StatKeys, out: &mut Grouping) {
        let roots: Vec<u32> = if self.tf_loop_roots.is_empty() {
            let mut roots: Vec<u32> = self
                .root_levels
                .keys()
                .copied()
                .filter(|&n| {
                    let id = self.stat(profile, n, keys.step_id).and_then(|v| v.as_i64());
                    !id.is_some_and(|id| self.tf_data_step_ids.contains(&id))
                })
                .collect();
            // Node ids last: equal keys took node order before roots came from a map.
            roots.sort_by_key(|&n| (std::cmp::Reverse(self.root_level(n)), node_start(profile, &self.lines, n), n));
            roots
        } else {
            self.tf_loop_roots.clone()
        };
        // Each root gives at most one group.
        let mut group_of = GroupIds::none_for(self.types.len(), roots.len());
        let mut visited = Visited::new(self.types.len());
        let mut next_group = 0i32;
        let mut step_roots = Vec::new();
        for root in roots {
            if self.tf_loop_roots.is_empty() {
                if group_of.get(root as usize).is_some() {
                    continue;
                }
                let level = self.root_level(root);
                let same_level_parent = self.find_ancestor(&mut visited, root, false, |n| self.root_level(n) == level);
                if same_level_parent.is_some() {
                    continue;
                }
            }
            let group = next_group;
            next_group += 1;
            self.propagate(root, group, &mut group_of);
            let name = self.group_name(&mut visited, profile, keys, root, group);
            if !self.types[root as usize].is_implicit_root() {
                step_roots.push(root);
            }
            out.names.insert(group, name);
        }
        // Nodes are the lines' events in order: each line's groups are one
        // slice, moved out last line first, the list giving back each line's
        // room as it goes, so that the two never both hold every group. The
        // line's flags are made then too, not beside every group.
        for &(p, l, base) in self.lines.iter().rev() {
            let groups = group_of.split_off(base as usize);
            group_of.shrink_to_fit();
            let line = &mut out.planes[p as usize][l as usize];
            line.flags = vec![0; groups.len()];
            line.group = groups.narrowed();
        }
        for root in step_roots {
            let (p, l, i) = self.locate(root);
            out.planes[p][l].flags[i] |= FLAG_STEP_ROOT;
        }
        self.mark_eager_ops(&mut visited, profile, keys, out);
    }

    /// Gives `group` to every node reachable from `root` that has none. A
    /// grouped node's descendants are grouped already (groups are given to
    /// all that is reachable), so the walk stops at grouped nodes, and the
    /// groups serve as its marks.
    fn propagate(&self, root: u32, group: i32, group_of: &mut GroupIds) {
        if group_of.get(root as usize).is_some() {
            return;
        }
        group_of.set(root as usize, group);
        let mut stack = vec![root];
        while let Some(n) = stack.pop() {
            for c in self.children(n) {
                if group_of.get(c as usize).is_none() {
                    group_of.set(c as usize, group);
                    stack.push(c);
                }
            }
        }
    }

    fn group_name(&self, visited: &mut Visited, profile: &Profile, keys: &StatKeys, root: u32, group: i32) -> String {
        let mut name = String::new();
        if let Some(graph_type) = self.context_stat(visited, profile, root, keys.graph_type) {
            name.push_str(&graph_type.to_string());
            name.push(' ');
        } else if !self.types[root as usize].is_implicit_root() {
            let (p, l, i) = self.locate(root);
            let plane = &profile.planes[p];
            let meta = plane.lines[l].events.metadata[i];
            name.push_str(profile.str(plane.event_metadata[meta as usize].name));
            name.push(' ');
        }
        let number = self
            .context_stat(visited, profile, root, keys.iter_num)
            .or_else(|| self.context_stat(visited, profile, root, keys.step_num))
            .and_then(|v| v.as_i64())
            .unwrap_or(i64::from(group));
        name.push_str(&number.to_string());
        name
    }
}
