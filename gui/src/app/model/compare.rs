//! The compare view's model: the kernel on screen compiled under another setting (task
//! pipelining, a buffer policy), or another file (`gui A --compare B`: another buffer
//! placement of the same circuit, as `tune -o` writes), run with the same stimulus, its
//! cursor and selection following the main view's, and the figures that tell the two apart
//! (total cycles, the measured initiation interval of every loop).

use handscope_compiler::c::BufferPolicy;

use super::Model;
use crate::app::circuit::Circuit;
use crate::app::describe::Selection;

/// What the other side changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setting {
    /// Task pipelining toggled.
    TaskPipelining,
    /// Buffers on (nearly) every channel.
    BuffersAll,
    /// No buffers at all.
    BuffersNone,
    /// One buffer per back edge (the default policy).
    BuffersCycles,
    /// The other timing profile: `fpga` beside `ideal`, `ideal` beside any other.
    Timing,
    /// The other schedule: the hybrid circuit (static islands where they fit) beside the
    /// dynamic one, the dynamic one beside a hybrid or static one.
    Schedule,
    /// Another file, [`Model::compare_file`] (`gui A --compare B`): for any circuit, MLIR
    /// and Dynamatic's included, such as two buffer placements of one kernel.
    File,
}

impl Setting {
    /// Every setting, in the order `k` steps through them.
    pub const ALL: [Setting; 6] = [
        Setting::TaskPipelining,
        Setting::BuffersAll,
        Setting::BuffersCycles,
        Setting::BuffersNone,
        Setting::Timing,
        Setting::Schedule,
    ];

    /// The options of the other side, from the main side's `base`.
    pub fn apply(
        self,
        base: &handscope_compiler::c::HsOptions,
    ) -> handscope_compiler::c::HsOptions {
        let mut o = base.clone();
        match self {
            Setting::TaskPipelining => o.task_pipelining = !o.task_pipelining,
            Setting::BuffersAll => o.buffers = BufferPolicy::All,
            Setting::BuffersNone => o.buffers = BufferPolicy::None,
            Setting::BuffersCycles => o.buffers = BufferPolicy::Cycles,
            Setting::File => {}
            Setting::Schedule => {
                use handscope_compiler::c::Scheduling;
                o.schedule = if o.schedule == Scheduling::Dynamic {
                    Scheduling::Hybrid
                } else {
                    Scheduling::Dynamic
                }
            }
            Setting::Timing => {
                use handscope_sim::spec::timing::TimingProfile;
                o.timing = if o.timing.is_ideal() {
                    TimingProfile::fpga()
                } else {
                    TimingProfile::ideal()
                }
            }
        }
        o
    }
}

/// How a set of options reads in a header.
pub fn describe_options(o: &handscope_compiler::c::HsOptions) -> String {
    let b = match o.buffers {
        BufferPolicy::None => "none",
        BufferPolicy::Cycles => "cycles",
        BufferPolicy::All => "all",
    };
    let timing = if o.timing.is_ideal() {
        String::new()
    } else {
        format!(", timing {}", o.timing.name())
    };
    let schedule = match o.schedule {
        handscope_compiler::c::Scheduling::Dynamic => "",
        handscope_compiler::c::Scheduling::Hybrid => ", schedule hybrid",
        handscope_compiler::c::Scheduling::Static => ", schedule static",
    };
    format!(
        "buffers {b}, task pipelining {}{timing}{schedule}",
        if o.task_pipelining { "on" } else { "off" }
    )
}

/// A file name without its directories.
fn short_name(name: &str) -> String {
    std::path::Path::new(name)
        .file_name()
        .map_or_else(|| name.to_string(), |n| n.to_string_lossy().into_owned())
}

/// The figures of one side once its run ended.
#[derive(Clone, Debug, PartialEq)]
pub struct Figures {
    /// The run's cycles.
    pub cycles: u64,
    /// How it ended (`done`, `deadlock`, ...).
    pub status: String,
    /// Every loop's name and measured initiation interval.
    pub loops: Vec<(String, Option<f64>)>,
}

