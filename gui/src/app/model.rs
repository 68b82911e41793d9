//! The debugger's state without any drawing: the circuit, the trace source, the cursor, the
//! selection, breakpoints, playback and the deadlock view. The UI modules read and change it;
//! tests drive it directly too.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use cranelift_entity::EntityRef;
use handscope_sim::deadlock::DeadlockReport;
use handscope_sim::invocation::TraceTagger;
use handscope_sim::session::StimulusArgs;
use handscope_sim::trace::Trace;
use handscope_sim::{ChannelId, NodeId};

use super::binding::Binding;
use super::breakpoints::{Breakpoint, Dir, Found, search};
use super::circuit::Circuit;
use super::cycle::CycleState;
use super::describe::{self, Selection};
use super::history::HistoryCache;
use super::layout::{DEFAULT_PANEL, Engine, Layout, LayoutJob, P2};
use super::reload::Watcher;
use super::scene::{self, Options, Scene};
use super::style::{Palette, Radix, Theme};
use super::trace_source::TraceSource;

/// How much the graph panel's aspect ratio must change for [`Model::reshape_for`] to lay the
/// graph out again.
const RESHAPE_RATIO: f32 = 1.4;

/// Trace cycles the invocation tags may read for one cursor move: a jump far into a long
/// trace leaves its moving tokens in the transfer colour instead of stalling the frame, and
/// the tags catch up over the next moves.
const TAG_BUDGET_CYCLES: u64 = 200_000;

mod compare;
mod lesson;
mod memory;
pub use compare::{Compare, Setting};
pub use lesson::LessonView;
pub use memory::MemoryContents;

/// What to open at start.
#[derive(Clone, Debug, PartialEq)]
pub enum Start {
    /// A gallery example.
    Example(usize),
    /// A gallery example under a timing profile (`--timing`).
    TimedExample(usize, handscope_sim::spec::timing::TimingProfile),
    /// A file, optional VCD, stimulus overrides, the function to run (default: the only or
    /// last one with a body), the timing profile.
    File(
        PathBuf,
        Option<PathBuf>,
        StimulusArgs,
        Option<String>,
        handscope_sim::spec::timing::TimingProfile,
    ),
    /// A lesson, at a step (0-based).
    Lesson(Box<crate::lessons::Named>, usize),
}

/// A callback that asks the UI to repaint.
pub type Wake = Arc<dyn Fn() + Send + Sync>;

/// Display options.
#[derive(Clone, Debug, PartialEq)]
pub struct Look {
    /// Light or dark.
    pub theme: Theme,
    /// Okabe-Ito channel colours.
    pub colour_blind: bool,
    /// Large fonts for projectors.
    pub presentation: bool,
    /// Value format.
    pub radix: Radix,
    /// Values on edges.
    pub values: bool,
}

impl Default for Look {
    fn default() -> Self {
        Look {
            theme: Theme::Light,
            colour_blind: false,
            presentation: false,
            radix: Radix::Auto,
            values: true,
        }
    }
}

impl Look {
    /// The palette in effect.
    pub fn palette(&self) -> Palette {
        Palette::new(self.theme, self.colour_blind)
    }
}

/// The debugger model.
pub struct Model {
    /// The circuit on screen (the last one that compiled).
    pub circuit: Option<Circuit>,
    /// The last load or compile error (shown inline; the last good circuit stays).
    pub error: Option<String>,
    /// Stimulus overrides from the command line.
    pub overrides: StimulusArgs,
    /// The function to run (`--func`), else the default one.
    pub function: Option<String>,
    /// The timing profile circuits open with (`--timing`, the toolbar's selector).
    pub timing: handscope_sim::spec::timing::TimingProfile,
    /// VCD to replay instead of simulating.
    pub vcd: Option<PathBuf>,
    /// The trace source.
    pub source: Option<TraceSource>,
    binding: Option<Binding>,
    /// Invocation tags of the trace's tokens (made with the binding), for the moving tokens.
    tagger: Option<TraceTagger>,
    layout_job: Option<LayoutJob>,
    /// The layout, once computed.
    pub layout: Option<Arc<Layout>>,
    /// Why there is no layout (the layout thread failed).
    pub layout_error: Option<String>,
    /// Layout engine.
    pub engine: Engine,
    /// The graph panel (width, height in points) the layout shown, or being computed, is
    /// shaped for.
    pub graph_panel: P2,
    /// The cursor.
    pub cycle: u64,
    /// A cycle asked for that does not exist yet (the engine is computing it).
    pub want: Option<u64>,
    cs: Option<CycleState>,
    /// Selection.
    pub selection: Option<Selection>,
    /// Source line picked in the source panel.
    pub source_line: Option<u32>,
    /// Display options.
    pub look: Look,
    /// Playing.
    pub playing: bool,
    /// Playback speed in cycles per second.
    pub speed: f32,
    play_acc: f32,
    /// Time since the last forward step (for the moving tokens), seconds.
    pub anim: f32,
    /// Breakpoints.
    pub breakpoints: Vec<Breakpoint>,
    pending: Option<(Dir, u64)>,
    /// A one-line status message.
    pub status: String,
    /// Channels shown in the waveform panel.
    pub waves: Vec<ChannelId>,
    /// Waveform markers.
    pub markers: Vec<u64>,
    /// Nodes a remote client added to the displayed items (`handscope gui --wcp`).
    pub wave_nodes: Vec<NodeId>,
    /// A waveform range a remote client asked for, for the panel to apply once:
    /// `Some(Some((first, last)))` shows those cycles, `Some(None)` fits the run.
    pub wave_range: Option<Option<(u64, u64)>>,
    /// Channel histories.
    pub history: HistoryCache,
    /// Transfers per cycle (activity sparkline).
    pub activity: Vec<u32>,
    /// The deadlock view is open.
    pub deadlock_view: bool,
    /// The throughput view (stall heat map, critical cycle) is on.
    pub throughput_view: bool,
    /// Its marks, for the trace length they were computed at.
    throughput_x: Option<(u64, scene::ThroughputMarks)>,
    /// A node the graph view should center on next frame (deadlock steps, search, source
    /// lines).
    pub focus: Option<NodeId>,
    deadlock_opened: bool,
    /// The deadlock explanation and its graph marks, built once when the report arrives.
    deadlock_x: Option<(Arc<describe::DeadlockExplanation>, describe::DeadlockMarks)>,
    /// Search text (`/`).
    pub search: String,
    /// Live-reload watcher.
    pub watcher: Option<Watcher>,
    wake: Wake,
    scene: Option<(u64, Options, Arc<Scene>)>,
    /// Bumped on every reload (the view refits on a new graph).
    pub generation: u64,
    /// A VCD being written that the view follows (`--live`).
    pub follow: Option<Following>,
    /// The outcome of "Open in Surfer", from its thread.
    surfer: Option<crossbeam_channel::Receiver<String>>,
    /// The lesson being followed, if any.
    pub lesson: Option<LessonView>,
    /// The memory contents shown last (node, contents at a cycle).
    mem_cache: Option<(NodeId, MemoryContents)>,
    /// The compare view: the same kernel under another setting, cursor and selection
    /// synchronized.
    pub compare: Option<Compare>,
    /// The file the compare view can put beside the circuit (`gui FILE --compare OTHER`).
    pub compare_file: Option<std::path::PathBuf>,
}

