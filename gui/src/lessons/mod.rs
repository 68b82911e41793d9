//! Guided lessons: the file format (`assets/lessons/*.toml`, documented in `docs/lessons.md`),
//! the lessons built into the binary, loading a step's circuit, and checking that every
//! step's expected answer holds by simulating it (`handscope lesson --check`).

pub mod check;

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context as _, bail};
use serde::Deserialize;

use crate::app::circuit::{Circuit, Origin};

/// One lesson file: a title, a summary and its steps in order.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Lesson {
    /// The lesson's title.
    pub title: String,
    /// One or two sentences on what the lesson teaches.
    pub summary: String,
    /// The steps (`[[step]]` tables), at least one.
    #[serde(rename = "step")]
    pub steps: Vec<Step>,
}

/// One step: a circuit at a cycle, what to look at, text, a question and its answer.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// A short heading.
    pub title: String,
    /// The circuit: the file name of an example under `examples/circuits/` (`.mlir`) or
    /// `examples/kernels/` (`.c`), as the gallery lists it.
    pub file: String,
    /// `--in NAME=TOKENS` entries replacing the file's header stimulus of the same name.
    #[serde(default)]
    pub inputs: Vec<String>,
    /// `--mem NAME=VALUES` entries, as `inputs`.
    #[serde(default)]
    pub mems: Vec<String>,
    /// `--ready NAME=POLICY` entries, as `inputs`.
    #[serde(default)]
    pub ready: Vec<String>,
    /// C kernels: compile with task pipelining (`compile --task-pipelining`).
    #[serde(default)]
    pub task_pipelining: bool,
    /// C kernels: the buffer policy (`none`, `cycles` (the default) or `all`).
    #[serde(default)]
    pub buffers: Option<String>,
    /// C kernels: the memory ordering (`serial` (the default) or `lsq`, `--memory`).
    #[serde(default)]
    pub memory: Option<String>,
    /// C kernels: the schedule (`dynamic` (the default), `hybrid` or `static`,
    /// `--schedule`).
    #[serde(default)]
    pub schedule: Option<String>,
    /// The timing profile the circuit is built for and runs under (`ideal` (the default)
    /// or `fpga`, `--timing`).
    #[serde(default)]
    pub timing: Option<String>,
    /// Buffer slots added on channels (channel name to slots), as `handscope tune` adds them.
    #[serde(default)]
    pub slots: BTreeMap<String, u32>,
    /// The cycle the debugger moves to.
    pub cycle: u64,
    /// Node IDs and channel names to highlight (the first node is also selected).
    #[serde(default)]
    pub highlight: Vec<String>,
    /// The teaching text (plain text; blank lines separate paragraphs).
    pub text: String,
    /// A question for the reader.
    #[serde(default)]
    pub question: Option<String>,
    /// The question's expected answer, checked by simulation.
    #[serde(default)]
    pub answer: Option<Answer>,
}

/// A number or a text, as a value may be written in a lesson file.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum Val {
    /// An integer (compared with the signed reading of the channel's bits; `i1`: 0 or 1).
    Int(i64),
    /// A value as the debugger writes it (`1.5`, `nan`, `0x3f`).
    Text(String),
}

impl std::fmt::Display for Val {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Val::Int(v) => write!(f, "{v}"),
            Val::Text(t) => f.write_str(t),
        }
    }
}

/// An expected answer that a simulation of the step decides.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Answer {
    /// The handshake state of a channel at the step's cycle: `transfer`, `stall`, `accept`
    /// or `idle`.
    ChannelState {
        /// The channel's name.
        channel: String,
        /// The state.
        state: String,
    },
    /// The value a channel carries (valid) at the step's cycle.
    ChannelValue {
        /// The channel's name.
        channel: String,
        /// The value.
        value: Val,
    },
    /// How many tokens crossed a channel in cycles `0..=cycle` of the step.
    Transfers {
        /// The channel's name.
        channel: String,
        /// The count.
        count: u64,
    },
    /// The cycles of the whole run (the report's `cycles`).
    TotalCycles {
        /// The count.
        cycles: u64,
    },
    /// How the run ends: `done`, `deadlock` or `max_cycles`.
    Status {
        /// The status.
        status: String,
    },
    /// The elements of a stream result's streams over the whole run, stream after stream,
    /// each ended (`docs/streams.md`).
    Stream {
        /// The result's name.
        result: String,
        /// Per stream, its elements in order.
        streams: Vec<Vec<Val>>,
    },
    /// The tokens a result gives over the whole run.
    Output {
        /// The result's name.
        result: String,
        /// Its values in order.
        values: Vec<Val>,
    },
}

