//! A loaded circuit: source text, the flattened function the engine runs, its stimulus, and
//! the map between source lines and nodes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context as _;
use handscope_sim::session::{Session, StimulusArgs};
use handscope_sim::spec::timing::TimingProfile;
use handscope_sim::{Function, NodeId};

/// Where a circuit came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// An embedded gallery example (index into [`crate::examples::CIRCUITS`]).
    Example(usize),
    /// A file on disk.
    File(PathBuf),
}

/// A circuit ready to simulate and draw.
#[derive(Clone, Debug)]
pub struct Circuit {
    /// Where it came from.
    pub origin: Origin,
    /// Display name (file name).
    pub name: String,
    /// The source text (MLIR or C).
    pub source: String,
    /// The flattened function (what the engine runs and the view draws).
    pub func: Arc<Function>,
    /// The stimulus arguments in effect.
    pub stimulus: StimulusArgs,
    /// The function with [`Circuit::stimulus`] bound: what the engine runs.
    pub session: Session,
    /// Nodes located on each 1-based source line.
    pub line_nodes: BTreeMap<u32, Vec<NodeId>>,
    /// What `handscope check` says about the function (errors first, then warnings).
    pub problems: Vec<CheckNote>,
    /// Why the circuit cannot be simulated (a stimulus that does not bind); the graph is
    /// still drawn.
    pub sim_error: Option<String>,
    /// The options a C kernel was compiled with (buffer policy, task pipelining).
    pub options: handscope_compiler::c::HsOptions,
}

/// One finding of `check`, with the nodes it names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckNote {
    /// An error (else a warning).
    pub error: bool,
    /// The message, with the rule (`combinational-cycle: ...`).
    pub text: String,
    /// The nodes involved, most relevant first.
    pub nodes: Vec<NodeId>,
    /// The 1-based source line of the first located node.
    pub line: Option<u32>,
}

/// The findings of `check` on `f`, errors first.
pub fn check_notes(f: &Function) -> Vec<CheckNote> {
    let r = handscope_sim::verify::verify(f);
    let note = |p: &handscope_sim::verify::Problem, error: bool| CheckNote {
        error,
        text: format!("{}: {}", p.rule.code(), p.message),
        nodes: p.nodes.iter().filter_map(|n| f.node_by_id(&n.id)).collect(),
        line: p.nodes.iter().find_map(|n| n.loc.as_ref().map(|l| l.line)),
    };
    r.errors
        .iter()
        .map(|p| note(p, true))
        .chain(r.warnings.iter().map(|p| note(p, false)))
        .collect()
}

/// Cycles without transfers after which a run counts as deadlocked.
pub const DEADLOCK_WINDOW: u64 = 16;

/// The compile options of a C kernel under `timing` (default buffer policy).
fn timed(timing: &TimingProfile) -> handscope_compiler::c::HsOptions {
    handscope_compiler::c::HsOptions {
        timing: timing.clone(),
        ..crate::load::c_options()
    }
}

impl Circuit {
    /// Loads gallery example `index` with the stimulus of its `// sim:` header, timed by
    /// `timing`.
    pub fn from_example(index: usize, timing: &TimingProfile) -> anyhow::Result<Circuit> {
        let ex = crate::examples::CIRCUITS
            .get(index)
            .context("no such example")?;
        Self::from_text(
            Origin::Example(index),
            ex.name,
            ex.text.to_string(),
            &StimulusArgs::default(),
            None,
            timing,
        )
    }

    /// Loads a file from disk; `over` replaces stimulus entries of its `// sim:` header;
    /// `function` picks the function to run (default: the only or last one with a body).
    pub fn from_file(
        path: &Path,
        over: &StimulusArgs,
        function: Option<&str>,
        timing: &TimingProfile,
    ) -> anyhow::Result<Circuit> {
        Self::from_path(path, over, function, timing, true)
    }

    /// Loads a file whose run is replayed from a trace: the stimulus is only `given` (the
    /// command line's), never the file's header, which describes some other run.
    pub fn for_replay(
        path: &Path,
        given: &StimulusArgs,
        function: Option<&str>,
        timing: &TimingProfile,
    ) -> anyhow::Result<Circuit> {
        Self::from_path(path, given, function, timing, false)
    }

    /// Reads `path` and builds its circuit with exactly `stimulus` (its header's is not read):
    /// the other side of a compare view, which runs the main side's inputs.
    pub fn with_stimulus(
        path: &Path,
        stimulus: &StimulusArgs,
        function: Option<&str>,
        timing: &TimingProfile,
    ) -> anyhow::Result<Circuit> {
        Self::from_path(path, stimulus, function, timing, false)
    }

    /// Reads `path` and builds its circuit, with the header's stimulus when `use_header`.
    fn from_path(
        path: &Path,
        over: &StimulusArgs,
        function: Option<&str>,
        timing: &TimingProfile,
        use_header: bool,
    ) -> anyhow::Result<Circuit> {
        let text = handscope_sim::input::read_text(path)?;
        Self::build(
            Origin::File(path.to_path_buf()),
            &path.display().to_string(),
            text,
            over,
            function,
            &timed(timing),
            use_header,
        )
    }

    /// Parses `text` named `name`. The stimulus is the file's header: its `// sim:` lines,
    /// else (C kernels) its first `// RUN:` line when that fits the parameters; `over`
    /// replaces entries of the same name. `timing` sizes a C kernel's buffers and puts its
    /// pipelines into the circuit.
    pub fn from_text(
        origin: Origin,
        name: &str,
        text: String,
        over: &StimulusArgs,
        function: Option<&str>,
        timing: &TimingProfile,
    ) -> anyhow::Result<Circuit> {
        Self::from_text_with(origin, name, text, over, function, &timed(timing))
    }