/// A followed VCD: the thread that reads it, whether the cursor stays at the newest cycle,
/// and whether the writer has finished.
pub struct Following {
    /// Parses what the simulator appends, off the UI thread.
    pub job: super::follow_job::FollowJob,
    /// Keep the cursor at the newest cycle.
    pub newest: bool,
    /// The writer finished and the whole file is shown (or could not be read).
    pub finished: bool,
}

/// How long a breakpoint search may take per frame.
const SEARCH_BUDGET: Duration = Duration::from_millis(12);

impl Model {
    /// A model showing `start`; `wake` requests a repaint from other threads.
    pub fn new(start: Start, wake: Wake) -> Model {
        let mut m = Model::empty(wake);
        match start {
            Start::Example(i) => m.open_example(i),
            Start::TimedExample(i, timing) => {
                m.timing = timing;
                m.open_example(i);
            }
            Start::File(p, vcd, over, function, timing) => {
                m.timing = timing;
                m.overrides = over;
                m.function = function;
                m.vcd = vcd;
                m.open_file(&p);
            }
            Start::Lesson(l, step) => m.open_lesson(*l, step),
        }
        m
    }

    /// A model showing nothing yet.
    fn empty(wake: Wake) -> Model {
        Model {
            circuit: None,
            error: None,
            overrides: StimulusArgs::default(),
            timing: handscope_sim::spec::timing::TimingProfile::ideal(),
            function: None,
            vcd: None,
            source: None,
            binding: None,
            tagger: None,
            layout_job: None,
            layout: None,
            layout_error: None,
            engine: if std::env::var("HANDSCOPE_LAYOUT").as_deref() == Ok("sugiyama") {
                Engine::Sugiyama
            } else {
                Engine::Auto
            },
            graph_panel: DEFAULT_PANEL,
            cycle: 0,
            want: None,
            cs: None,
            selection: None,
            source_line: None,
            look: Look::default(),
            playing: false,
            speed: 4.0,
            play_acc: 0.0,
            anim: 1.0,
            breakpoints: Vec::new(),
            pending: None,
            status: String::new(),
            waves: Vec::new(),
            markers: Vec::new(),
            wave_nodes: Vec::new(),
            wave_range: None,
            history: HistoryCache::default(),
            activity: Vec::new(),
            deadlock_view: false,
            throughput_view: false,
            throughput_x: None,
            focus: None,
            deadlock_opened: false,
            deadlock_x: None,
            search: String::new(),
            watcher: None,
            wake,
            scene: None,
            generation: 0,
            follow: None,
            surfer: None,
            lesson: None,
            mem_cache: None,
            compare: None,
            compare_file: None,
        }
    }

    /// Switches the timing profile and reopens the circuit on screen with it (a file keeps
    /// its cursor and selection, as on a reload).
    pub fn set_timing(&mut self, timing: handscope_sim::spec::timing::TimingProfile) {
        if timing == self.timing {
            return;
        }
        self.timing = timing;
        match self.circuit.as_ref().map(|c| c.origin.clone()) {
            Some(crate::app::circuit::Origin::Example(i)) => self.open_example(i),
            Some(crate::app::circuit::Origin::File(_)) => {
                self.reload();
                self.status = format!("timing: {}", self.timing.name());
            }
            None => {}
        }
    }

    /// Opens gallery example `i`.
    pub fn open_example(&mut self, i: usize) {
        self.watcher = None;
        match Circuit::from_example(i, &self.timing) {
            Ok(c) => self.install(c, false),
            Err(e) => self.error = Some(format!("{e:#}")),
        }
    }

    /// The circuit of file `p`: with a VCD to replay, the stimulus is only the command
    /// line's (the file's header describes another run).
    fn load_file(&self, p: &std::path::Path) -> anyhow::Result<Circuit> {
        if self.vcd.is_some() {
            Circuit::for_replay(p, &self.overrides, self.function.as_deref(), &self.timing)
        } else {
            Circuit::from_file(p, &self.overrides, self.function.as_deref(), &self.timing)
        }
    }

    /// The window title: the file, and for a replay the trace it shows.
    pub fn title(&self) -> String {
        let Some(c) = &self.circuit else {
            return "Handscope".into();
        };
        let what = match (&self.vcd, &self.source) {
            (Some(v), Some(TraceSource::Replay { .. })) => format!(
                " — replay of {}",
                v.file_name().map_or(v.display().to_string(), |n| n
                    .to_string_lossy()
                    .into_owned())
            ),
            _ => String::new(),
        };
        let lesson = self.lesson.as_ref().map_or(String::new(), |l| {
            format!(" — lesson: {}", l.named.lesson.title)
        });
        format!("Handscope — {}{what}{lesson}", c.name)
    }

    /// True when the view shows a trace replayed from a file (not a simulation).
    pub fn replaying(&self) -> bool {
        matches!(self.source, Some(TraceSource::Replay { .. }))
    }