impl Figures {
    /// One short line: `28 cycles (done); slowest loop: loop@lock.join, II 7.00`.
    pub fn summary(&self) -> String {
        let slowest = self
            .loops
            .iter()
            .filter_map(|(n, ii)| ii.map(|v| (n, v)))
            .max_by(|a, b| a.1.total_cmp(&b.1));
        match slowest {
            Some((n, v)) => format!(
                "{} cycles ({}); slowest loop: {n}, II {v:.2}",
                self.cycles, self.status
            ),
            None => format!("{} cycles ({})", self.cycles, self.status),
        }
    }

    /// Every figure: `28 cycles (done); loop II: loop@bb1.control_merge0 3.00, ...`.
    pub fn line(&self) -> String {
        let loops: Vec<String> = self
            .loops
            .iter()
            .map(|(n, ii)| format!("{n} {}", ii.map_or("-".into(), |v| format!("{v:.2}"))))
            .collect();
        format!(
            "{} cycles ({}){}",
            self.cycles,
            self.status,
            if loops.is_empty() {
                String::new()
            } else {
                format!("; loop II: {}", loops.join(", "))
            }
        )
    }
}

/// The other side of the compare view.
pub struct Compare {
    /// What it changes.
    pub setting: Setting,
    /// The main side's options, as a header.
    pub base_label: String,
    /// The other side's options, as a header.
    pub other_label: String,
    /// The other side: a model of its own, driven by the main one.
    pub other: Box<Model>,
    /// Figures of (main, other), once both runs ended.
    pub figures: Option<(Figures, Figures)>,
    synced: Option<(u64, Option<Selection>)>,
}

fn figures(m: &Model) -> Option<Figures> {
    let c = m.circuit.as_ref()?;
    let r = m.source.as_ref()?.report()?;
    let t = m.trace()?;
    let tr = handscope_sim::throughput::analyze(&c.func, t);
    Some(Figures {
        cycles: r.cycles,
        status: r.status.as_str().to_string(),
        loops: tr
            .regions
            .iter()
            .filter(|x| x.kind == handscope_sim::throughput::regions::RegionKind::Loop)
            .map(|x| (x.name.clone(), x.measured_ii))
            .collect(),
    })
}

impl Model {
    /// Opens (or, with `None`, closes) the compare view: the C kernel on screen compiled
    /// with `setting` applied to its options, same stimulus. MLIR circuits have no compile
    /// options: the status line says so.
    pub fn open_compare(&mut self, setting: Option<Setting>) {
        let Some(setting) = setting else {
            self.compare = None;
            return;
        };
        let Some(c) = &self.circuit else {
            return;
        };
        if setting == Setting::File {
            self.open_compare_file();
            return;
        }
        if !c.name.ends_with(".c") {
            self.status = "compare: only C kernels have compile settings (task pipelining, \
                           buffers); another file is compared with `handscope gui FILE \
                           --compare OTHER`"
                .into();
            return;
        }
        let opts = setting.apply(&c.options);
        let other = Circuit::from_text_with(
            c.origin.clone(),
            &c.name,
            c.source.clone(),
            &c.stimulus,
            self.function.as_deref(),
            &opts,
        );
        match other {
            Ok(oc) => {
                let labels = (describe_options(&c.options), describe_options(&opts));
                self.status = format!("compare: {}", labels.1);
                self.install_compare(setting, oc, labels);
            }
            Err(e) => self.status = format!("compare: {e:#}"),
        }
    }

