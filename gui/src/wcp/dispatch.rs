//! What each WCP command does to the debugger's [`Model`]: the same model the window draws
//! (`handscope gui --wcp`) or a windowless one (`handscope serve`), so a client and a user at
//! the window see one cursor, one selection, one set of breakpoints and one trace.
//!
//! A command either answers at once or waits ([`Pending`]) for the engine to simulate the
//! cycles it needs, for a breakpoint search, for the end of the run, or for a file that a
//! thread of its own loads (`load`, `reload`: the model's thread goes on answering the other
//! clients meanwhile); the hub polls it.
//!
//! `load` reads only files under the directories the server allows
//! ([`Controller::allow_loads_from`]; symbolic links are followed before the check).

use std::path::{Path, PathBuf};

use cranelift_entity::EntityRef;
use handscope_sim::report::render_value_as;
use handscope_sim::{ChannelId, Function, NodeId};
use serde_json::{Value, json};

use super::proto::{BreakpointSpec, Command, Direction, ServerMessage};
use crate::app::binding::Binding;
use crate::app::breakpoints::{Breakpoint, Cmp, Dir};
use crate::app::describe::Selection;
use crate::app::model::Model;
use crate::app::style::ChanState;

/// A command that waits for the model.
#[derive(Clone, Debug, PartialEq)]
pub enum Pending {
    /// The cursor is moving to a cycle not simulated yet (`set_cursor`, `handscope.step`).
    Goto {
        /// The command's name (the response's name).
        command: &'static str,
    },
    /// A breakpoint search is running.
    Search,
    /// Values at a cycle not simulated yet.
    Values {
        /// Items.
        ids: Vec<String>,
        /// The cycle.
        cycle: u64,
    },
    /// Needs the run's end.
    Complete {
        /// `true`: the deadlock report; `false`: the run report.
        deadlock: bool,
    },
    /// A file is loading in its own thread (`load`, `reload`).
    Load {
        /// The command's name.
        command: &'static str,
    },
}

/// A `load` or `reload` in progress.
#[derive(Debug)]
struct LoadJob {
    rx: std::sync::mpsc::Receiver<crate::app::model::Prepared>,
    /// The file as the client named it (for messages).
    source: String,
    /// A reload (keeps cursor, selection and waves).
    keep: bool,
}

/// The result of starting or polling a command.
#[derive(Debug)]
pub enum Outcome {
    /// The reply.
    Reply(ServerMessage),
    /// Not yet.
    Wait(Pending),
}

/// The part of the protocol's state that the model does not hold: marker names, what
/// clients may load and the load in progress.
#[derive(Debug, Default)]
pub struct Controller {
    /// Marker names by cycle.
    marker_names: std::collections::BTreeMap<u64, String>,
    /// Canonical directories (or files) `load` may read under; `None`: anything.
    load_dirs: Option<Vec<PathBuf>>,
    load_job: Option<LoadJob>,
}

/// A `Selection` or item resolved from a stable name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Item {
    Channel(ChannelId),
    Node(NodeId),
    Marker(usize),
}

fn resolve(f: &Function, m: &Model, id: &str) -> Option<Item> {
    if let Some(c) = f.channel_by_name(id) {
        return Some(Item::Channel(c));
    }
    if let Some(n) = f.node_by_id(id) {
        return Some(Item::Node(n));
    }
    let k: usize = id.strip_prefix("marker:")?.parse().ok()?;
    (k < m.markers.len()).then_some(Item::Marker(k))
}

