//! Static-island candidates of a C kernel (issue #35, `docs/static-islands.md`): the innermost
//! loops of fixed-latency operations (arithmetic, comparisons, casts, loads of arrays the
//! kernel does not write) left from one place (their header or their back edge's source),
//! with an `if` inside if-converted (both
//! sides computed, a select where they join), and their modulo schedule under a timing profile
//! and limits on units. A loop that cannot be an island says why.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use handscope_sim::schedule::{Dep, SchedOp, Schedule, ScheduleError, modulo_schedule};
use handscope_sim::spec::timing::{Format, TimingProfile, Unit};

use super::build::{bin_op, cmp_op, rpo, unary_op};
use crate::c::ir::{InstKind, IrFunction, Type as IrType, ValueId};

/// One operation of a scheduled loop, as a report shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IslandOp {
    /// The operation (`muli`, `load a`, `addf`).
    pub name: String,
    /// Its C source line.
    pub line: u32,
    /// Its unit: latency and interval.
    pub unit: Unit,
}

/// An innermost loop and what a static schedule makes of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopIsland {
    /// The loop's header block (`bb2`).
    pub header: String,
    /// The C source line of its header.
    pub line: u32,
    /// The loop's operations, in iteration order (constants left out).
    pub ops: Vec<IslandOp>,
    /// The schedule, or why the loop stays dynamic.
    pub schedule: Result<Schedule, String>,
    /// The loop's blocks in program order, its header first.
    pub(crate) blocks: Vec<usize>,
}