    /// The other side from [`Model::compare_file`], with the main side's stimulus and timing
    /// (its own header's stimulus is not used: both sides run the same inputs).
    fn open_compare_file(&mut self) {
        let Some(c) = &self.circuit else {
            return;
        };
        let Some(path) = self.compare_file.clone() else {
            self.status = "compare: no other file (`handscope gui FILE --compare OTHER`)".into();
            return;
        };
        match Circuit::with_stimulus(&path, &c.stimulus, None, &self.timing) {
            Ok(oc) => {
                let base = short_name(&c.name);
                let mut other = short_name(&oc.name);
                if other == base {
                    other = oc.name.clone();
                }
                self.status = format!("compare: {other}");
                self.install_compare(Setting::File, oc, (base, other));
            }
            Err(e) => self.status = format!("compare: {}: {e:#}", path.display()),
        }
    }

    fn install_compare(&mut self, setting: Setting, oc: Circuit, labels: (String, String)) {
        let mut m = Model::empty(self.wake.clone());
        m.engine = self.engine;
        m.look = self.look.clone();
        m.install(oc, false);
        self.compare = Some(Compare {
            setting,
            base_label: labels.0,
            other_label: labels.1,
            other: Box::new(m),
            figures: None,
            synced: None,
        });
    }

    /// Steps the compare view to the next setting (`k`), closing it after the last.
    pub fn cycle_compare(&mut self) {
        let is_c = self
            .circuit
            .as_ref()
            .is_some_and(|c| c.name.ends_with(".c"));
        let mut order: Vec<Setting> = Vec::new();
        if self.compare_file.is_some() {
            order.push(Setting::File);
        }
        if is_c || order.is_empty() {
            order.extend(Setting::ALL);
        }
        let next = match &self.compare {
            None => order.first().copied(),
            Some(c) => order
                .iter()
                .position(|s| *s == c.setting)
                .and_then(|i| order.get(i + 1))
                .copied(),
        };
        self.open_compare(next);
    }

    /// Keeps the other side at the main cursor, with the same node or channel selected (by
    /// stable ID, else by the node's source line), and computes the figures once both runs
    /// ended.
    pub(super) fn sync_compare(&mut self, dt: f32) {
        let Some(mut cmp) = self.compare.take() else {
            return;
        };
        let now = (self.cycle, self.selection);
        if cmp.synced != Some(now) {
            cmp.other.goto(self.cycle);
            let f = self.circuit.as_ref().map(|c| c.func.clone());
            let sel = match (self.selection, f) {
                (Some(Selection::Node(n)), Some(f)) => {
                    let of = cmp.other.circuit.as_ref().map(|c| c.func.clone());
                    let id = &f.nodes[n].id;
                    of.as_ref()
                        .and_then(|of| of.node_by_id(id))
                        .map(Selection::Node)
                        .or_else(|| {
                            let line = f.nodes[n].loc.as_ref()?.line;
                            let oc = cmp.other.circuit.as_ref()?;
                            oc.line_nodes
                                .get(&line)?
                                .first()
                                .map(|&n| Selection::Node(n))
                        })
                }
                (Some(Selection::Channel(ch)), Some(f)) => cmp
                    .other
                    .circuit
                    .as_ref()
                    .and_then(|oc| oc.func.channel_by_name(&f.channels[ch].name))
                    .map(Selection::Channel),
                _ => None,
            };
            cmp.other.select(sel);
            cmp.other.source_line = self.source_line;
            cmp.synced = Some(now);
        }
        cmp.other.look = self.look.clone();
        cmp.other.update(dt);
        if cmp.figures.is_none()
            && self.complete()
            && cmp.other.complete()
            && let (Some(a), Some(b)) = (figures(self), figures(&cmp.other))
        {
            cmp.figures = Some((a, b));
        }
        self.compare = Some(cmp);
    }

    /// Blocks until both sides of the compare view ran to the end (tests).
    #[cfg(test)]
    pub fn settle_compare(&mut self, limit: u64) {
        self.settle_complete(limit);
        if let Some(c) = &mut self.compare {
            c.other.settle_complete(limit);
        }
        self.update(0.0);
    }
}
