//! Modulo scheduling of a statically scheduled region (a static island, issue #35): every
//! operation of a loop body or straight-line region gets a start cycle within one iteration,
//! and a new iteration starts every `ii` cycles, so operations of successive iterations
//! overlap as the stages of a pipeline.
//!
//! The input is a dependence graph: operations with a unit (latency and the interval at which
//! the unit takes operands, from a [`TimingProfile`](crate::spec::timing::TimingProfile)) and
//! a resource kind, dependences `from → to` with an iteration distance (0: within one
//! iteration; `d > 0`: `to` of iteration `i + d` reads what `from` of iteration `i` gave, a
//! loop-carried value), and a limit on the units of each kind, so that units are shared.
//!
//! A schedule is valid when, for every dependence,
//! `start[to] + ii · distance ≥ start[from] + latency[from]`, and in every residue
//! `r mod ii` no kind has more operations occupying a unit than it has units (an operation
//! occupies its unit for its unit's interval, from its start).
//!
//! [`modulo_schedule`] tries `ii` from the lower bound `max(ResMII, RecMII)` upwards: ResMII
//! from the resource counts, RecMII the smallest interval at which no dependence cycle asks
//! for more latency than its distance allows (Bellman–Ford on `latency − ii · distance`).
//! At each interval it places the operations in order of their earliest start (longest path
//! from the region's start), each at the first cycle at or after its predecessors' results
//! whose residue has a free unit; a placement that breaks a loop-carried dependence moves on
//! to the next interval. The result is the smallest interval this heuristic reaches, which is
//! the lower bound on the regular bodies that static islands take (checked in the tests).

use std::collections::BTreeMap;

use crate::spec::timing::Unit;

/// One operation of the region.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchedOp {
    /// The resource it needs (`"muli"`, `"addf/f32"`, ...); `None` for an operation that needs
    /// no shared unit (a constant, a wire, a comparison kept per operation).
    pub kind: Option<String>,
    /// Its unit's latency and interval.
    pub unit: Unit,
}

/// A dependence: `to` of iteration `i + distance` needs the result of `from` of iteration `i`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dep {
    /// Producer (index into the operations).
    pub from: usize,
    /// Consumer.
    pub to: usize,
    /// Iterations between them (0 within one iteration).
    pub distance: u32,
}

/// A modulo schedule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// Cycles between the starts of two iterations.
    pub ii: u32,
    /// Start cycle of every operation within its iteration.
    pub start: Vec<u32>,
    /// Cycles from an iteration's start to its last result (its depth).
    pub latency: u32,
    /// The lower bound the interval was searched from: `max(ResMII, RecMII)`.
    pub min_ii: u32,
}

impl Schedule {
    /// Number of pipeline stages: up to the stage of the last operation to start, and of the
    /// last result's cycle (an operation that starts in a stage occupies it even when it
    /// answers within its cycle).
    pub fn stages(&self) -> u32 {
        let last_start = self.start.iter().map(|s| s / self.ii).max().unwrap_or(0) + 1;
        last_start.max(self.latency.div_ceil(self.ii)).max(1)
    }

    /// The stage of operation `op` (its start divided by the interval).
    pub fn stage(&self, op: usize) -> u32 {
        self.start[op] / self.ii
    }
}

/// Why a region cannot be scheduled.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ScheduleError {
    /// A kind's limit is 0 while an operation needs it.
    #[error("no unit of kind `{0}` may be used, but an operation needs one")]
    NoUnit(String),
    /// A dependence names an operation that does not exist.
    #[error("dependence {from} → {to} names an operation past the {n} of the region")]
    BadDep {
        /// Producer.
        from: usize,
        /// Consumer.
        to: usize,
        /// Operations in the region.
        n: usize,
    },
    /// A dependence cycle of total distance 0: an operation waits on itself.
    #[error("a cycle of dependences within one iteration: operation {0} waits on its own result")]
    ZeroDistanceCycle(usize),
}

/// ResMII: for every kind, the unit cycles its operations occupy over the units there are.
pub fn res_mii(ops: &[SchedOp], limits: &BTreeMap<String, u32>) -> Result<u32, ScheduleError> {
    let mut use_of: BTreeMap<&str, u32> = BTreeMap::new();
    for o in ops {
        if let Some(k) = &o.kind {
            *use_of.entry(k).or_insert(0) += o.unit.ii.max(1);
        }
    }
    let mut mii = 1;
    for (k, cycles) in use_of {
        if let Some(&n) = limits.get(k) {
            if n == 0 {
                return Err(ScheduleError::NoUnit(k.to_string()));
            }
            mii = mii.max(cycles.div_ceil(n));
        }
    }
    Ok(mii)
}