    /// Like [`Circuit::from_text`], compiling a C kernel with `opts` (buffer policy, task
    /// pipelining, timing profile, whose pipelines are put into the circuit).
    pub fn from_text_with(
        origin: Origin,
        name: &str,
        text: String,
        over: &StimulusArgs,
        function: Option<&str>,
        opts: &handscope_compiler::c::HsOptions,
    ) -> anyhow::Result<Circuit> {
        Self::build(origin, name, text, over, function, opts, true)
    }

    fn build(
        origin: Origin,
        name: &str,
        text: String,
        over: &StimulusArgs,
        function: Option<&str>,
        opts: &handscope_compiler::c::HsOptions,
        use_header: bool,
    ) -> anyhow::Result<Circuit> {
        let loaded = crate::load::load_text_with(Path::new(name), &text, function, opts)?;
        let mut session = Session::open(&loaded.module, loaded.func.as_deref())?;
        session.apply_timing(&opts.timing)?;
        // The one header rule (`Header::stimulus`), as every command that runs a file reads
        // it; a header that does not fit the function stops the simulation, not the drawing.
        let from_header = if use_header {
            loaded
                .header
                .stimulus(session.function(), loaded.is_c)
                .map(|h| h.args)
                .map_err(|e| format!("cannot simulate: the header of {name}: {e}"))
        } else {
            Ok(StimulusArgs::default())
        };
        let stimulus = from_header
            .as_ref()
            .map_or_else(|_| over.clone(), |h| h.overridden_by(over));
        // A stimulus that does not bind stops the simulation, not the drawing.
        let bound = session.set_deadlock_window(DEADLOCK_WINDOW).bind(&stimulus);
        let sim_error = match (from_header, bound) {
            (Err(e), _) => Some(e),
            (Ok(_), Err(e)) => Some(format!("cannot simulate: {e}")),
            (Ok(_), Ok(_)) => None,
        };
        let flat = session.shared_function();
        let problems = check_notes(&flat);
        // The source panel shows the file itself: a C kernel's nodes that come from a header
        // it includes are located in the header, not on the kernel's lines.
        let own_file = |l: &handscope_sim::SourceLoc| !name.ends_with(".c") || *l.file == *name;
        let mut line_nodes: BTreeMap<u32, Vec<NodeId>> = BTreeMap::new();
        for (id, n) in flat.nodes.iter() {
            if let Some(l) = n.loc.as_ref().filter(|l| own_file(l)) {
                line_nodes.entry(l.line).or_default().push(id);
            }
        }
        Ok(Circuit {
            origin,
            name: Path::new(name)
                .file_name()
                .map_or(name.to_string(), |s| s.to_string_lossy().into_owned()),
            source: text,
            func: flat,
            stimulus,
            session,
            line_nodes,
            problems,
            sim_error,
            options: opts.clone(),
        })
    }

    /// The path being watched for live reload, if any.
    pub fn path(&self) -> Option<&Path> {
        match &self.origin {
            Origin::File(p) => Some(p),
            Origin::Example(_) => None,
        }
    }

    /// Source line (1-based) of node `n` in the file on screen (`None` for a node located in
    /// a file the kernel includes).
    pub fn lines_of(&self, n: NodeId) -> Option<u32> {
        let line = self.func.nodes[n].loc.as_ref()?.line;
        self.line_nodes
            .get(&line)
            .is_some_and(|ns| ns.contains(&n))
            .then_some(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use handscope_sim::session::header::{Header, run_stimulus};

    #[test]
    fn c_kernels_in_the_gallery_run_their_first_run_line() {
        let mut n = 0;
        for (i, ex) in crate::examples::CIRCUITS.iter().enumerate() {
            if !ex.name.ends_with(".c") {
                continue;
            }
            n += 1;
            let c = Circuit::from_example(i, &TimingProfile::ideal())
                .unwrap_or_else(|e| panic!("{}: {e:#}", ex.name));
            assert!(!c.stimulus.is_empty(), "{}: no stimulus from RUN", ex.name);
            let mut sim = c
                .session
                .simulation()
                .unwrap_or_else(|e| panic!("{}: {e}", ex.name));
            let r = sim.run(1_000_000);
            assert_eq!(
                r.status,
                handscope_sim::report::Status::Done,
                "{}: {:?}",
                ex.name,
                r.deadlock
            );
        }
        assert!(n >= 20, "{n} kernels in the gallery");
    }

    #[test]
    fn reads_run_header_of_c_kernels() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../examples/kernels/carried_dep.c"
        ))
        .unwrap();
        let m = handscope_compiler::c::compile_to_handshake(
            &text,
            "carried_dep.c",
            None,
            &Default::default(),
        )
        .unwrap();
        let a = run_stimulus(&m.functions[0], Header::parse(&text).runs()[0]).unwrap();
        assert_eq!(a.inputs, ["k=3"]);
        assert_eq!(a.mems, ["a=5"]);
    }

    #[test]
    fn loads_every_simulable_example() {
        let first = Circuit::from_example(0, &TimingProfile::ideal()).expect("first example loads");
        assert!(first.stimulus.inputs.iter().any(|s| s.starts_with("n=")));
        assert!(!first.line_nodes.is_empty());
    }
}
