//! Checking lessons against the engine: every step's circuit loads, its cycle exists, its
//! highlighted IDs name nodes or channels, and its expected answer holds in a simulation.

use cranelift_entity::EntityRef;
use handscope_sim::report::{RunReport, Status};
use handscope_sim::trace::Trace;

use super::{Answer, Named, Step, Val};
use crate::app::binding::Binding;
use crate::app::circuit::Circuit;
use crate::app::cycle::CycleState;
use crate::app::style::{Radix, format_value};

/// The most cycles a lesson's run may take.
pub const MAX_CYCLES: u64 = 200_000;

/// A simulated step: the circuit, its report and trace.
pub struct StepRun {
    /// The circuit.
    pub circuit: Circuit,
    /// The run's report.
    pub report: RunReport,
    /// The run's trace.
    pub trace: Trace,
}

/// Loads and simulates step `s`.
pub fn run_step(s: &Step) -> anyhow::Result<StepRun> {
    let circuit = super::step_circuit(s)?;
    let run = circuit.session.run(MAX_CYCLES, true)?;
    let trace = run
        .trace
        .ok_or_else(|| anyhow::anyhow!("the run recorded no trace"))?;
    Ok(StepRun {
        circuit,
        report: run.report,
        trace,
    })
}

/// The problems of step `s` (empty when it is sound and its answer holds).
pub fn check_step(s: &Step) -> Vec<String> {
    let r = match run_step(s) {
        Ok(r) => r,
        Err(e) => return vec![format!("{e:#}")],
    };
    let mut problems = Vec::new();
    let f = &r.circuit.func;
    let cycles = r.trace.cycles();
    if s.cycle >= cycles {
        problems.push(format!(
            "cycle {} does not exist: the run has cycles 0 to {}",
            s.cycle,
            cycles.saturating_sub(1)
        ));
    }
    for h in &s.highlight {
        if f.node_by_id(h).is_none() && f.channel_by_name(h).is_none() {
            problems.push(format!(
                "highlight `{h}` is neither a node ID nor a channel of @{}",
                f.name
            ));
        }
    }
    if let Some(a) = &s.answer
        && let Err(e) = holds(a, s.cycle, &r)
    {
        problems.push(e);
    }
    problems
}

/// Whether answer `a` holds at `cycle` of run `r`; else what the run shows instead.
pub fn holds(a: &Answer, cycle: u64, r: &StepRun) -> Result<(), String> {
    let f = &r.circuit.func;
    let chan = |name: &str| {
        f.channel_by_name(name)
            .ok_or_else(|| format!("the answer names `{name}`, which is not a channel"))
    };
    let state_at = |c: u64| {
        let b = Binding::new(f, &r.trace);
        CycleState::read(f, &r.trace, &b, c)
    };
    match a {
        Answer::ChannelState { channel, state } => {
            let ch = chan(channel)?;
            let got = state_at(cycle).chan(ch.index()).name();
            if got != state {
                return Err(format!(
                    "expected {channel} in state `{state}` at cycle {cycle}, the run shows `{got}`"
                ));
            }
        }
        Answer::ChannelValue { channel, value } => {
            let ch = chan(channel)?;
            let cs = state_at(cycle);
            if !cs.valid[ch.index()] {
                return Err(format!(
                    "expected {channel} to carry {value} at cycle {cycle}, but it holds no token then"
                ));
            }
            let got = format_value(cs.data[ch.index()], &f.channels[ch].ty, Radix::Signed);
            if !same_value(value, &got) {
                return Err(format!(
                    "expected {channel} to carry {value} at cycle {cycle}, the run shows {got}"
                ));
            }
        }
        Answer::Transfers { channel, count } => {
            let ch = chan(channel)?;
            let b = Binding::new(f, &r.trace);
            let ti = b.chan[ch.index()].ok_or_else(|| format!("{channel} is not in the trace"))?;
            let mut n = 0u64;
            let mut rp = r.trace.replay_from(0);
            for _ in 0..=cycle {
                if rp.next_cycle().is_none() {
                    break;
                }
                let v = rp.view();
                n += u64::from(v.valid(ti) && v.ready(ti));
            }
            if n != *count {
                return Err(format!(
                    "expected {count} transfers on {channel} in cycles 0 to {cycle}, the run shows {n}"
                ));
            }
        }
        Answer::TotalCycles { cycles } => {
            if r.report.cycles != *cycles {
                return Err(format!(
                    "expected the run to take {cycles} cycles, it takes {}",
                    r.report.cycles
                ));
            }
        }
        Answer::Status { status } => {
            let got = match r.report.status {
                Status::Done => "done",
                Status::Deadlock => "deadlock",
                Status::MaxCycles => "max_cycles",
                Status::Interrupted => "interrupted",
            };
            if got != status {
                return Err(format!(
                    "expected the run to end with `{status}`, it ends with `{got}`"
                ));
            }
        }
        Answer::Stream { result, streams } => {
            let runs = r.report.streams.get(result).ok_or_else(|| {
                format!("the answer names result `{result}`, which is not a stream result")
            })?;
            let got: Vec<String> = runs
                .iter()
                .map(|s| {
                    let e: Vec<String> = s.elements.iter().map(ToString::to_string).collect();
                    format!(
                        "[{}]{}",
                        e.join(", "),
                        if s.ended_at.is_some() {
                            ""
                        } else {
                            " (never ended)"
                        }
                    )
                })
                .collect();
            let same = runs.len() == streams.len()
                && runs.iter().zip(streams).all(|(g, w)| {
                    g.ended_at.is_some()
                        && g.elements.len() == w.len()
                        && w.iter()
                            .zip(&g.elements)
                            .all(|(v, e)| same_value(v, &e.to_string()))
                });
            if !same {
                let want: Vec<String> = streams
                    .iter()
                    .map(|s| {
                        let e: Vec<String> = s.iter().map(ToString::to_string).collect();
                        format!("[{}]", e.join(", "))
                    })
                    .collect();
                return Err(format!(
                    "expected {result} to give {}, the run gives {}",
                    want.join(" "),
                    got.join(" ")
                ));
            }
        }
        Answer::Output { result, values } => {
            let toks =
                r.report.outputs.get(result).ok_or_else(|| {
                    format!("the answer names result `{result}`, which is not one")
                })?;
            let ty = f
                .results
                .iter()
                .find(|x| x.name == *result)
                .map(|x| x.ty.clone())
                .unwrap_or(handscope_sim::Type::None);
            let got: Vec<String> = toks
                .iter()
                .map(|t| format_value(t.bits, &ty, Radix::Signed))
                .collect();
            let same =
                got.len() == values.len() && values.iter().zip(&got).all(|(v, g)| same_value(v, g));
            if !same {
                return Err(format!(
                    "expected {result} to give {}, the run gives {}",
                    values
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(", "),
                    got.join(", ")
                ));
            }
        }
    }
    Ok(())
}

/// True when `want` (as written in the lesson) is the value the debugger shows as `got`.
fn same_value(want: &Val, got: &str) -> bool {
    match want {
        Val::Int(v) => got.parse::<i64>().is_ok_and(|g| g == *v),
        Val::Text(t) => t.trim() == got,
    }
}

/// Checks every step of `l`; the problems name the lesson file and the step.
pub fn check_lesson(l: &Named) -> Vec<String> {
    let mut out = Vec::new();
    for (i, s) in l.lesson.steps.iter().enumerate() {
        for p in check_step(s) {
            out.push(format!("{}: step {} ({}): {p}", l.origin, i + 1, s.title));
        }
    }
    out
}