    /// The trace file being replayed (a finished one, or the one followed live); `None` when
    /// the run is the engine's.
    pub fn replayed_trace(&self) -> Option<&std::path::Path> {
        if !self.replaying() {
            return None;
        }
        self.vcd
            .as_deref()
            .or_else(|| self.follow.as_ref().map(|f| f.job.path()))
    }

    /// Opens a file (and watches it).
    pub fn open_file(&mut self, p: &std::path::Path) {
        match self.load_file(p) {
            Ok(c) => self.install(c, false),
            Err(e) => self.error = Some(load_error(p, &e)),
        }
        let mut paths = vec![p.to_path_buf()];
        paths.extend(self.vcd.clone());
        self.watcher = Watcher::new(&paths, self.wake.clone());
    }

    /// Re-reads the open file after a change on disk, keeping cursor and selection; on error
    /// the last good circuit stays and the error is shown.
    pub fn reload(&mut self) {
        let Some(p) = self
            .circuit
            .as_ref()
            .and_then(|c| c.path().map(|p| p.to_path_buf()))
        else {
            return;
        };
        match self.load_file(&p) {
            Ok(c) => {
                self.install(c, true);
                self.status = format!("reloaded {}", p.display());
            }
            Err(e) => self.error = Some(load_error(&p, &e)),
        }
    }

    /// What wakes the thread that owns the model (a repaint, `serve`'s loop).
    pub fn wake(&self) -> Wake {
        self.wake.clone()
    }