impl Answer {
    /// The answer as a sentence (what the lesson panel shows once asked).
    pub fn sentence(&self, cycle: u64) -> String {
        match self {
            Answer::ChannelState { channel, state } => {
                format!("{channel} is in state `{state}` at cycle {cycle}.")
            }
            Answer::ChannelValue { channel, value } => {
                format!("{channel} carries {value} at cycle {cycle}.")
            }
            Answer::Transfers { channel, count } => format!(
                "{count} token{} crossed {channel} in cycles 0 to {cycle}.",
                if *count == 1 { "" } else { "s" }
            ),
            Answer::TotalCycles { cycles } => format!("The run takes {cycles} cycles."),
            Answer::Status { status } => format!("The run ends with status `{status}`."),
            Answer::Stream { result, streams } => format!(
                "{result} gives {}.",
                streams
                    .iter()
                    .map(|s| format!(
                        "[{}] and ends",
                        s.iter()
                            .map(ToString::to_string)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                    .collect::<Vec<_>>()
                    .join(", then ")
            ),
            Answer::Output { result, values } => format!(
                "{result} gives {}.",
                values
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// A lesson file built into the binary: its name (the file stem) and text.
pub struct Builtin {
    /// The file stem (`01-handshake`).
    pub name: &'static str,
    /// The TOML text.
    pub text: &'static str,
}

macro_rules! builtin {
    ($($name:literal),* $(,)?) => {
        /// Every lesson under `assets/lessons/`, in teaching order.
        pub const BUILTIN: &[Builtin] = &[$(Builtin {
            name: $name,
            text: include_str!(concat!("../../../assets/lessons/", $name, ".toml")),
        }),*];
    };
}

builtin!(
    "01-handshake",
    "02-fork-join",
    "03-buffers",
    "04-loop",
    "05-deadlock",
    "06-memory-order",
    "07-task-pipelining",
    "08-reconvergent-buffers",
    "09-dynamatic",
    "10-streams",
    "11-static-islands",
);

/// Parses a lesson file's text; `origin` names it in errors.
pub fn parse(text: &str, origin: &str) -> anyhow::Result<Lesson> {
    let l: Lesson = toml::from_str(text).map_err(|e| {
        let at = e
            .span()
            .map(|s| {
                let line = text[..s.start.min(text.len())].matches('\n').count() + 1;
                format!(":{line}")
            })
            .unwrap_or_default();
        anyhow::anyhow!("{origin}{at}: {}", e.message())
    })?;
    if l.steps.is_empty() {
        bail!("{origin}: a lesson needs at least one [[step]]");
    }
    Ok(l)
}

/// A lesson and the name it goes by (file stem or path).
#[derive(Clone, Debug, PartialEq)]
pub struct Named {
    /// Where it came from (`assets/lessons/01-handshake.toml` or the path given).
    pub origin: String,
    /// The lesson.
    pub lesson: Lesson,
}

/// Finds a lesson: a built-in one by file stem, with or without its number (`handshake`,
/// `01-handshake`), else a `.toml` file on disk.
pub fn find(name: &str) -> anyhow::Result<Named> {
    let stem = name.trim_end_matches(".toml");
    let hit = BUILTIN.iter().find(|b| {
        b.name == stem
            || b.name
                .split_once('-')
                .is_some_and(|(n, rest)| rest == stem || n == stem)
    });
    if let Some(b) = hit {
        let origin = format!("assets/lessons/{}.toml", b.name);
        return Ok(Named {
            lesson: parse(b.text, &origin)?,
            origin,
        });
    }
    let p = Path::new(name);
    if p.exists() {
        let text = handscope_sim::input::read_text(p)?;
        let origin = p.display().to_string();
        return Ok(Named {
            lesson: parse(&text, &origin)?,
            origin,
        });
    }
    bail!(
        "no lesson `{name}`; the lessons are: {}",
        BUILTIN
            .iter()
            .map(|b| b.name)
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// Every built-in lesson, parsed.
pub fn all() -> anyhow::Result<Vec<Named>> {
    BUILTIN.iter().map(|b| find(b.name)).collect()
}

/// What identifies the circuit of a step (steps with the same key share one loaded circuit).
pub fn circuit_key(s: &Step) -> String {
    format!(
        "{}|{:?}|{:?}|{:?}|{}|{:?}|{:?}|{:?}",
        s.file, s.inputs, s.mems, s.ready, s.task_pipelining, s.buffers, s.memory, s.slots
    )
}

/// Loads the circuit of step `s`: the example file, compiled with the step's options, its
/// stimulus overridden by the step's, and the step's extra slots applied.
pub fn step_circuit(s: &Step) -> anyhow::Result<Circuit> {
    let (index, ex) = crate::examples::CIRCUITS
        .iter()
        .enumerate()
        .find(|(_, e)| e.name == s.file)
        .with_context(|| format!("`{}` is not an example in the gallery", s.file))?;
    let mut opts = handscope_compiler::c::HsOptions {
        task_pipelining: s.task_pipelining,
        ..Default::default()
    };
    if let Some(b) = &s.buffers {
        use handscope_compiler::c::BufferPolicy;
        opts.buffers = match b.as_str() {
            "none" => BufferPolicy::None,
            "cycles" => BufferPolicy::Cycles,
            "all" => BufferPolicy::All,
            other => bail!("unknown buffer policy `{other}` (none, cycles or all)"),
        };
    }
    if let Some(m) = &s.memory {
        use handscope_compiler::c::MemoryOrdering;
        opts.memory = match m.as_str() {
            "serial" => MemoryOrdering::Serial,
            "lsq" => MemoryOrdering::Lsq,
            "queue" => MemoryOrdering::Queue,
            other => bail!("unknown memory ordering `{other}` (serial, queue or lsq)"),
        };
    }
    if let Some(m) = &s.schedule {
        use handscope_compiler::c::Scheduling;
        opts.schedule = match m.as_str() {
            "dynamic" => Scheduling::Dynamic,
            "hybrid" => Scheduling::Hybrid,
            "static" => Scheduling::Static,
            other => bail!("unknown schedule `{other}` (dynamic, hybrid or static)"),
        };
    }
    if let Some(t) = &s.timing {
        use handscope_sim::spec::timing::TimingProfile;
        opts.timing = match t.as_str() {
            "ideal" => TimingProfile::ideal(),
            "fpga" => TimingProfile::fpga(),
            other => bail!("unknown timing profile `{other}` (ideal or fpga)"),
        };
    }
    if (s.task_pipelining || s.buffers.is_some() || s.memory.is_some() || s.schedule.is_some())
        && !s.file.ends_with(".c")
    {
        bail!("`task_pipelining`, `buffers`, `memory` and `schedule` apply to C kernels only");
    }
    let over = handscope_sim::session::StimulusArgs {
        inputs: s.inputs.clone(),
        mems: s.mems.clone(),
        ready: s.ready.clone(),
    };
    let mut c = Circuit::from_text_with(
        Origin::Example(index),
        ex.name,
        ex.text.to_string(),
        &over,
        None,
        &opts,
    )?;
    if !s.slots.is_empty() {
        let changes: Vec<_> = s
            .slots
            .iter()
            .map(
                |(channel, &slots)| handscope_sim::throughput::tune::SlotChange {
                    channel: channel.clone(),
                    slots,
                },
            )
            .collect();
        let g = handscope_sim::throughput::tune::apply(&c.func, &changes)?;
        c.session = c.session.with_function(g);
        c.func = c.session.shared_function();
    }
    Ok(c)
}