/// Longest paths from a virtual start over weights `latency(from) − ii · distance`, or `None`
/// when some cycle is positive at this interval (the interval is below RecMII).
fn earliest(ops: &[SchedOp], deps: &[Dep], ii: u32) -> Option<Vec<i64>> {
    let n = ops.len();
    let mut dist = vec![0i64; n];
    for round in 0..=n {
        let mut changed = false;
        for d in deps {
            let w = i64::from(ops[d.from].unit.latency) - i64::from(ii) * i64::from(d.distance);
            if dist[d.from] + w > dist[d.to] {
                dist[d.to] = dist[d.from] + w;
                changed = true;
            }
        }
        if !changed {
            return Some(dist);
        }
        if round == n {
            return None;
        }
    }
    None
}

/// RecMII: the smallest interval at which no dependence cycle is positive.
pub fn rec_mii(ops: &[SchedOp], deps: &[Dep]) -> Result<u32, ScheduleError> {
    // A cycle's latency is at most the sum of all latencies: past that every cycle with a
    // distance is feasible, and one of distance 0 never is.
    let total: u32 = ops.iter().map(|o| o.unit.latency).sum::<u32>() + 1;
    if earliest(ops, deps, total).is_none() {
        let culprit = deps.iter().find(|d| d.distance == 0).map_or(0, |d| d.to);
        return Err(ScheduleError::ZeroDistanceCycle(culprit));
    }
    let (mut lo, mut hi) = (1u32, total);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if earliest(ops, deps, mid).is_some() {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Ok(lo)
}

/// Schedules `ops` under `deps` with at most `limits[kind]` units of each kind (a kind not
/// listed has a unit per operation).
pub fn modulo_schedule(
    ops: &[SchedOp],
    deps: &[Dep],
    limits: &BTreeMap<String, u32>,
) -> Result<Schedule, ScheduleError> {
    let n = ops.len();
    if let Some(d) = deps.iter().find(|d| d.from >= n || d.to >= n) {
        return Err(ScheduleError::BadDep {
            from: d.from,
            to: d.to,
            n,
        });
    }
    let min_ii = res_mii(ops, limits)?.max(rec_mii(ops, deps)?);
    // At this interval every operation can run alone in sequence, so the search ends.
    let max_ii = min_ii
        + ops
            .iter()
            .map(|o| o.unit.latency + o.unit.ii.max(1))
            .sum::<u32>();
    for ii in min_ii..=max_ii {
        if let Some(start) = place(ops, deps, limits, ii) {
            let latency = (0..n)
                .map(|i| start[i] + ops[i].unit.latency)
                .max()
                .unwrap_or(0);
            return Ok(Schedule {
                ii,
                start,
                latency,
                min_ii,
            });
        }
    }
    Ok(sequential(ops, deps, min_ii))
}

/// The schedule of last resort: one operation after another in a topological order of the
/// dependences within an iteration, each occupying its unit alone, and an interval as long as
/// all of them, so every dependence and every unit holds whatever the limits.
fn sequential(ops: &[SchedOp], deps: &[Dep], min_ii: u32) -> Schedule {
    let n = ops.len();
    let mut indeg = vec![0usize; n];
    for d in deps.iter().filter(|d| d.distance == 0) {
        indeg[d.to] += 1;
    }
    let mut ready: std::collections::BTreeSet<usize> = (0..n).filter(|&i| indeg[i] == 0).collect();
    let mut start = vec![0u32; n];
    let mut t = 0u32;
    while let Some(i) = ready.pop_first() {
        start[i] = t;
        t += ops[i].unit.latency + ops[i].unit.ii.max(1);
        for d in deps.iter().filter(|d| d.distance == 0 && d.from == i) {
            indeg[d.to] -= 1;
            if indeg[d.to] == 0 {
                ready.insert(d.to);
            }
        }
    }
    Schedule {
        ii: t.max(min_ii).max(1),
        start,
        latency: t,
        min_ii,
    }
}

/// One attempt at interval `ii`: operations in order of their earliest start, each at the
/// first cycle at or after its placed predecessors' results with a free unit in its residue.
fn place(
    ops: &[SchedOp],
    deps: &[Dep],
    limits: &BTreeMap<String, u32>,
    ii: u32,
) -> Option<Vec<u32>> {
    let n = ops.len();
    let asap = earliest(ops, deps, ii)?;
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| (asap[i], i));
    let mut start: Vec<Option<u32>> = vec![None; n];
    // Units busy per kind and residue.
    let mut table: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
    for &i in &order {
        let mut lo = asap[i].max(0);
        for d in deps.iter().filter(|d| d.to == i) {
            if let Some(s) = start[d.from] {
                let ready = i64::from(s) + i64::from(ops[d.from].unit.latency)
                    - i64::from(ii) * i64::from(d.distance);
                lo = lo.max(ready);
            }
        }
        let lo = lo as u32;
        let t = match (
            &ops[i].kind,
            ops[i].kind.as_deref().and_then(|k| limits.get(k)),
        ) {
            (Some(k), Some(&units)) => {
                let busy = table
                    .entry(k.as_str())
                    .or_insert_with(|| vec![0; ii as usize]);
                let span = ops[i].unit.ii.max(1);
                let free = |t: u32, busy: &Vec<u32>| {
                    (0..span).all(|c| busy[((t + c) % ii) as usize] < units)
                };
                let t = (lo..lo + ii).find(|&t| free(t, busy))?;
                for c in 0..span {
                    busy[((t + c) % ii) as usize] += 1;
                }
                t
            }
            _ => lo,
        };
        start[i] = Some(t);
    }
    let start: Vec<u32> = start
        .into_iter()
        .map(|s| s.expect("every op placed"))
        .collect();
    // Every dependence holds, the loop-carried ones included.
    deps.iter()
        .all(|d| {
            i64::from(start[d.to]) + i64::from(ii) * i64::from(d.distance)
                >= i64::from(start[d.from]) + i64::from(ops[d.from].unit.latency)
        })
        .then_some(start)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_sequential_schedule_is_valid() {
        let ops = vec![op("muli", 3), op("addi", 1), op("muli", 3)];
        let deps = vec![dep(1, 0, 0), dep(0, 2, 0), dep(2, 1, 1)];
        let limits = BTreeMap::from([("muli".to_string(), 1)]);
        let s = sequential(&ops, &deps, 1);
        assert_eq!(s.start, vec![2, 0, 6]);
        valid(&ops, &deps, &limits, &s);
    }

    fn op(kind: &str, latency: u32) -> SchedOp {
        SchedOp {
            kind: Some(kind.to_string()),
            unit: Unit::pipelined(latency),
        }
    }

    fn dep(from: usize, to: usize, distance: u32) -> Dep {
        Dep { from, to, distance }
    }

    /// Checks every rule of a valid schedule.
    fn valid(ops: &[SchedOp], deps: &[Dep], limits: &BTreeMap<String, u32>, s: &Schedule) {
        for d in deps {
            assert!(
                s.start[d.to] + s.ii * d.distance >= s.start[d.from] + ops[d.from].unit.latency,
                "{d:?} broken by {s:?}"
            );
        }
        let mut busy: BTreeMap<(&str, u32), u32> = BTreeMap::new();
        for (i, o) in ops.iter().enumerate() {
            if let Some(k) = &o.kind {
                for c in 0..o.unit.ii.max(1) {
                    *busy.entry((k, (s.start[i] + c) % s.ii)).or_insert(0) += 1;
                }
            }
        }
        for ((k, r), used) in busy {
            if let Some(&units) = limits.get(k) {
                assert!(
                    used <= units,
                    "{k} in residue {r}: {used} > {units} ({s:?})"
                );
            }
        }
        assert!(s.ii >= s.min_ii);
    }

    #[test]
    fn a_dot_product_body_pipelines_at_one() {
        // acc' = acc + a*b: a 3-cycle multiplier feeding a 1-cycle adder that feeds itself.
        let ops = vec![op("muli", 3), op("addi", 1)];
        let deps = vec![dep(0, 1, 0), dep(1, 1, 1)];
        let s = modulo_schedule(&ops, &deps, &BTreeMap::new()).unwrap();
        assert_eq!(
            (s.ii, s.start.clone(), s.latency, s.stages()),
            (1, vec![0, 3], 4, 4)
        );
    }

    #[test]
    fn a_recurrence_through_the_multiplier_sets_the_interval() {
        // x' = x*c + 1: the cycle muli (3) → addi (1) → muli carries one iteration.
        let ops = vec![op("muli", 3), op("addi", 1)];
        let deps = vec![dep(0, 1, 0), dep(1, 0, 1)];
        assert_eq!(rec_mii(&ops, &deps), Ok(4));
        let s = modulo_schedule(&ops, &deps, &BTreeMap::new()).unwrap();
        assert_eq!((s.ii, s.start.clone()), (4, vec![0, 3]));
    }

    #[test]
    fn shared_units_raise_the_interval() {
        // Four independent products on two multipliers: two per residue at II 2.
        let ops: Vec<SchedOp> = (0..4).map(|_| op("muli", 3)).collect();
        let limits = BTreeMap::from([("muli".to_string(), 2)]);
        let s = modulo_schedule(&ops, &[], &limits).unwrap();
        assert_eq!(s.ii, 2);
        valid(&ops, &[], &limits, &s);
        // One multiplier whose unit takes an operand every other cycle: II 8.
        let slow: Vec<SchedOp> = (0..4)
            .map(|_| SchedOp {
                kind: Some("divf".into()),
                unit: Unit { latency: 10, ii: 2 },
            })
            .collect();
        let limits = BTreeMap::from([("divf".to_string(), 1)]);
        let s = modulo_schedule(&slow, &[], &limits).unwrap();
        assert_eq!(s.ii, 8);
        valid(&slow, &[], &limits, &s);
    }

    #[test]
    fn impossible_regions_are_refused() {
        let ops = vec![op("addi", 1), op("addi", 1)];
        assert!(matches!(
            modulo_schedule(&ops, &[dep(0, 1, 0), dep(1, 0, 0)], &BTreeMap::new()),
            Err(ScheduleError::ZeroDistanceCycle(_))
        ));
        let limits = BTreeMap::from([("addi".to_string(), 0)]);
        assert_eq!(
            modulo_schedule(&ops, &[], &limits),
            Err(ScheduleError::NoUnit("addi".into()))
        );
        assert!(matches!(
            modulo_schedule(&ops, &[dep(0, 5, 0)], &BTreeMap::new()),
            Err(ScheduleError::BadDep { .. })
        ));
    }

    #[test]
    fn straight_line_regions_reach_their_depth() {
        // (a+b)*(c+d) - e: depth 1 + 3 + 1 with one adder shared by the two sums and the
        // subtraction.
        let ops = vec![op("addi", 1), op("addi", 1), op("muli", 3), op("addi", 1)];
        let deps = vec![dep(0, 2, 0), dep(1, 2, 0), dep(2, 3, 0)];
        let limits = BTreeMap::from([("addi".to_string(), 1)]);
        let s = modulo_schedule(&ops, &deps, &limits).unwrap();
        assert_eq!(s.ii, 3);
        valid(&ops, &deps, &limits, &s);
        assert_eq!(s.latency, 6, "{s:?}");
    }

    proptest! {
        /// Random regions (a DAG within the iteration, loop-carried dependences back, random
        /// latencies, kinds and limits): the schedule is valid and at least the lower bound.
        #[test]
        fn random_regions_get_valid_schedules(
            n in 1usize..10,
            lat in prop::collection::vec(0u32..5, 10),
            kinds in prop::collection::vec(0usize..3, 10),
            edges in prop::collection::vec((0usize..10, 0usize..10, 0u32..3), 0..16),
            units in prop::collection::vec(1u32..3, 3),
        ) {
            let names = ["addi", "muli", "divsi"];
            let ops: Vec<SchedOp> = (0..n).map(|i| op(names[kinds[i]], lat[i])).collect();
            // Forward edges within an iteration, any edge with a distance.
            let deps: Vec<Dep> = edges
                .iter()
                .filter(|(a, b, _)| *a < n && *b < n)
                .filter_map(|&(a, b, d)| match d {
                    0 if a < b => Some(dep(a, b, 0)),
                    0 => None,
                    d => Some(dep(a, b, d)),
                })
                .collect();
            let limits: BTreeMap<String, u32> =
                names.iter().zip(&units).map(|(k, &u)| (k.to_string(), u)).collect();
            let s = modulo_schedule(&ops, &deps, &limits).unwrap();
            valid(&ops, &deps, &limits, &s);
            prop_assert!(s.ii >= res_mii(&ops, &limits).unwrap());
            prop_assert!(s.ii >= rec_mii(&ops, &deps).unwrap());
        }
    }
}