    /// A job that loads file `p` as [`Model::open_file`] would, with `vcd` the trace to
    /// replay (or none), runnable on another thread so that the thread that owns the model
    /// goes on answering (WCP's `load`); [`Model::finish_open`] installs what it gives.
    pub fn prepare_open(
        &self,
        p: &std::path::Path,
        vcd: Option<std::path::PathBuf>,
    ) -> impl FnOnce() -> Prepared + Send + 'static {
        let (p, over, function, timing) = (
            p.to_path_buf(),
            self.overrides.clone(),
            self.function.clone(),
            self.timing.clone(),
        );
        move || {
            let circuit = if vcd.is_some() {
                Circuit::for_replay(&p, &over, function.as_deref(), &timing)
            } else {
                Circuit::from_file(&p, &over, function.as_deref(), &timing)
            };
            let replay = match (&circuit, &vcd) {
                (Ok(c), Some(v)) => Some(load_vcd(v, c, !over.is_empty())),
                _ => None,
            };
            Prepared {
                path: p,
                vcd,
                circuit,
                replay,
            }
        }
    }

    /// Shows what [`Model::prepare_open`] loaded, as [`Model::open_file`] does (`keep`: as a
    /// reload, keeping cursor, selection and waves). Returns the error, leaving the model as
    /// it was, when the circuit or its trace did not load.
    pub fn finish_open(&mut self, prepared: Prepared, keep: bool) -> Result<(), String> {
        let Prepared {
            path,
            vcd,
            circuit,
            replay,
        } = prepared;
        let c = circuit.map_err(|e| load_error(&path, &e))?;
        let replay = match replay {
            Some(Err(e)) => return Err(format!("{e:#}")),
            r => r,
        };
        self.vcd = vcd;
        self.error = None;
        let watch = !keep;
        self.install_with(c, keep, replay);
        if watch {
            let mut paths = vec![path.clone()];
            paths.extend(self.vcd.clone());
            self.watcher = Watcher::new(&paths, self.wake.clone());
        }
        Ok(())
    }

    fn install(&mut self, c: Circuit, keep: bool) {
        let given = !self.overrides.is_empty();
        let replay = self.vcd.as_ref().map(|v| load_vcd(v, &c, given));
        self.install_with(c, keep, replay);
    }

    /// Installs `c`; `replay` is the replay of [`Model::vcd`] when there is one.
    fn install_with(
        &mut self,
        c: Circuit,
        keep: bool,
        replay: Option<anyhow::Result<(Trace, handscope_sim::report::RunReport)>>,
    ) {
        let wake = self.wake.clone();
        let wake2 = self.wake.clone();
        let mut vcd_error = None;
        let source = match replay {
            Some(r) => match r {
                Ok((t, r)) => Some(TraceSource::replay(t, Some(r))),
                Err(e) => {
                    vcd_error = Some(format!("{e:#}{TRACE_FALLBACK}"));
                    // The simulation shown instead runs the file's own stimulus.
                    let session = c
                        .path()
                        .and_then(|p| {
                            Circuit::from_file(
                                p,
                                &self.overrides,
                                self.function.as_deref(),
                                &self.timing,
                            )
                            .ok()
                        })
                        .map_or(c.session.clone(), |h| h.session);
                    Some(TraceSource::live(session, Box::new(move || wake())))
                }
            },
            None if c.sim_error.is_some() => None,
            None => Some(TraceSource::live(
                c.session.clone(),
                Box::new(move || wake()),
            )),
        };
        let old_sel = self.selection.and_then(|s| self.selection_name(s));
        let old_waves: Vec<String> = self.circuit.as_ref().map_or(Vec::new(), |oc| {
            self.waves
                .iter()
                .map(|w| oc.func.channels[*w].name.clone())
                .collect()
        });
        let old_nodes: Vec<String> = self.circuit.as_ref().map_or(Vec::new(), |oc| {
            self.wave_nodes
                .iter()
                .map(|n| oc.func.nodes[*n].id.clone())
                .collect()
        });
        self.layout_job = Some(LayoutJob::start(
            c.func.clone(),
            self.engine,
            self.graph_panel,
            Box::new(move || wake2()),
        ));
        self.layout = None;
        self.layout_error = None;
        self.source = source;
        self.binding = None;
        self.cs = None;
        self.scene = None;
        self.history.clear();
        self.mem_cache = None;
        self.activity.clear();
        self.pending = None;
        self.deadlock_opened = false;
        self.deadlock_x = None;
        self.deadlock_view = false;
        self.throughput_x = None;
        self.throughput_view = false;
        self.generation += 1;
        if keep {
            self.selection = old_sel.and_then(|n| Self::resolve(&c, &n));
            self.waves = old_waves
                .iter()
                .filter_map(|n| c.func.channel_by_name(n))
                .collect();
            self.wave_nodes = old_nodes
                .iter()
                .filter_map(|n| c.func.node_by_id(n))
                .collect();
            self.breakpoints.retain(|b| match b {
                Breakpoint::ChannelFires(ch) | Breakpoint::Value(ch, ..) => {
                    ch.index() < c.func.channels.len()
                }
                Breakpoint::NodeFires(n) => n.index() < c.func.nodes.len(),
                _ => true,
            });
            self.want = Some(self.cycle);
        } else {
            self.selection = None;
            self.waves.clear();
            self.wave_nodes.clear();
            self.breakpoints.clear();
            self.markers.clear();
            self.cycle = 0;
            self.want = None;
            self.playing = false;
        }
        self.error = vcd_error;
        if !keep {
            self.compare = None;
        }
        self.circuit = Some(c);
    }

    fn selection_name(&self, s: Selection) -> Option<String> {
        let f = &self.circuit.as_ref()?.func;
        Some(match s {
            Selection::Node(n) => format!("n:{}", f.nodes[n].id),
            Selection::Channel(c) => format!("c:{}", f.channels[c].name),
        })
    }

    fn resolve(c: &Circuit, name: &str) -> Option<Selection> {
        if let Some(n) = name.strip_prefix("n:") {
            c.func.node_by_id(n).map(Selection::Node)
        } else {
            c.func
                .channel_by_name(name.strip_prefix("c:")?)
                .map(Selection::Channel)
        }
    }

    /// The trace, if the engine has started.
    pub fn trace(&self) -> Option<&Trace> {
        self.source.as_ref()?.trace()
    }

    /// Cycles available now.
    pub fn cycles(&self) -> u64 {
        self.source.as_ref().map_or(0, TraceSource::cycles)
    }

    /// True when the trace will not grow any more.
    pub fn complete(&self) -> bool {
        if self.follow.as_ref().is_some_and(|f| !f.finished) {
            return false; // a followed VCD is still being written
        }
        self.source.as_ref().is_none_or(TraceSource::complete)
    }

    /// The deadlock analysis, if the run deadlocked.
    pub fn deadlock(&self) -> Option<&DeadlockReport> {
        self.source.as_ref()?.report()?.deadlock.as_ref()
    }

    /// Follows the VCD at `path` while it is written (`writer_done` says when it is
    /// complete): the view shows its complete cycles, extended as they arrive, instead of a
    /// simulation. The cursor stays at the newest cycle until the user moves it elsewhere
    /// ([`Following::newest`]).
    pub fn follow_vcd(
        &mut self,
        path: &std::path::Path,
        opts: handscope_traces::vcd_in::ReplayOptions,
        writer_done: Arc<std::sync::atomic::AtomicBool>,
    ) {
        self.vcd = None;
        self.source = None;
        self.binding = None;
        self.cs = None;
        let Some(c) = &self.circuit else {
            return;
        };
        self.follow = Some(Following {
            job: super::follow_job::FollowJob::spawn(
                path,
                c.func.clone(),
                c.session.environment().clone(),
                opts,
                writer_done,
                self.wake.clone(),
            ),
            newest: true,
            finished: false,
        });
        self.status = format!("following {}: waiting for its header", path.display());
    }

    /// Shows the selection's channels (a node: its input and output channels) in a Surfer
    /// serving WCP at `addr`: writes the cycles simulated so far as a VCD and sends `load`
    /// and `add_variables`, in a thread; the outcome appears in the status line.
    pub fn send_selection_to_surfer(&mut self, addr: &str) {
        let (Some(c), Some(t), Some(sel)) = (&self.circuit, self.trace(), self.selection) else {
            self.status = "select a channel or node to open in Surfer".into();
            return;
        };
        let f = &c.func;
        let chans: Vec<ChannelId> = match sel {
            describe::Selection::Channel(ch) => vec![ch],
            describe::Selection::Node(n) => f.nodes[n]
                .inputs
                .iter()
                .chain(&f.nodes[n].outputs)
                .copied()
                .collect(),
        };
        let vars: Vec<String> = chans
            .iter()
            .flat_map(|&ch| {
                handscope_traces::vcd_out::channel_signal_names(
                    &f.channels[ch].name,
                    f.channels[ch].ty.bit_width() > 0,
                )
            })
            .collect();
        let mut vcd = Vec::new();
        if let Err(e) = handscope_traces::vcd_out::write_vcd(t, &mut vcd) {
            self.status = format!("cannot write the VCD: {e}");
            return;
        }
        let path = std::env::temp_dir().join(format!(
            "handscope-{}-{}.vcd",
            f.name.replace('/', "_"),
            std::process::id()
        ));
        let (tx, rx) = crossbeam_channel::bounded(1);
        let shown = addr.to_string();
        let (addr, wake) = (addr.to_string(), self.wake.clone());
        let cycles = t.cycles();
        std::thread::spawn(move || {
            let link = crate::wcp::surfer::Link::Connect(addr.clone());
            let r = std::fs::write(&path, &vcd)
                .map_err(anyhow::Error::from)
                .and_then(|()| {
                    crate::wcp::surfer::show_in_surfer(
                        &link,
                        &path,
                        &vars,
                        Duration::from_secs(10),
                        &mut |_| {},
                    )
                });
            let _ = tx.send(match r {
                Ok(_) => format!(
                    "Surfer at {addr} shows {} signals of {} ({cycles} cycles)",
                    vars.len(),
                    path.display()
                ),
                Err(e) => format!("Surfer: {e:#}"),
            });
            wake();
        });
        self.surfer = Some(rx);
        self.status = format!("sending to Surfer at {shown}...");
    }

    /// Installs what the follower thread reported since the last frame.
    fn poll_follow(&mut self) {
        let Some(fl) = &mut self.follow else {
            return;
        };
        let Some(update) = fl.job.take() else {
            return;
        };
        let shown = fl.job.path().display().to_string();
        let (trace, report) = match update {
            super::follow_job::FollowUpdate::Grew(t) => (*t, None),
            super::follow_job::FollowUpdate::Done(r) => {
                fl.finished = true;
                (r.trace, Some(r.report))
            }
            super::follow_job::FollowUpdate::Failed(e) => {
                fl.finished = true;
                self.error = Some(e);
                return;
            }
        };
        let n = trace.cycles();
        let complete = report.is_some();
        self.source = Some(if complete {
            TraceSource::replay(trace, report)
        } else {
            TraceSource::growing(trace)
        });
        self.binding = None;
        self.cs = None;
        self.scene = None;
        self.history.clear();
        self.activity.clear();
        if fl.newest && n > 0 {
            self.cycle = n - 1;
        }
        self.status = if complete {
            format!("{shown}: complete, {n} cycles")
        } else {
            format!("following {shown}: {n} cycles so far")
        };
    }

    /// Takes in engine and layout results, follows playback, searches and the deadlock view.
    /// Call once per frame with the frame's duration.
    pub fn update(&mut self, dt: f32) {
        self.poll_follow();
        if let Some(rx) = &self.surfer
            && let Ok(msg) = rx.try_recv()
        {
            self.status = msg;
            self.surfer = None;
        }
        if let Some(job) = &self.layout_job
            && let Some(l) = job.poll()
        {
            match l {
                Ok(l) => self.layout = Some(l),
                Err(e) => self.layout_error = Some(e),
            }
            self.layout_job = None;
            self.scene = None;
        }
        if let Some(src) = &mut self.source
            && src.poll()
        {
            self.scene = None;
        }
        if self.binding.is_none()
            && let (Some(c), Some(t)) = (&self.circuit, self.trace())
        {
            let (b, tagger) = (Binding::new(&c.func, t), TraceTagger::new(&c.func, t));
            self.binding = Some(b);
            self.tagger = Some(tagger);
        }
        self.update_activity();
        if self.deadlock_x.is_none()
            && let (Some(c), Some(d)) = (&self.circuit, self.deadlock())
        {
            let x = describe::deadlock_explanation(&c.func, d);
            let marks = describe::deadlock_marks(&x);
            self.deadlock_x = Some((Arc::new(x), marks));
        }
        // Deadlock view: open once at the first stuck cycle.
        if !self.deadlock_opened
            && let Some(d) = self.deadlock()
        {
            let since = d.since_cycle;
            self.deadlock_opened = true;
            self.deadlock_view = true;
            if self.waves.is_empty()
                && let Some(x) = self.deadlock_explanation()
            {
                // Show the channels of the wait-for cycles (else the chains) as waveforms.
                let mut secs: Vec<_> = x.sections.iter().filter(|s| s.cyclic).collect();
                if secs.is_empty() {
                    secs = x.sections.iter().collect();
                }
                for c in secs.iter().flat_map(|s| &s.steps).filter_map(|s| s.channel) {
                    if !self.waves.contains(&c) && self.waves.len() < 8 {
                        self.waves.push(c);
                    }
                }
            }
            // A lesson keeps its step's cycle.
            if self.want.is_none()
                && !self.playing
                && self.pending.is_none()
                && self.lesson.is_none()
            {
                self.cycle = since.min(self.cycles().saturating_sub(1));
                self.status = format!("deadlock: no transfer since cycle {since}");
            }
        }
        // Playback.
        self.anim = (self.anim + dt * self.speed.clamp(1.0, 8.0)).min(1.0);
        if self.playing {
            self.play_acc += dt * self.speed;
            let n = self.play_acc.floor();
            if n >= 1.0 {
                self.play_acc -= n;
                let before = self.cycle;
                self.step(n as i64);
                if self.cycle == before && self.complete() {
                    self.playing = false;
                }
                if !self.breakpoints.is_empty() {
                    // Stop at breakpoints while playing.
                    self.check_breakpoint_between(before, self.cycle);
                }
            }
        }
        // Pending jump to a cycle not yet simulated.
        if let Some(w) = self.want {
            let n = self.cycles();
            if w < n {
                self.cycle = w;
                self.want = None;
            } else if self.complete() {
                self.cycle = n.saturating_sub(1);
                self.want = None;
            } else if let Some(s) = &mut self.source {
                s.ensure(w);
            }
        }
        self.continue_search();
        let cycle = self.cycle;
        if let Some(s) = &mut self.source {
            s.ensure(cycle);
        }
        self.refresh_cycle();
        self.sync_compare(dt);
    }

    fn update_activity(&mut self) {
        let Some(t) = self.source.as_ref().and_then(TraceSource::trace) else {
            return;
        };
        let n = t.cycles().min(200_000);
        if self.activity.len() as u64 >= n {
            return;
        }
        let start = std::time::Instant::now();
        let mut rp = t.replay_from(self.activity.len() as u64);
        while (self.activity.len() as u64) < n && start.elapsed() < Duration::from_millis(4) {
            if rp.next_cycle().is_none() {
                break;
            }
            let v = rp.view();
            let k = (0..t.channels().len())
                .filter(|&i| v.valid(i) && v.ready(i))
                .count();
            self.activity.push(k as u32);
        }
    }

    fn refresh_cycle(&mut self) {
        if self.cs.as_ref().is_some_and(|cs| cs.cycle == self.cycle) {
            return;
        }
        let (Some(c), Some(t), Some(b)) = (
            &self.circuit,
            self.source.as_ref().and_then(TraceSource::trace),
            &self.binding,
        ) else {
            return;
        };
        if self.cycle >= t.cycles() {
            return;
        }
        let mut cs = CycleState::read(&c.func, t, b, self.cycle);
        if let Some(tagger) = &mut self.tagger {
            cs.tag_moved(&c.func, t, tagger, TAG_BUDGET_CYCLES);
        }
        self.cs = Some(cs);
        self.scene = None;
    }

    /// The cursor's cycle state, once it exists.
    pub fn cycle_state(&self) -> Option<&CycleState> {
        self.cs.as_ref().filter(|c| c.cycle == self.cycle)
    }

    /// Moves the cursor by `delta` cycles (asks the engine for cycles not simulated yet).
    pub fn step(&mut self, delta: i64) {
        let target = if delta < 0 {
            self.cycle.saturating_sub(delta.unsigned_abs())
        } else {
            self.cycle.saturating_add(delta as u64)
        };
        if delta > 0 {
            self.anim = 0.0;
        }
        self.goto(target);
    }

    /// Moves the cursor to cycle `c` (or the last cycle, for a run that ended earlier).
    pub fn goto(&mut self, c: u64) {
        let n = self.cycles();
        if c < n {
            self.cycle = c;
            self.want = None;
        } else if self.complete() {
            self.cycle = n.saturating_sub(1);
        } else {
            self.want = Some(c);
            if let Some(s) = &mut self.source {
                s.ensure(c);
            }
        }
    }

    /// Starts running to the next breakpoint in `dir`.
    pub fn run_to_breakpoint(&mut self, dir: Dir) {
        self.playing = false;
        if self.breakpoints.is_empty() {
            self.status = "no breakpoints set".into();
            return;
        }
        self.pending = Some((dir, self.cycle));
        self.status = "searching...".into();
        self.continue_search();
    }

    /// True while a breakpoint search is running.
    pub fn searching(&self) -> bool {
        self.pending.is_some()
    }

    fn continue_search(&mut self) {
        let Some((dir, from)) = self.pending else {
            return;
        };
        let (Some(c), Some(t), Some(b)) = (
            &self.circuit,
            self.source.as_ref().and_then(TraceSource::trace),
            &self.binding,
        ) else {
            return;
        };
        let since = self
            .source
            .as_ref()
            .and_then(|s| s.report())
            .and_then(|r| r.deadlock.as_ref())
            .map(|d| d.since_cycle);
        match search(
            &self.breakpoints,
            &c.func,
            b,
            t,
            from,
            dir,
            since,
            SEARCH_BUDGET,
        ) {
            Found::Hit(h) => {
                let names: Vec<String> = self
                    .breakpoints
                    .iter()
                    .filter(|bp| t.cycle(h).is_some_and(|v| bp.hits(&c.func, b, &v, since)))
                    .map(|bp| bp.describe(&c.func))
                    .collect();
                self.cycle = h;
                self.pending = None;
                self.status = format!("breakpoint at cycle {h}: {}", names.join(", "));
            }
            Found::Pending(at) => {
                let done = self.complete() && at + 1 >= t.cycles();
                if done {
                    self.pending = None;
                    self.status = "no breakpoint hit until the end of the run".into();
                } else {
                    self.pending = Some((dir, at));
                    if let Some(s) = &mut self.source {
                        s.ensure(at);
                    }
                }
            }
            Found::None => {
                self.pending = None;
                self.status = match dir {
                    Dir::Forward => "no breakpoint hit until the end of the run".into(),
                    Dir::Backward => "no breakpoint hit before this cycle".into(),
                };
            }
        }
    }

    fn check_breakpoint_between(&mut self, before: u64, after: u64) {
        let (Some(c), Some(t), Some(b)) = (&self.circuit, self.trace(), &self.binding) else {
            return;
        };
        let since = self.deadlock().map(|d| d.since_cycle);
        let mut rp = t.replay_from(before + 1);
        for k in before + 1..=after {
            if rp.next_cycle().is_none() {
                return;
            }
            let v = rp.view();
            if self
                .breakpoints
                .iter()
                .any(|bp| bp.hits(&c.func, b, &v, since))
            {
                self.cycle = k;
                self.playing = false;
                self.status = format!("breakpoint at cycle {k}");
                return;
            }
        }
    }

    /// Selects a node or channel (and the source lines of a node).
    pub fn select(&mut self, s: Option<Selection>) {
        self.selection = s;
        self.scene = None;
        if let (Some(Selection::Node(n)), Some(c)) = (s, &self.circuit) {
            self.source_line = c.lines_of(n);
        }
    }

    /// Selects node `n`, highlights its source line and centers the graph view on it.
    pub fn focus_node(&mut self, n: NodeId) {
        self.select(Some(Selection::Node(n)));
        self.focus = Some(n);
    }

    /// The deadlock explanation of the run, if it deadlocked (built by [`Model::update`]).
    pub fn deadlock_explanation(&self) -> Option<Arc<describe::DeadlockExplanation>> {
        self.deadlock_x.as_ref().map(|(x, _)| x.clone())
    }

    /// Selects the nodes of source line `line` (the first one becomes the selection).
    pub fn select_line(&mut self, line: u32) {
        self.source_line = Some(line);
        let first = self
            .circuit
            .as_ref()
            .and_then(|c| c.line_nodes.get(&line))
            .and_then(|v| v.first().copied());
        if let Some(n) = first {
            self.selection = Some(Selection::Node(n));
            self.focus = Some(n);
        }
        self.scene = None;
    }

    /// Nodes on the picked source line.
    pub fn line_nodes(&self) -> Vec<NodeId> {
        match (self.source_line, &self.circuit) {
            (Some(l), Some(c)) => c.line_nodes.get(&l).cloned().unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    /// Nodes whose ID or source text matches the search.
    pub fn matches(&self) -> Vec<NodeId> {
        let q = self.search.trim().to_lowercase();
        let Some(c) = &self.circuit else {
            return Vec::new();
        };
        if q.is_empty() {
            return Vec::new();
        }
        let lines: Vec<&str> = c.source.lines().collect();
        c.func
            .nodes
            .iter()
            .filter(|(_, n)| {
                n.id.to_lowercase().contains(&q)
                    || n.loc
                        .as_ref()
                        .and_then(|l| lines.get(l.line as usize - 1))
                        .is_some_and(|t| t.to_lowercase().contains(&q))
            })
            .map(|(id, _)| id)
            .collect()
    }

    /// Lines whose nodes fire at the cursor.
    pub fn firing_lines(&self) -> std::collections::BTreeSet<u32> {
        let (Some(c), Some(cs)) = (&self.circuit, self.cycle_state()) else {
            return Default::default();
        };
        c.line_nodes
            .iter()
            .filter(|(_, ns)| {
                ns.iter()
                    .any(|n| cs.fires.get(n.index()).copied().unwrap_or(false))
            })
            .map(|(l, _)| *l)
            .collect()
    }

    /// Runs `f` on the change history of channel `ch`.
    pub fn with_history<R>(
        &mut self,
        ch: ChannelId,
        f: impl FnOnce(&super::history::History) -> R,
    ) -> Option<R> {
        let ti = (*self.binding.as_ref()?.chan.get(ch.index())?)?;
        let t = self.source.as_ref()?.trace()?;
        Some(f(self.history.get(t, ti)))
    }

    /// The side panel text for the selection.
    pub fn describe_selection(&mut self) -> Vec<String> {
        let (Some(sel), Some(c), Some(b), Some(cs)) = (
            self.selection,
            &self.circuit,
            &self.binding,
            self.cs.as_ref(),
        ) else {
            return Vec::new();
        };
        let Some(t) = self.source.as_ref().and_then(TraceSource::trace) else {
            return Vec::new();
        };
        let d = self
            .source
            .as_ref()
            .and_then(|s| s.report())
            .and_then(|r| r.deadlock.as_ref());
        let x = describe::Ctx {
            f: &c.func,
            t,
            b,
            cs,
            radix: self.look.radix,
            deadlock: d,
        };
        describe::describe(&x, &mut self.history, sel)
    }

    /// Turns the throughput view on or off; on, analyses the trace recorded so far (again when
    /// it has grown) and says the critical cycle and the most stalled channel in the status
    /// line.
    pub fn toggle_throughput(&mut self) {
        self.throughput_view = !self.throughput_view;
        if !self.throughput_view {
            return;
        }
        let (Some(c), Some(t)) = (&self.circuit, self.trace()) else {
            self.status = "throughput: no run yet".into();
            return;
        };
        let cycles = t.cycles();
        if self
            .throughput_x
            .as_ref()
            .is_some_and(|(n, _)| *n == cycles)
        {
            return;
        }
        let f = &c.func;
        let a = handscope_sim::throughput::Analysis::new(f, t);
        let r = handscope_sim::throughput::report(f, cycles, &a);
        let max = a
            .activity
            .iter()
            .map(|x| x.stalls)
            .max()
            .unwrap_or(0)
            .max(1);
        let heat = a
            .activity
            .iter()
            .map(|x| x.stalls as f32 / max as f32)
            .collect();
        let mut critical: Vec<ChannelId> = a
            .critical
            .iter()
            .flat_map(|cy| cy.edges.iter())
            .filter_map(|&e| a.model.graph[e].channel)
            .collect();
        critical.sort();
        critical.dedup();
        let ii = r.critical.ii.map_or("-".into(), |v| format!("{v:.2}"));
        let worst = r
            .stalls
            .first()
            .map(|s| format!("; most stalled: {} ({} cycles)", s.channel, s.stall_cycles))
            .unwrap_or_default();
        self.status = format!(
            "throughput: critical cycle latency {} over {} token(s), II {ii}{worst}",
            r.critical.latency, r.critical.tokens
        );
        self.throughput_x = Some((cycles, scene::ThroughputMarks { heat, critical }));
    }

    /// "What if": adds (`delta` > 0) or removes (`delta` < 0) one buffer slot on the selected
    /// channel, runs the changed circuit at once to compare cycles and II with the current
    /// run (status line), and shows the changed circuit. A slot is added as `handscope tune`
    /// adds it (grow a buffer without initial values, else insert `tune<i>`); one is removed
    /// only from such a buffer with at least two slots. Without a channel selected, or for a
    /// run that does not finish, it says so.
    pub fn what_if(&mut self, delta: i32) {
        use handscope_sim::throughput::{measure, tune};
        let (Some(c), Some(Selection::Channel(ch))) = (&self.circuit, self.selection) else {
            self.status = "what if: select a channel first".into();
            return;
        };
        let name = c.func.channels[ch].name.clone();
        let figures = |s: &handscope_sim::session::Session| {
            let run = s.run(1_000_000, true).ok()?;
            let f = s.function();
            let acts = measure::activity(f, run.trace.as_ref()?);
            Some((run.report, tune::run_ii(f, &acts).0))
        };
        let g = if delta > 0 {
            tune::apply(
                &c.func,
                &[tune::SlotChange {
                    channel: name.clone(),
                    slots: 1,
                }],
            )
            .ok()
        } else {
            let mut g = (*c.func).clone();
            let p = g.channels[ch].producer.node;
            match &mut g.nodes[p].op {
                handscope_sim::Op::Buffer {
                    slots, init: None, ..
                } if *slots >= 2 => {
                    *slots -= 1;
                    Some(g)
                }
                _ => None,
            }
        };
        let Some(g) = g else {
            self.status = format!(
                "what if: {name} has no buffer slot to remove (only a buffer without initial values and with at least two slots gives one up)"
            );
            return;
        };
        let session = c.session.with_function(g.clone());
        let (Some((r0, ii0)), Some((r1, ii1))) = (figures(&c.session), figures(&session)) else {
            self.status = "what if: the run failed".into();
            return;
        };
        let ii = |x: Option<f64>| x.map_or("-".into(), |v| format!("{v:.2}"));
        let same = tune::same_answer(&r0, &r1);
        self.status = format!(
            "what if {}1 slot on {name}: {} -> {} cycles, II {} -> {}{}",
            if delta > 0 { "+" } else { "-" },
            r0.cycles,
            r1.cycles,
            ii(ii0),
            ii(ii1),
            if same { "" } else { " (the results differ!)" }
        );
        let status = self.status.clone();
        let mut next = c.clone();
        next.func = Arc::new(g);
        next.session = session;
        self.install(next, true);
        self.status = status;
    }

    /// Drawing options at the cursor.
    pub fn options(&self) -> Options {
        let deadlock = match (self.deadlock(), &self.deadlock_x) {
            (Some(d), Some(x)) if self.deadlock_view && self.cycle >= d.since_cycle => x.1.clone(),
            _ => describe::DeadlockMarks::default(),
        };
        Options {
            palette: self.look.palette(),
            radix: self.look.radix,
            values: self.look.values,
            selection: self.selection,
            deadlock,
            source_nodes: self.line_nodes(),
            matches: self.matches(),
            lesson_nodes: self.lesson.as_ref().map_or(Vec::new(), |l| l.nodes.clone()),
            lesson_channels: self
                .lesson
                .as_ref()
                .map_or(Vec::new(), |l| l.channels.clone()),
            problem_nodes: self.circuit.as_ref().map_or(Vec::new(), |c| {
                c.problems
                    .iter()
                    .filter(|p| p.error)
                    .flat_map(|p| p.nodes.iter().copied())
                    .collect()
            }),
            throughput: match &self.throughput_x {
                Some((_, marks)) if self.throughput_view => marks.clone(),
                _ => scene::ThroughputMarks::default(),
            },
        }
    }

    /// The scene at the cursor (cached until something changes).
    pub fn scene(&mut self) -> Option<Arc<Scene>> {
        let o = self.options();
        if let Some((c, so, s)) = &self.scene
            && *c == self.cycle
            && *so == o
        {
            return Some(s.clone());
        }
        let (Some(c), Some(l)) = (&self.circuit, &self.layout) else {
            return None;
        };
        let s = match (&self.binding, self.cycle_state()) {
            (Some(b), Some(cs)) => scene::build(&c.func, l, b, cs, &o),
            // Nothing to simulate (a stimulus that does not bind, an engine that failed):
            // the graph alone, every channel idle.
            _ if self.why_no_run().is_some() => {
                let cs = CycleState {
                    valid: vec![false; c.func.channels.len()],
                    ready: vec![false; c.func.channels.len()],
                    data: vec![0; c.func.channels.len()],
                    moved: vec![false; c.func.channels.len()],
                    fires: vec![false; c.func.nodes.len()],
                    ..CycleState::default()
                };
                scene::build(&c.func, l, &Binding::default(), &cs, &o)
            }
            _ => return None,
        };
        let s = Arc::new(s);
        self.scene = Some((self.cycle, o, s.clone()));
        Some(s)
    }

    /// Why no run can be shown, if none can: the circuit's stimulus does not bind, or the
    /// engine failed before giving a single cycle.
    pub fn why_no_run(&self) -> Option<String> {
        let c = self.circuit.as_ref()?;
        if let Some(e) = &c.sim_error {
            return Some(e.clone());
        }
        let src = self.source.as_ref()?;
        match (src.error(), src.cycles()) {
            (Some(e), 0) => Some(format!("cannot simulate: {e}")),
            _ => None,
        }
    }

    /// Lays the graph out again, shaped for a graph panel of `panel` points, when its shape
    /// differs much from the one the layout was made for (the compare view halves the
    /// panel; a window goes from landscape to portrait; the first frame shows the panel the
    /// first layout could only guess). The layout shown stays until the new one is ready; a
    /// layout still being computed for the old shape is dropped.
    pub fn reshape_for(&mut self, panel: P2) {
        let aspect = |p: P2| p[0].max(1.0) / p[1].max(1.0);
        let change = aspect(panel) / aspect(self.graph_panel);
        if (1.0 / RESHAPE_RATIO..=RESHAPE_RATIO).contains(&change) {
            return;
        }
        let Some(c) = &self.circuit else {
            return;
        };
        self.graph_panel = panel;
        let wake = self.wake.clone();
        self.layout_job = Some(LayoutJob::start(
            c.func.clone(),
            self.engine,
            panel,
            Box::new(move || wake()),
        ));
    }

    /// Blocks until the layout and the cursor's cycle exist (headless use and tests).
    pub fn settle(&mut self) {
        if let Some(job) = &self.layout_job {
            match job.wait() {
                Ok(l) => self.layout = Some(l),
                Err(e) => self.layout_error = Some(e),
            }
            self.layout_job = None;
            self.scene = None;
        }
        let want = self.want.unwrap_or(self.cycle);
        if let Some(s) = &mut self.source {
            s.wait_for(want);
        }
        self.update(0.0);
    }

    #[cfg(test)]
    /// Waits until the run ended (bounded by `limit` cycles), then updates.
    pub fn settle_complete(&mut self, limit: u64) {
        self.settle();
        if let Some(s) = &mut self.source {
            s.wait_complete(limit);
        }
        self.update(0.0);
    }
}

/// The message of a file that does not load: for an error located in the file
/// (`FILE:LINE:COL: ...`), its first line and the source line with a caret under the column;
/// else the whole message.
pub fn load_error(path: &std::path::Path, e: &anyhow::Error) -> String {
    let full = format!("{e:#}");
    let name = path.display().to_string();
    let located = full.lines().next().and_then(|first| {
        let rest = &first[first.find(&format!("{name}:"))? + name.len() + 1..];
        let mut it = rest.splitn(3, ':');
        let line: usize = it.next()?.trim().parse().ok()?;
        let col: usize = it.next()?.trim().parse().ok()?;
        let text = handscope_sim::input::read_text(path).ok()?;
        let src = text.lines().nth(line.checked_sub(1)?)?;
        Some((
            first.trim_start_matches(['×', ' ']).to_string(),
            line,
            col,
            src.to_string(),
        ))
    });
    match located {
        Some((first, line, col, src)) => {
            let n = line.to_string();
            let caret: String = src
                .chars()
                .take(col.saturating_sub(1))
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            format!("{first}\n {n} | {src}\n {} | {caret}^", " ".repeat(n.len()))
        }
        None => full,
    }
}

/// What the debugger adds to a trace's error when it shows a simulation instead
/// (`handscope render` fails instead and leaves it out).
pub const TRACE_FALLBACK: &str = "; showing a simulation instead";

/// A file loaded off the model's thread ([`Model::prepare_open`]).
pub struct Prepared {
    path: std::path::PathBuf,
    vcd: Option<std::path::PathBuf>,
    circuit: anyhow::Result<Circuit>,
    replay: Option<anyhow::Result<(Trace, handscope_sim::report::RunReport)>>,
}

/// Replays a VCD of a run of `c` (see `handscope_traces::vcd_in`).
/// The stimulus is the run's only when `given` on the command line (as `handscope replay`
/// takes it); never the file's header.
fn load_vcd(
    path: &std::path::Path,
    c: &Circuit,
    given: bool,
) -> anyhow::Result<(Trace, handscope_sim::report::RunReport)> {
    let opts = handscope_traces::vcd_in::ReplayOptions::default();
    let env = given.then(|| c.session.environment());
    let r = handscope_traces::vcd_in::replay_file(path, &c.func, env, &opts)?;
    Ok((r.trace, r.report))
}
