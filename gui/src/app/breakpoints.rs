//! Breakpoints and the search for the next (or previous) cycle that hits one.

use std::time::{Duration, Instant};

use cranelift_entity::EntityRef;
use handscope_sim::report::signed_value;
use handscope_sim::trace::{CycleView, Trace};
use handscope_sim::{ChannelId, Function, NodeId};

use super::binding::Binding;

/// A comparison for value breakpoints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<` (signed)
    Lt,
    /// `>` (signed)
    Gt,
}

impl Cmp {
    /// All, for menus.
    pub const ALL: [Cmp; 4] = [Cmp::Eq, Cmp::Ne, Cmp::Lt, Cmp::Gt];

    /// The operator.
    pub fn symbol(self) -> &'static str {
        match self {
            Cmp::Eq => "==",
            Cmp::Ne => "!=",
            Cmp::Lt => "<",
            Cmp::Gt => ">",
        }
    }

    fn holds_float(self, a: f64, b: f64) -> bool {
        match self {
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
            Cmp::Lt => a < b,
            Cmp::Gt => a > b,
        }
    }

    fn holds(self, a: i64, b: i64) -> bool {
        match self {
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
            Cmp::Lt => a < b,
            Cmp::Gt => a > b,
        }
    }
}

/// One breakpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Breakpoint {
    /// A channel transfers a token.
    ChannelFires(ChannelId),
    /// A channel transfers a token whose (signed; for floats, numeric) value compares true.
    Value(ChannelId, Cmp, i64),
    /// Any channel of a node transfers.
    NodeFires(NodeId),
    /// The run is deadlocked (the first cycle without transfers).
    Deadlock,
    /// A cycle number.
    Cycle(u64),
}

impl Breakpoint {
    /// Text for the list.
    pub fn describe(&self, f: &Function) -> String {
        match self {
            Breakpoint::ChannelFires(c) => format!("{} fires", f.channels[*c].name),
            Breakpoint::Value(c, op, v) => format!("{} {} {v}", f.channels[*c].name, op.symbol()),
            Breakpoint::NodeFires(n) => format!("{} fires", f.nodes[*n].id),
            Breakpoint::Deadlock => "deadlock".into(),
            Breakpoint::Cycle(c) => format!("cycle {c}"),
        }
    }

    /// True when the breakpoint hits in the cycle `v`.
    pub fn hits(
        &self,
        f: &Function,
        b: &Binding,
        v: &CycleView<'_>,
        deadlock_since: Option<u64>,
    ) -> bool {
        let fires = |c: ChannelId| b.chan[c.index()].is_some_and(|i| v.valid(i) && v.ready(i));
        match self {
            Breakpoint::ChannelFires(c) => fires(*c),
            Breakpoint::Value(c, op, x) => b.chan[c.index()].is_some_and(|i| {
                let ty = &f.channels[*c].ty;
                v.valid(i)
                    && v.ready(i)
                    && match ty.float_kind() {
                        // Floats compare as numbers (a NaN is unequal to everything).
                        Some(kind) => op.holds_float(
                            handscope_sim::float::FloatValue {
                                kind,
                                bits: v.data(i),
                            }
                            .to_f64(),
                            *x as f64,
                        ),
                        None => op.holds(signed_value(v.data(i), ty.bit_width().max(1)), *x),
                    }
            }),
            Breakpoint::NodeFires(n) => {
                let node = &f.nodes[*n];
                node.inputs.iter().chain(&node.outputs).any(|&c| fires(c))
            }
            Breakpoint::Deadlock => deadlock_since == Some(v.cycle),
            Breakpoint::Cycle(c) => v.cycle == *c,
        }
    }
}

/// Direction of a search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// Towards later cycles.
    Forward,
    /// Towards earlier cycles.
    Backward,
}

/// Outcome of a bounded search step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found {
    /// A breakpoint hits at this cycle.
    Hit(u64),
    /// No hit in the available cycles; continue from this cycle when more exist.
    Pending(u64),
    /// No hit at all in that direction.
    None,
}

/// Cycles a backward search reads forward in one go (a trace is read fastest in time order).
const BACK_WINDOW: u64 = 256;

/// Scans from `from` (exclusive) in `dir` for at most `budget` of time.
#[allow(clippy::too_many_arguments)]
pub fn search(
    bps: &[Breakpoint],
    f: &Function,
    b: &Binding,
    t: &Trace,
    from: u64,
    dir: Dir,
    deadlock_since: Option<u64>,
    budget: Duration,
) -> Found {
    if bps.is_empty() {
        return Found::None;
    }
    let start = Instant::now();
    let hits = |v: &CycleView<'_>| bps.iter().any(|bp| bp.hits(f, b, v, deadlock_since));
    match dir {
        Dir::Forward => {
            let mut rp = t.replay_from(from + 1);
            let mut c = from;
            loop {
                c += 1;
                if rp.next_cycle().is_none() {
                    return Found::Pending(c.saturating_sub(1));
                }
                if hits(&rp.view()) {
                    return Found::Hit(c);
                }
                if start.elapsed() > budget {
                    return Found::Pending(c);
                }
            }
        }
        Dir::Backward => {
            // Windows of cycles before `hi`, each read forward; the last hit of a window
            // is the nearest one.
            let mut hi = from.min(t.cycles());
            loop {
                if hi == 0 {
                    return Found::None;
                }
                let lo = hi.saturating_sub(BACK_WINDOW);
                let mut rp = t.replay_from(lo);
                let mut last = None;
                for c in lo..hi {
                    if rp.next_cycle().is_none() {
                        break;
                    }
                    if hits(&rp.view()) {
                        last = Some(c);
                    }
                }
                if let Some(h) = last {
                    return Found::Hit(h);
                }
                hi = lo;
                if start.elapsed() > budget {
                    return Found::Pending(hi);
                }
            }
        }
    }
}