/// The innermost loops of `f` (reachable, in block order) with their schedules under
/// `profile` and at most `limits[kind]` units of a kind (`muli`, `addf.f32`, `load.a`).
///
/// With `stores`, loops that store (and load arrays the kernel writes) are candidates too:
/// their accesses to one array keep program order inside an iteration, and an iteration's
/// accesses to an array wait for the previous iteration's stores to it (and its stores for
/// the previous iteration's loads), conservatively, whatever the addresses. The island
/// takes and gives the arrays' ordering tokens, so the accesses before and after it keep
/// their order too (serial memory ordering only).
pub fn loop_islands(
    f: &IrFunction,
    profile: &TimingProfile,
    limits: &BTreeMap<String, u32>,
    stores: bool,
) -> Vec<LoopIsland> {
    let reach = super::maximize::reachable(f);
    let order = rpo(f, &reach);
    let succs = |b: usize| -> Vec<usize> {
        f.blocks[b]
            .term
            .successors()
            .iter()
            .map(|(s, _)| s.0 as usize)
            .collect()
    };
    // Back edges by header, then natural loops.
    let mut sources: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for b in (0..f.blocks.len()).filter(|&b| reach[b]) {
        for s in succs(b) {
            if reach[s] && order[s] <= order[b] {
                sources.entry(s).or_default().push(b);
            }
        }
    }
    let preds = f.predecessors();
    let loops: Vec<(usize, BTreeSet<usize>)> = sources
        .iter()
        .map(|(&h, srcs)| {
            let mut body = BTreeSet::from([h]);
            let mut stack = srcs.clone();
            while let Some(b) = stack.pop() {
                if reach[b] && body.insert(b) {
                    stack.extend(preds[b].iter().map(|p| p.0 as usize));
                }
            }
            (h, body)
        })
        .collect();
    let mut out = Vec::new();
    for (h, body) in &loops {
        let inner = loops
            .iter()
            .any(|(h2, b2)| h2 != h && body.contains(h2) && b2.is_subset(body));
        if inner {
            continue;
        }
        out.push(island(
            f,
            *h,
            body,
            &sources[h],
            &order,
            profile,
            limits,
            stores,
        ));
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn island(
    f: &IrFunction,
    h: usize,
    body: &BTreeSet<usize>,
    back: &[usize],
    order: &[usize],
    profile: &TimingProfile,
    limits: &BTreeMap<String, u32>,
    stores: bool,
) -> LoopIsland {
    let header = format!("bb{h}");
    let line = f.blocks[h].term_span.line;
    let mut blocks: Vec<usize> = body.iter().copied().collect();
    blocks.sort_by_key(|&b| order[b]);
    let stays = |why: String| LoopIsland {
        header: header.clone(),
        line,
        ops: Vec::new(),
        schedule: Err(why),
        blocks: blocks.clone(),
    };
    // One back edge returns to the header, and one block leaves the loop: the header (a loop
    // tested at the top) or the back edge's source (tested at the bottom).
    if back.len() != 1 {
        return stays("it has several back edges (a `continue`)".into());
    }
    let exiting: Vec<usize> = body
        .iter()
        .copied()
        .filter(|&b| {
            f.blocks[b]
                .term
                .successors()
                .iter()
                .any(|(s, _)| !body.contains(&(s.0 as usize)))
        })
        .collect();
    if let Some(&b) = exiting.iter().find(|&&b| b != h && b != back[0]) {
        return stays(format!(
            "it also leaves from bb{b} (a `break` or `return`), so its trip count is decided inside an iteration"
        ));
    }
    if exiting.len() > 1 {
        return stays(format!(
            "it leaves from bb{} and from bb{}: its trip count is tested twice",
            exiting[0], exiting[1]
        ));
    }
    // An island holds words of at most 64 bits.
    let wide = blocks.iter().find_map(|&b| {
        let blk = &f.blocks[b];
        blk.params
            .iter()
            .chain(blk.insts.iter().flat_map(|i| i.results.iter()))
            .find(|&&v| f.ty(v).bits() > 64)
            .map(|_| b)
    });
    if let Some(b) = wide {
        return stays(format!(
            "bb{b} computes values wider than 64 bits, which an island does not hold"
        ));
    }
    // An iteration's blocks in program order: a DAG, the loop being innermost. Where paths
    // join, a block's parameters become selects (if-conversion): both sides are computed and
    // the branch conditions before the join pick the value.
    let mut path: Vec<usize> = body.iter().copied().collect();
    path.sort_by_key(|&b| order[b]);
    let preds = f.predecessors();
    // Operations, and what defines each value inside the loop.
    let mut ops: Vec<IslandOp> = Vec::new();
    let mut sched_ops: Vec<SchedOp> = Vec::new();
    let mut users: Vec<Vec<ValueId>> = Vec::new();
    let mut def: HashMap<ValueId, usize> = HashMap::new();
    let mut alias: HashMap<ValueId, ValueId> = HashMap::new();
    let mut conditions: Vec<ValueId> = Vec::new();
    // Each array's accesses in program order: (op, is a store).
    let mut accesses: BTreeMap<u32, Vec<(usize, bool)>> = BTreeMap::new();
    for &b in &path {
        if b != h {
            let incoming: Vec<&[ValueId]> = preds[b]
                .iter()
                .flat_map(|p| {
                    f.blocks[p.0 as usize]
                        .term
                        .successors()
                        .into_iter()
                        .filter(|(s, _)| s.0 as usize == b)
                        .map(|(_, args)| args)
                })
                .collect();
            for (k, &param) in f.blocks[b].params.iter().enumerate() {
                // Memory ordering tokens: a static island orders nothing at run time.
                if incoming.len() == 1 || f.ty(param) == IrType::Token {
                    alias.insert(param, incoming[0][k]);
                    continue;
                }
                let mut reads: Vec<ValueId> = incoming.iter().map(|args| args[k]).collect();
                reads.extend(conditions.iter().copied());
                def.insert(param, ops.len());
                let unit = profile.arith(handscope_sim::ArithOp::Select, Format::Integer);
                ops.push(IslandOp {
                    name: "select (if-converted)".into(),
                    line: f.blocks[b].term_span.line,
                    unit,
                });
                sched_ops.push(SchedOp { kind: None, unit });
                users.push(reads);
            }
        }
        if b != h
            && let crate::c::ir::Terminator::CondBr { cond, .. } = &f.blocks[b].term
        {
            conditions.push(*cond);
        }
        for inst in &f.blocks[b].insts {
            let ty = |v: ValueId| f.ty(v);
            let fmt = |t: IrType| match t {
                IrType::Float(k) => Format::Float(k),
                _ => Format::Integer,
            };
            let (name, kind, unit, reads): (String, Option<String>, Unit, Vec<ValueId>) =
                match &inst.kind {
                    InstKind::Const { .. } => continue,
                    InstKind::Binary { op, lhs, rhs } => {
                        let a = bin_op(*op);
                        let fm = fmt(ty(*lhs));
                        let kind = match fm {
                            Format::Float(k) => format!("{}.{}", a.mnemonic(), k.name()),
                            Format::Integer => a.mnemonic().to_string(),
                        };
                        (
                            a.mnemonic().to_string(),
                            Some(kind),
                            profile.arith(a, fm),
                            vec![*lhs, *rhs],
                        )
                    }
                    InstKind::Unary { op, value } => {
                        let a = unary_op(*op);
                        let fm = fmt(ty(*value));
                        (
                            a.mnemonic().to_string(),
                            Some(a.mnemonic().to_string()),
                            profile.arith(a, fm),
                            vec![*value],
                        )
                    }
                    InstKind::Cmp { pred, lhs, rhs } => {
                        let a = cmp_op(*pred);
                        (
                            a.mnemonic().to_string(),
                            None,
                            profile.arith(a, fmt(ty(*lhs))),
                            vec![*lhs, *rhs],
                        )
                    }
                    InstKind::Select { cond, t, f: e } => (
                        "select".into(),
                        None,
                        profile.arith(handscope_sim::ArithOp::Select, Format::Integer),
                        vec![*cond, *t, *e],
                    ),
                    InstKind::Cast { op, value } => {
                        (op.name().to_string(), None, Unit::COMB, vec![*value])
                    }
                    InstKind::Load { mem, index, .. } => {
                        let m = &f.memories[mem.0 as usize];
                        if !m.read_only && !stores {
                            return stays(format!(
                                "it loads from `{}`, which the kernel also writes: its accesses need their order kept at run time",
                                m.name
                            ));
                        }
                        accesses.entry(mem.0).or_default().push((ops.len(), false));
                        (
                            format!("load {}", m.name),
                            Some(format!("load.{}", m.name)),
                            Unit::pipelined(profile.memory_read()),
                            vec![*index],
                        )
                    }
                    InstKind::Store {
                        mem, index, value, ..
                    } => {
                        let m = &f.memories[mem.0 as usize];
                        if !stores {
                            return stays(format!(
                                "it stores to `{}`: a store's order is kept at run time",
                                m.name
                            ));
                        }
                        accesses.entry(mem.0).or_default().push((ops.len(), true));
                        (
                            format!("store {}", m.name),
                            Some(format!("store.{}", m.name)),
                            Unit::pipelined(1),
                            vec![*index, *value],
                        )
                    }
                };
            let k = ops.len();
            if let Some(&r) = inst.results.first() {
                def.insert(r, k);
            }
            ops.push(IslandOp {
                name,
                line: inst.span.line,
                unit,
            });
            sched_ops.push(SchedOp { kind, unit });
            users.push(reads);
        }
    }
    // The header's parameters: what the back edge gives each.
    let src = back[0];
    let carried: HashMap<ValueId, ValueId> = f.blocks[src]
        .term
        .successors()
        .iter()
        .filter(|(s, _)| s.0 as usize == h)
        .flat_map(|(_, args)| f.blocks[h].params.iter().copied().zip(args.iter().copied()))
        .collect();
    let resolve = |mut v: ValueId| {
        for _ in 0..=alias.len() {
            match alias.get(&v) {
                Some(&a) => v = a,
                None => break,
            }
        }
        v
    };
    let mut deps = Vec::new();
    for (to, reads) in users.iter().enumerate() {
        for &v in reads {
            // Follow the back edge through parameters, one iteration per hop.
            let (mut v, mut distance) = (resolve(v), 0u32);
            while let Some(&next) = carried.get(&v) {
                if distance > carried.len() as u32 {
                    break;
                }
                v = resolve(next);
                distance += 1;
            }
            if let Some(&from) = def.get(&v) {
                deps.push(Dep { from, to, distance });
            }
        }
    }
    // Memory order: within an iteration, program order between an array's accesses when
    // one of them stores; across iterations, every access after the previous iteration's
    // stores, and every store after its loads.
    for list in accesses.values() {
        for (i, &(a, a_store)) in list.iter().enumerate() {
            for &(b, b_store) in &list[i + 1..] {
                if a_store || b_store {
                    deps.push(Dep {
                        from: a,
                        to: b,
                        distance: 0,
                    });
                }
            }
            for &(b, b_store) in list {
                if a_store || b_store {
                    deps.push(Dep {
                        from: a,
                        to: b,
                        distance: 1,
                    });
                }
            }
        }
    }
    let schedule =
        modulo_schedule(&sched_ops, &deps, limits).map_err(|e: ScheduleError| e.to_string());
    LoopIsland {
        header,
        line,
        ops,
        schedule,
        blocks,
    }
}