fn unknown(command: &str, ids: Vec<String>) -> ServerMessage {
    let message = format!(
        "`{command}`: no channel, node or marker named {}",
        ids.iter()
            .map(|i| format!("`{i}`"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let mut args = vec![command.to_string()];
    args.extend(ids);
    ServerMessage::error("unknown_item", args, message)
}

fn no_circuit(command: &str, m: &Model) -> ServerMessage {
    ServerMessage::error(
        "no_circuit",
        vec![command.into()],
        match &m.error {
            Some(e) => format!("`{command}`: no circuit is open: {e}"),
            None => format!("`{command}`: no circuit is open (send `load` first)"),
        },
    )
}

/// The cycle a client's timestamp names: clamped to the run when it has ended.
fn response_cursor(command: &str, m: &Model) -> ServerMessage {
    ServerMessage::response(
        command,
        json!({ "cycle": m.cycle, "cycles": m.cycles(), "complete": m.complete() }),
    )
}

impl Controller {
    /// Lets `load` read only files under `dirs` (canonical paths; a file allows itself).
    pub fn allow_loads_from(&mut self, dirs: Vec<PathBuf>) {
        self.load_dirs = Some(dirs);
    }

    /// Starts `cmd` on `m`.
    pub fn start(&mut self, m: &mut Model, cmd: &Command) -> Outcome {
        let name = cmd.name();
        if matches!(cmd, Command::Load { .. } | Command::Reload) && self.load_job.is_some() {
            return Outcome::Reply(ServerMessage::error(
                "busy",
                vec![name.into()],
                format!(
                    "`{name}`: another `load` or `reload` is in progress; send it again once that one has answered"
                ),
            ));
        }
        if let Command::Load { source } = cmd {
            return match self.load(m, source) {
                Ok(()) => Outcome::Wait(Pending::Load { command: "load" }),
                Err(e) => Outcome::Reply(e),
            };
        }
        if matches!(cmd, Command::Shutdown) {
            return Outcome::Reply(ServerMessage::ack());
        }
        let Some(func) = m.circuit.as_ref().map(|c| c.func.clone()) else {
            return Outcome::Reply(no_circuit(name, m));
        };
        let f = &*func;
        let reply = match cmd {
            Command::Load { .. } | Command::Shutdown => ServerMessage::ack(),
            Command::AddVariables { variables } => self.add(m, f, name, variables, false),
            Command::AddItems { items, recursive } => self.add(m, f, name, items, *recursive),
            Command::AddMarkers { markers } => {
                // One pass over the markers already set, then constant time per new one.
                let mut at: std::collections::HashMap<u64, usize> = m
                    .markers
                    .iter()
                    .enumerate()
                    .rev()
                    .map(|(k, &c)| (c, k))
                    .collect();
                let mut ids = Vec::new();
                for mk in markers {
                    let k = *at.entry(mk.time).or_insert_with(|| {
                        m.markers.push(mk.time);
                        m.markers.len() - 1
                    });
                    if let Some(n) = &mk.name {
                        self.marker_names.insert(mk.time, n.clone());
                    }
                    ids.push(format!("marker:{k}"));
                    if mk.move_focus {
                        m.goto(mk.time);
                    }
                }
                ServerMessage::response(name, json!({ "ids": ids }))
            }
            Command::SetCursor { timestamp } => {
                m.goto(*timestamp);
                return self.poll(m, &Pending::Goto { command: name });
            }
            Command::Step { cycles } => {
                m.step(*cycles);
                return self.poll(m, &Pending::Goto { command: name });
            }
            Command::SetViewportTo { timestamp } => {
                let (s, e) = m.wave_range.flatten().unwrap_or((0, 63));
                let half = (e.saturating_sub(s)) / 2;
                let start = timestamp.saturating_sub(half);
                m.wave_range = Some(Some((start, start.saturating_add(2 * half))));
                ServerMessage::ack()
            }
            Command::SetViewportRange { start, end } => {
                if end < start {
                    ServerMessage::error(
                        "invalid_arguments",
                        vec![name.into()],
                        format!("`{name}`: end {end} is before start {start}"),
                    )
                } else {
                    m.wave_range = Some(Some((*start, *end)));
                    ServerMessage::ack()
                }
            }
            Command::ZoomToFit { .. } => {
                m.wave_range = Some(None);
                ServerMessage::ack()
            }
            Command::FocusItem { id } => match resolve(f, m, id) {
                Some(Item::Node(n)) => {
                    m.focus_node(n);
                    ServerMessage::ack()
                }
                Some(Item::Channel(c)) => {
                    m.select(Some(Selection::Channel(c)));
                    ServerMessage::ack()
                }
                Some(Item::Marker(k)) => {
                    let c = m.markers[k];
                    m.goto(c);
                    ServerMessage::ack()
                }
                None => unknown(name, vec![id.clone()]),
            },
            Command::GetItemList => {
                ServerMessage::response(name, json!({ "ids": item_list(m, f) }))
            }
            Command::GetItemInfo { ids } => {
                let bad: Vec<String> = ids
                    .iter()
                    .filter(|i| resolve(f, m, i).is_none())
                    .cloned()
                    .collect();
                if !bad.is_empty() {
                    unknown(name, bad)
                } else {
                    let results: Vec<Value> = ids
                        .iter()
                        .filter_map(|i| Some((i, resolve(f, m, i)?)))
                        .map(|(i, it)| self.info(m, f, i, it))
                        .collect();
                    ServerMessage::response(name, json!({ "results": results }))
                }
            }
            Command::RemoveItems { ids } => {
                for id in ids {
                    match resolve(f, m, id) {
                        Some(Item::Channel(c)) => m.waves.retain(|&w| w != c),
                        Some(Item::Node(n)) => m.wave_nodes.retain(|&w| w != n),
                        Some(Item::Marker(k)) => {
                            let c = m.markers.remove(k);
                            self.marker_names.remove(&c);
                        }
                        None => {}
                    }
                }
                ServerMessage::ack()
            }
            Command::Reload => {
                let Some(p) = m
                    .circuit
                    .as_ref()
                    .and_then(|c| c.path().map(Path::to_path_buf))
                else {
                    return Outcome::Reply(ServerMessage::ack());
                };
                self.spawn_load(m, &p, m.vcd.clone(), name.into(), true);
                return Outcome::Wait(Pending::Load { command: name });
            }
            Command::Clear => {
                m.waves.clear();
                m.wave_nodes.clear();
                m.markers.clear();
                self.marker_names.clear();
                ServerMessage::ack()
            }
            Command::RunTo { direction } => {
                if m.breakpoints.is_empty() {
                    ServerMessage::error(
                        "no_breakpoints",
                        vec![name.into()],
                        "`handscope.run_to`: no breakpoints are set",
                    )
                } else {
                    m.run_to_breakpoint(match direction {
                        Direction::Forward => Dir::Forward,
                        Direction::Backward => Dir::Backward,
                    });
                    return self.poll(m, &Pending::Search);
                }
            }
            Command::SetBreakpoint { breakpoint } => match to_breakpoint(f, breakpoint) {
                Ok(bp) => {
                    if !m.breakpoints.contains(&bp) {
                        m.breakpoints.push(bp.clone());
                    }
                    ServerMessage::response(name, json!({ "id": bp.describe(f) }))
                }
                Err(e) => e.with_command(name),
            },
            Command::ClearBreakpoints { ids } => match ids {
                None => {
                    m.breakpoints.clear();
                    ServerMessage::ack()
                }
                Some(ids) => {
                    let known: Vec<String> = m.breakpoints.iter().map(|b| b.describe(f)).collect();
                    let bad: Vec<String> =
                        ids.iter().filter(|i| !known.contains(i)).cloned().collect();
                    if bad.is_empty() {
                        m.breakpoints.retain(|b| !ids.contains(&b.describe(f)));
                        ServerMessage::ack()
                    } else {
                        let mut args = vec![name.to_string()];
                        args.extend(bad.iter().cloned());
                        ServerMessage::error(
                            "unknown_breakpoint",
                            args,
                            format!("`{name}`: no breakpoint {}", bad.join(", ")),
                        )
                    }
                }
            },
            Command::ListBreakpoints => {
                let ids: Vec<String> = m.breakpoints.iter().map(|b| b.describe(f)).collect();
                ServerMessage::response(name, json!({ "ids": ids }))
            }
            Command::GetValues { ids, cycle } => {
                let bad: Vec<String> = ids
                    .iter()
                    .filter(|i| !matches!(resolve(f, m, i), Some(Item::Channel(_) | Item::Node(_))))
                    .cloned()
                    .collect();
                if !bad.is_empty() {
                    unknown(name, bad)
                } else {
                    let cycle = cycle.unwrap_or(m.cycle);
                    return self.poll(
                        m,
                        &Pending::Values {
                            ids: ids.clone(),
                            cycle,
                        },
                    );
                }
            }
            Command::GetCursor => response_cursor(name, m),
            Command::ListItems => {
                let channels: Vec<Value> = f
                    .channels
                    .values()
                    .map(|c| json!({ "id": c.name, "data_type": c.ty.to_string() }))
                    .collect();
                let nodes: Vec<Value> = f
                    .nodes
                    .values()
                    .map(|n| {
                        json!({
                            "id": n.id,
                            "op": n.op.mnemonic(),
                            "inputs": n.inputs.iter().map(|&c| &f.channels[c].name).collect::<Vec<_>>(),
                            "outputs": n.outputs.iter().map(|&c| &f.channels[c].name).collect::<Vec<_>>(),
                        })
                    })
                    .collect();
                ServerMessage::response(name, json!({ "channels": channels, "nodes": nodes }))
            }
            Command::DeadlockReport => return self.poll(m, &Pending::Complete { deadlock: true }),
            Command::RunReport => return self.poll(m, &Pending::Complete { deadlock: false }),
        };
        Outcome::Reply(reply)
    }

    /// Checks whether `p` can answer now; asks the engine for what it still needs.
    pub fn poll(&mut self, m: &mut Model, p: &Pending) -> Outcome {
        match p {
            Pending::Goto { command } => {
                if m.want.is_some() && !m.complete() {
                    return Outcome::Wait(p.clone());
                }
                if m.want.is_some() {
                    m.update(0.0);
                }
                Outcome::Reply(response_cursor(command, m))
            }
            Pending::Search => {
                if m.searching() {
                    return Outcome::Wait(p.clone());
                }
                let hit = m.status.starts_with("breakpoint at cycle");
                Outcome::Reply(ServerMessage::response(
                    "handscope.run_to",
                    json!({ "cycle": m.cycle, "hit": hit, "status": m.status }),
                ))
            }
            Pending::Values { ids, cycle } => {
                if *cycle >= m.cycles() {
                    if m.complete() {
                        return Outcome::Reply(ServerMessage::error(
                            "out_of_range",
                            vec!["handscope.get_values".into(), cycle.to_string()],
                            format!(
                                "`handscope.get_values`: cycle {cycle} is past the end of the run ({} cycles)",
                                m.cycles()
                            ),
                        ));
                    }
                    if let Some(s) = &mut m.source {
                        s.ensure(*cycle);
                    }
                    return Outcome::Wait(p.clone());
                }
                Outcome::Reply(values(m, ids, *cycle))
            }
            Pending::Load { command } => {
                let Some(job) = &self.load_job else {
                    return Outcome::Reply(ServerMessage::ack());
                };
                let prepared = match job.rx.try_recv() {
                    Ok(p) => p,
                    Err(std::sync::mpsc::TryRecvError::Empty) => return Outcome::Wait(p.clone()),
                    Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                        let job = self.load_job.take();
                        return Outcome::Reply(ServerMessage::error(
                            "load_failed",
                            vec![(*command).into()],
                            format!(
                                "`{command}`: loading {} failed",
                                job.map(|j| j.source).unwrap_or_default()
                            ),
                        ));
                    }
                };
                let Some(job) = self.load_job.take() else {
                    return Outcome::Reply(ServerMessage::ack());
                };
                Outcome::Reply(match m.finish_open(prepared, job.keep) {
                    Ok(()) => {
                        if !job.keep {
                            self.marker_names.clear();
                        }
                        ServerMessage::ack()
                    }
                    Err(e) => {
                        if job.keep {
                            // As the window shows a failed reload: the last good circuit
                            // stays, with the error.
                            m.error = Some(e.clone());
                        }
                        let mut args = vec![(*command).to_string()];
                        if !job.keep {
                            args.push(job.source.clone());
                        }
                        let e = e.trim_end_matches(crate::app::model::TRACE_FALLBACK);
                        ServerMessage::error("load_failed", args, format!("`{command}`: {e}"))
                    }
                })
            }
            Pending::Complete { deadlock } => {
                if !m.complete() {
                    let n = m.cycles();
                    if let Some(s) = &mut m.source {
                        s.ensure(n.saturating_add(1 << 16));
                    }
                    return Outcome::Wait(p.clone());
                }
                let report = m.source.as_ref().and_then(|s| s.report());
                Outcome::Reply(match (report, deadlock) {
                    (None, _) => ServerMessage::error(
                        "no_report",
                        vec![],
                        m.source
                            .as_ref()
                            .and_then(|s| s.error())
                            .unwrap_or("the run has no report")
                            .to_string(),
                    ),
                    (Some(r), true) => ServerMessage::response(
                        "handscope.deadlock_report",
                        json!({
                            "deadlocked": r.deadlock.is_some(),
                            "report": r.deadlock,
                        }),
                    ),
                    (Some(r), false) => {
                        ServerMessage::response("handscope.run_report", json!({ "report": r }))
                    }
                })
            }
        }
    }

    /// Checks what `load` may read and starts loading it in a thread of its own.
    fn load(&mut self, m: &mut Model, source: &str) -> Result<(), ServerMessage> {
        let p = Path::new(source);
        let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
        let failed = |e: &str| {
            ServerMessage::error(
                "load_failed",
                vec!["load".into(), source.into()],
                format!("`load`: {e}"),
            )
        };
        if let Some(dirs) = &self.load_dirs {
            // The file itself when it exists (symbolic links followed), else its absolute
            // name: either way a file outside is refused before anything says whether it
            // exists.
            let real = std::fs::canonicalize(p)
                .or_else(|_| std::path::absolute(p).map(|a| normalize(&a)))
                .unwrap_or_else(|_| p.to_path_buf());
            if !dirs.iter().any(|d| real.starts_with(d)) {
                return Err(ServerMessage::error(
                    "forbidden",
                    vec!["load".into(), source.into()],
                    format!(
                        "`load`: {source} is outside the directories clients may load from ({}); start the server with --wcp-allow-load DIR to allow more",
                        dirs.iter()
                            .map(|d| d.display().to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            }
        }
        if !p.is_file() {
            return Err(failed(&format!("cannot read {source}: no such file")));
        }
        if matches!(ext, "vcd" | "fst") {
            let Some(c) = &m.circuit else {
                return Err(no_circuit("load", m));
            };
            let Some(circuit) = c.path().map(Path::to_path_buf) else {
                return Err(failed(
                    "the open circuit is a built-in example; load the circuit's file first, then its waveform",
                ));
            };
            // Replayed in the thread; on failure what was shown stays.
            self.spawn_load(m, &circuit, Some(p.to_path_buf()), source.into(), true);
        } else {
            self.spawn_load(m, p, None, source.into(), false);
        }
        Ok(())
    }

    /// Loads `p` (with trace `vcd`) in a new thread; [`Pending::Load`] installs it.
    fn spawn_load(
        &mut self,
        m: &Model,
        p: &Path,
        vcd: Option<PathBuf>,
        source: String,
        keep: bool,
    ) {
        let job = m.prepare_open(p, vcd);
        let wake = m.wake();
        let (tx, rx) = std::sync::mpsc::channel();
        // A thread that cannot start drops `tx`: the poll reports the load as failed.
        let _ = std::thread::Builder::new()
            .name("wcp-load".into())
            .spawn(move || {
                let _ = tx.send(job());
                wake();
            });
        self.load_job = Some(LoadJob { rx, source, keep });
    }

    fn add(
        &mut self,
        m: &mut Model,
        f: &Function,
        name: &str,
        items: &[String],
        recursive: bool,
    ) -> ServerMessage {
        let mut resolved = Vec::new();
        let mut bad = Vec::new();
        for i in items {
            match resolve(f, m, i) {
                Some(Item::Marker(_)) | None => bad.push(i.clone()),
                Some(it) => resolved.push(it),
            }
        }
        if !bad.is_empty() {
            return unknown(name, bad);
        }
        let mut ids = Vec::new();
        for it in resolved {
            match it {
                Item::Channel(c) => {
                    if !m.waves.contains(&c) {
                        m.waves.push(c);
                    }
                    ids.push(f.channels[c].name.clone());
                }
                Item::Node(n) => {
                    if recursive {
                        let node = &f.nodes[n];
                        for &c in node.inputs.iter().chain(&node.outputs) {
                            if !m.waves.contains(&c) {
                                m.waves.push(c);
                            }
                            ids.push(f.channels[c].name.clone());
                        }
                    } else {
                        if !m.wave_nodes.contains(&n) {
                            m.wave_nodes.push(n);
                        }
                        ids.push(f.nodes[n].id.clone());
                    }
                }
                Item::Marker(_) => {}
            }
        }
        ServerMessage::response(name, json!({ "ids": ids }))
    }

    fn info(&self, m: &Model, f: &Function, id: &str, it: Item) -> Value {
        match it {
            Item::Channel(c) => {
                let ch = &f.channels[c];
                json!({ "id": id, "name": ch.name, "type": "Channel", "data_type": ch.ty.to_string() })
            }
            Item::Node(n) => {
                let node = &f.nodes[n];
                json!({ "id": id, "name": node.id, "type": "Node", "op": node.op.mnemonic() })
            }
            Item::Marker(k) => {
                let c = m.markers[k];
                let name = self
                    .marker_names
                    .get(&c)
                    .cloned()
                    .unwrap_or_else(|| format!("marker {}", k + 1));
                json!({ "id": id, "name": name, "type": "Marker", "cycle": c })
            }
        }
    }
}

/// `p` (absolute) without `.` and `..` components, as far as they go.
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

/// The displayed items: the waveform channels, then nodes, then markers.
fn item_list(m: &Model, f: &Function) -> Vec<String> {
    let mut v: Vec<String> = m
        .waves
        .iter()
        .map(|&c| f.channels[c].name.clone())
        .collect();
    v.extend(m.wave_nodes.iter().map(|&n| f.nodes[n].id.clone()));
    v.extend((0..m.markers.len()).map(|k| format!("marker:{k}")));
    v
}

/// A breakpoint that cannot be built.
struct BadBreakpoint {
    kind: &'static str,
    args: Vec<String>,
    message: String,
}

impl BadBreakpoint {
    fn with_command(self, name: &str) -> ServerMessage {
        let mut args = vec![name.to_string()];
        args.extend(self.args);
        ServerMessage::error(self.kind, args, format!("`{name}`: {}", self.message))
    }
}

fn to_breakpoint(f: &Function, b: &BreakpointSpec) -> Result<Breakpoint, BadBreakpoint> {
    let chan = |name: &str| {
        f.channel_by_name(name).ok_or_else(|| BadBreakpoint {
            kind: "unknown_item",
            args: vec![name.into()],
            message: format!("no channel named `{name}`"),
        })
    };
    Ok(match b {
        BreakpointSpec::ChannelFires { channel } => Breakpoint::ChannelFires(chan(channel)?),
        BreakpointSpec::Value { channel, op, value } => {
            let cmp = Cmp::ALL
                .into_iter()
                .find(|c| c.symbol() == op)
                .ok_or_else(|| BadBreakpoint {
                    kind: "invalid_arguments",
                    args: vec![op.clone()],
                    message: format!("unknown comparison `{op}` (use ==, !=, < or >)"),
                })?;
            Breakpoint::Value(chan(channel)?, cmp, *value)
        }
        BreakpointSpec::NodeFires { node } => {
            Breakpoint::NodeFires(f.node_by_id(node).ok_or_else(|| BadBreakpoint {
                kind: "unknown_item",
                args: vec![node.clone()],
                message: format!("no node named `{node}`"),
            })?)
        }
        BreakpointSpec::Deadlock => Breakpoint::Deadlock,
        BreakpointSpec::Cycle { cycle } => Breakpoint::Cycle(*cycle),
    })
}

/// Channel handshakes and data and node registers at `cycle` (which exists in the trace).
fn values(m: &Model, ids: &[String], cycle: u64) -> ServerMessage {
    let (Some(c), Some(t)) = (&m.circuit, m.trace()) else {
        return no_circuit("handscope.get_values", m);
    };
    let f = &*c.func;
    let unsigned = f.unsigned_names();
    let b = Binding::new(f, t);
    let Some(v) = t.cycle(cycle) else {
        return ServerMessage::error(
            "out_of_range",
            vec!["handscope.get_values".into(), cycle.to_string()],
            format!("`handscope.get_values`: cycle {cycle} is not in the trace"),
        );
    };
    let mut out = Vec::new();
    for id in ids {
        match resolve(f, m, id) {
            Some(Item::Channel(ch)) => {
                let Some(i) = b.chan[ch.index()] else {
                    out.push(json!({ "id": id, "kind": "channel", "recorded": false }));
                    continue;
                };
                let channel = &f.channels[ch];
                let (valid, ready, bits) = (v.valid(i), v.ready(i), v.data(i));
                let shown = unsigned.contains(&channel.name);
                out.push(json!({
                    "id": id,
                    "kind": "channel",
                    "valid": valid,
                    "ready": ready,
                    "state": ChanState::of(valid, ready).name(),
                    "data": render_value_as(bits, &channel.ty, shown),
                    "bits": bits,
                }));
            }
            Some(Item::Node(n)) => {
                let node = &f.nodes[n];
                let fires = node
                    .inputs
                    .iter()
                    .chain(&node.outputs)
                    .any(|&ch| b.chan[ch.index()].is_some_and(|i| v.valid(i) && v.ready(i)));
                let mut regs = serde_json::Map::new();
                if let (Some(words), Some(meta)) = (
                    v.state(&node.id),
                    t.state_meta().iter().find(|s| s.node == node.id),
                ) {
                    for (name, w) in meta.fields.iter().zip(words) {
                        regs.insert(name.clone(), json!(w));
                    }
                }
                out.push(json!({
                    "id": id,
                    "kind": "node",
                    "op": node.op.mnemonic(),
                    "fires": fires,
                    "registers": regs,
                }));
            }
            Some(Item::Marker(_)) | None => {}
        }
    }
    ServerMessage::response(
        "handscope.get_values",
        json!({ "cycle": cycle, "values": out }),
    )
}

/// The current selection as an item ID.
pub fn selection_id(m: &Model) -> Option<String> {
    let c = m.circuit.as_ref()?;
    Some(match m.selection? {
        Selection::Node(n) => c.func.nodes[n].id.clone(),
        Selection::Channel(ch) => c.func.channels[ch].name.clone(),
    })
}

#[cfg(test)]
mod tests {
    //! Any sequence of well-typed commands, with real and made-up IDs, cycles from 0 to
    //! `u64::MAX` and steps of any size, gets a reply for each command (after the waits the
    //! hub would do) and leaves a model that still answers: the dispatch half of the WCP
    //! fuzzing (the `wcp` fuzz target covers framing and parsing).

    use std::sync::Arc;
    use std::time::{Duration, Instant};

    use proptest::prelude::*;

    use super::*;
    use crate::app::model::Start;
    use crate::wcp::proto::{MarkerInfo, ServerMessage};

    /// Stable names of `examples/circuits/counter_loop.mlir` and names that resolve to nothing.
    const IDS: &[&str] = &[
        "control_merge0",
        "mux0",
        "buffer0",
        "fork0",
        "n",
        "start",
        "i_next",
        "marker:0",
        "marker:1",
        "marker:18446744073709551616",
        "",
        "no_such",
        "mux0.out0",
    ];

    fn id() -> impl Strategy<Value = String> {
        prop_oneof![
            proptest::sample::select(IDS).prop_map(str::to_string),
            "[a-z_0-9:.]{0,12}",
        ]
    }

    fn cycle() -> impl Strategy<Value = u64> {
        prop_oneof![0u64..40, Just(u64::MAX), Just(u64::MAX - 1), any::<u64>()]
    }

    fn breakpoint() -> impl Strategy<Value = BreakpointSpec> {
        prop_oneof![
            id().prop_map(|channel| BreakpointSpec::ChannelFires { channel }),
            (
                id(),
                proptest::sample::select(vec!["==", "!=", "<", ">", "<=", ""]),
                any::<i64>()
            )
                .prop_map(|(channel, op, value)| BreakpointSpec::Value {
                    channel,
                    op: op.to_string(),
                    value
                }),
            id().prop_map(|node| BreakpointSpec::NodeFires { node }),
            Just(BreakpointSpec::Deadlock),
            cycle().prop_map(|cycle| BreakpointSpec::Cycle { cycle }),
        ]
    }

    fn command() -> impl Strategy<Value = Command> {
        let ids = || proptest::collection::vec(id(), 0..4);
        prop_oneof![
            proptest::sample::select(vec![
                concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/../examples/circuits/counter_loop.mlir"
                ),
                concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/../examples/circuits/no_such_file.mlir"
                ),
                concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/circuits"),
                concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/kernels/matmul.c"),
                concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"),
                "examples/circuits/counter_loop.mlir",
                "",
            ])
            .prop_map(|s| Command::Load {
                source: s.to_string()
            }),
            ids().prop_map(|variables| Command::AddVariables { variables }),
            (ids(), any::<bool>())
                .prop_map(|(items, recursive)| Command::AddItems { items, recursive }),
            proptest::collection::vec(
                (cycle(), proptest::option::of("[a-z]{0,4}"), any::<bool>()),
                0..3
            )
            .prop_map(|m| Command::AddMarkers {
                markers: m
                    .into_iter()
                    .map(|(time, name, move_focus)| MarkerInfo {
                        time,
                        name,
                        move_focus
                    })
                    .collect()
            }),
            cycle().prop_map(|timestamp| Command::SetCursor { timestamp }),
            cycle().prop_map(|timestamp| Command::SetViewportTo { timestamp }),
            (cycle(), cycle()).prop_map(|(start, end)| Command::SetViewportRange { start, end }),
            id().prop_map(|id| Command::FocusItem { id }),
            any::<usize>().prop_map(|viewport_idx| Command::ZoomToFit { viewport_idx }),
            Just(Command::GetItemList),
            ids().prop_map(|ids| Command::GetItemInfo { ids }),
            ids().prop_map(|ids| Command::RemoveItems { ids }),
            Just(Command::Reload),
            Just(Command::Clear),
            prop_oneof![-50i64..50, Just(i64::MIN), Just(i64::MAX), any::<i64>()]
                .prop_map(|cycles| Command::Step { cycles }),
            prop_oneof![Just(Direction::Forward), Just(Direction::Backward)]
                .prop_map(|direction| Command::RunTo { direction }),
            breakpoint().prop_map(|breakpoint| Command::SetBreakpoint { breakpoint }),
            proptest::option::of(ids()).prop_map(|ids| Command::ClearBreakpoints { ids }),
            Just(Command::ListBreakpoints),
            (ids(), proptest::option::of(cycle()))
                .prop_map(|(ids, cycle)| Command::GetValues { ids, cycle }),
            Just(Command::GetCursor),
            Just(Command::ListItems),
            Just(Command::DeadlockReport),
            Just(Command::RunReport),
        ]
    }

    /// Starts `cmd` and polls it as the hub does (the model updated between polls) until it
    /// replies; panics if it has not after 20 s.
    fn reply(ctl: &mut Controller, m: &mut Model, cmd: &Command) -> ServerMessage {
        let deadline = Instant::now() + Duration::from_secs(20);
        let mut outcome = ctl.start(m, cmd);
        loop {
            match outcome {
                Outcome::Reply(r) => return r,
                Outcome::Wait(p) => {
                    assert!(Instant::now() < deadline, "{cmd:?} never replied ({p:?})");
                    m.update(0.0);
                    std::thread::sleep(Duration::from_millis(1));
                    outcome = ctl.poll(m, &p);
                }
            }
        }
    }

    fn counter_loop() -> Model {
        Model::new(
            Start::File(
                concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/../examples/circuits/counter_loop.mlir"
                )
                .into(),
                None,
                Default::default(),
                None,
                Default::default(),
            ),
            Arc::new(|| {}),
        )
    }

    /// Issue 36, item 7: `add_markers` is linear in the markers set. Before: each marker
    /// searched the list twice (8.4 s per message at 220k markers; 100k in one message
    /// never finished); after: one pass, and existing markers keep their IDs.
    #[test]
    fn many_markers_are_added_in_one_pass() {
        let mut m = counter_loop();
        let mut ctl = Controller::default();
        let markers = |times: &mut dyn Iterator<Item = u64>| Command::AddMarkers {
            markers: times
                .map(|time| MarkerInfo {
                    time,
                    name: None,
                    move_focus: false,
                })
                .collect(),
        };
        let r = reply(&mut ctl, &mut m, &markers(&mut (0..100_000)));
        let ServerMessage::Response { fields, .. } = r else {
            panic!("{r:?}")
        };
        assert_eq!(fields["ids"][99_999], "marker:99999");
        assert_eq!(m.markers.len(), 100_000);
        // Old and new, and the same new one twice.
        let r = reply(
            &mut ctl,
            &mut m,
            &markers(&mut [5, 100_000, 7, 100_000].into_iter()),
        );
        let ServerMessage::Response { fields, .. } = r else {
            panic!("{r:?}")
        };
        assert_eq!(
            fields["ids"],
            json!(["marker:5", "marker:100000", "marker:7", "marker:100000"])
        );
        assert_eq!(m.markers.len(), 100_001);
    }

    /// Issue 36, item 7: `load` reads the file in a thread of its own. Before: the model's
    /// thread parsed it, and every client waited (20 s for a 36 MB circuit); after: `load`
    /// waits while other commands are answered, then installs the circuit.
    #[test]
    fn load_runs_off_the_models_thread() {
        let mut m = counter_loop();
        let mut ctl = Controller::default();
        let load = Command::Load {
            source: concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../examples/circuits/deadlock_join.mlir"
            )
            .into(),
        };
        let Outcome::Wait(p) = ctl.start(&mut m, &load) else {
            panic!("load answered at once")
        };
        assert_eq!(p, Pending::Load { command: "load" });
        // Others are served meanwhile, on the circuit still shown; a second load is `busy`.
        let r = reply(&mut ctl, &mut m, &Command::GetCursor);
        assert!(matches!(r, ServerMessage::Response { .. }), "{r:?}");
        let Outcome::Reply(ServerMessage::Error { error, .. }) = ctl.start(&mut m, &load) else {
            panic!("a second load was started")
        };
        assert_eq!(error, "busy");
        let deadline = Instant::now() + Duration::from_secs(20);
        let r = loop {
            match ctl.poll(&mut m, &p) {
                Outcome::Reply(r) => break r,
                Outcome::Wait(_) => {
                    assert!(Instant::now() < deadline, "the load never finished");
                    std::thread::sleep(Duration::from_millis(5));
                }
            }
        };
        assert!(matches!(r, ServerMessage::Response { .. }), "{r:?}");
        let f = &m.circuit.as_ref().expect("a circuit").func;
        assert!(f.node_by_id("join0").is_some());
    }

    /// Issue 36, item 8: `load` outside the allowed directories is `forbidden`, whether the
    /// file exists or not, through a symlink or `..`.
    #[test]
    fn load_outside_the_allowed_directories_is_forbidden() {
        let mut m = counter_loop();
        let mut ctl = Controller::default();
        let circuits =
            std::fs::canonicalize(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/circuits"))
                .unwrap();
        ctl.allow_loads_from(vec![circuits.clone()]);
        for source in [
            concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md").to_string(),
            format!("{}/../kernels/dot.c", circuits.display()),
            format!("{}/../no_such.mlir", circuits.display()),
            "/etc/passwd".into(),
        ] {
            let r = reply(
                &mut ctl,
                &mut m,
                &Command::Load {
                    source: source.clone(),
                },
            );
            let ServerMessage::Error { error, .. } = &r else {
                panic!("{source}: {r:?}")
            };
            assert_eq!(error, "forbidden", "{source}");
        }
        let r = reply(
            &mut ctl,
            &mut m,
            &Command::Load {
                source: format!("{}/deadlock_join.mlir", circuits.display()),
            },
        );
        assert!(matches!(r, ServerMessage::Response { .. }), "{r:?}");
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        #[test]
        fn any_command_sequence_gets_replies(cmds in proptest::collection::vec(command(), 1..10)) {
            // Absolute paths: the tests share one working directory (the crate's).
            let mut m = Model::new(
                Start::File(
                    concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/circuits/counter_loop.mlir").into(),
                    None,
                    Default::default(),
                    None,
                    Default::default(),
                ),
                Arc::new(|| {}),
            );
            let mut ctl = Controller::default();
            for cmd in &cmds {
                let r = reply(&mut ctl, &mut m, cmd);
                // Every reply goes on the wire as JSON.
                let wire = crate::wcp::codec::encode(&r);
                prop_assert!(serde_json::from_slice::<Value>(&wire[..wire.len() - 1]).is_ok());
            }
            // The model still answers afterwards.
            let r = reply(&mut ctl, &mut m, &Command::GetCursor);
            let wire = String::from_utf8(crate::wcp::codec::encode(&r)).expect("UTF-8");
            prop_assert!(wire.contains("\"cycle\""), "{wire}");
        }
    }
}
