//! The hub: the one place where client messages meet the debugger's [`Model`]. It runs on the
//! thread that owns the model (the window's frame loop or `handscope serve`'s loop), takes
//! what the network side sent, answers greetings and commands through the
//! [`Controller`](super::dispatch::Controller), keeps commands that wait for the engine, and
//! turns changes of the model (cursor, selection, the run's end) into events. It never
//! blocks: replies and events go into bounded per-client queues, and a client whose queue is
//! full is dropped.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::json;
use tokio::sync::oneshot;

use super::dispatch::{Controller, Outcome, Pending, selection_id};
use super::proto::{ClientMessage, Command, EVENTS, ServerMessage, VERSION};
use super::server::{Outgoing, ToHub};
use crate::app::model::Model;

struct Client {
    out: Outgoing,
    greeted: bool,
    /// Events this client asked for in its greeting.
    wants: BTreeSet<String>,
    /// A command waiting for the model, with the signal that lets the client's next frame in.
    pending: Option<(Pending, oneshot::Sender<bool>)>,
}

/// What the model looked like at the last poll (events are the differences).
#[derive(Default)]
struct Seen {
    cursor: u64,
    selection: Option<String>,
    complete: bool,
    generation: u64,
}

/// One line of a session transcript: who said what.
#[derive(Clone, Debug, PartialEq)]
pub struct LogLine {
    /// The client number.
    pub client: u64,
    /// `true`: client to server.
    pub incoming: bool,
    /// The message as JSON.
    pub json: String,
}

/// Connects the network side to a model.
pub struct Hub {
    rx: crossbeam_channel::Receiver<ToHub>,
    clients: BTreeMap<u64, Client>,
    ctl: Controller,
    seen: Option<Seen>,
    /// Loads whose client left before they finished: they are still installed (and other
    /// loads wait for them).
    orphan_loads: Vec<Pending>,
    /// A client sent `shutdown`.
    pub shutdown_requested: bool,
    /// Receives every message in and out, when set (`handscope serve --transcript` writes
    /// each to its file as it goes, so a long session keeps none of them in memory).
    pub transcript: Option<TranscriptSink>,
}

/// Where the transcript's lines go (`Hub::transcript`).
pub type TranscriptSink = Box<dyn FnMut(&LogLine)>;

impl Hub {
    /// A hub answering the clients of `server` (from [`super::server::Server::start`]);
    /// they may `load` what the server allows ([`super::server::Server::load_dirs`]).
    pub fn new(server: &super::server::Server) -> Hub {
        let mut ctl = Controller::default();
        ctl.allow_loads_from(server.load_dirs.clone());
        Hub {
            rx: server.rx.clone(),
            clients: BTreeMap::new(),
            ctl,
            seen: None,
            orphan_loads: Vec::new(),
            shutdown_requested: false,
            transcript: None,
        }
    }

    /// Lets clients also `load` (and `reload`) `file`, the one the server opened.
    pub fn allow_load_of(&mut self, file: &std::path::Path, dirs: &[std::path::PathBuf]) {
        let mut all = dirs.to_vec();
        all.extend(std::fs::canonicalize(file).ok());
        self.ctl.allow_loads_from(all);
    }

    /// Handles what arrived, re-checks waiting commands, sends events. Returns true while a
    /// command waits (call again soon, with the model updated).
    pub fn poll(&mut self, m: &mut Model) -> bool {
        if self.seen.is_none() {
            self.seen = Some(self.snapshot(m));
        }
        // Events of changes made so far (the window's user, the engine) go out first; then
        // after each message the events it caused, so that a client that hears a reply and
        // sends its next command (maybe on another connection) never overtakes them.
        self.events(m);
        while let Ok(msg) = self.rx.try_recv() {
            self.take(m, msg);
            self.events(m);
        }
        let ids: Vec<u64> = self
            .clients
            .iter()
            .filter(|(_, c)| c.pending.is_some())
            .map(|(&k, _)| k)
            .collect();
        for id in ids {
            let Some((p, _)) = self.clients.get(&id).and_then(|c| c.pending.as_ref()) else {
                continue;
            };
            let p = p.clone();
            if let Outcome::Reply(r) = self.ctl.poll(m, &p)
                && let Some((_, done)) = self.clients.get_mut(&id).and_then(|c| c.pending.take())
            {
                let loaded =
                    matches!(p, Pending::Load { .. }) && !matches!(r, ServerMessage::Error { .. });
                self.send(id, r);
                let _ = done.send(false);
                if loaded {
                    self.loaded(m);
                }
                self.events(m);
            }
        }
        let orphans = std::mem::take(&mut self.orphan_loads);
        for p in orphans {
            match self.ctl.poll(m, &p) {
                Outcome::Wait(p) => self.orphan_loads.push(p),
                Outcome::Reply(r) => {
                    if !matches!(r, ServerMessage::Error { .. }) {
                        self.loaded(m);
                    }
                }
            }
        }
        self.events(m);
        self.clients.values().any(|c| c.pending.is_some()) || !self.orphan_loads.is_empty()
    }

    fn snapshot(&self, m: &Model) -> Seen {
        Seen {
            cursor: m.cycle,
            selection: selection_id(m),
            complete: m.complete() && m.circuit.is_some(),
            generation: m.generation,
        }
    }

    fn take(&mut self, m: &mut Model, msg: ToHub) {
        match msg {
            ToHub::Connected { client, out, .. } => {
                self.clients.insert(
                    client,
                    Client {
                        out,
                        greeted: false,
                        wants: BTreeSet::new(),
                        pending: None,
                    },
                );
            }
            ToHub::Disconnected { client } => self.drop_client(client),
            ToHub::Message {
                client,
                msg,
                text,
                done,
            } => {
                if let Some(log) = &mut self.transcript {
                    // The frame as sent when it is JSON, else as a JSON string.
                    let json = serde_json::from_str::<serde_json::Value>(&text)
                        .map_or_else(|_| json!(text).to_string(), |v| v.to_string());
                    log(&LogLine {
                        client,
                        incoming: true,
                        json,
                    });
                }
                let reply = match msg {
                    Err(reply) => reply,
                    Ok(ClientMessage::Greeting {
                        version, commands, ..
                    }) => {
                        if version != VERSION {
                            ServerMessage::error(
                                "unsupported_version",
                                vec!["greeting".into(), version.clone()],
                                format!(
                                    "this server speaks WCP version {VERSION}; the client asked for {version}"
                                ),
                            )
                        } else if let Some(c) = self.clients.get_mut(&client) {
                            c.greeted = true;
                            c.wants = commands
                                .into_iter()
                                .filter(|e| EVENTS.contains(&e.as_str()))
                                .collect();
                            ServerMessage::greeting()
                        } else {
                            return;
                        }
                    }
                    Ok(ClientMessage::Command(cmd)) => {
                        if !self.clients.get(&client).is_some_and(|c| c.greeted) {
                            ServerMessage::error(
                                "not_greeted",
                                vec![cmd.name().into()],
                                "send a greeting before any command",
                            )
                        } else {
                            if matches!(cmd, Command::Shutdown) {
                                self.shutdown_requested = true;
                            }
                            let loads = matches!(cmd, Command::Load { .. } | Command::Reload);
                            match self.ctl.start(m, &cmd) {
                                Outcome::Reply(r) => {
                                    let ok = !matches!(r, ServerMessage::Error { .. });
                                    self.send(client, r);
                                    let _ = done.send(false);
                                    if loads && ok {
                                        self.loaded(m);
                                    }
                                }
                                Outcome::Wait(p) => {
                                    if let Some(c) = self.clients.get_mut(&client) {
                                        c.pending = Some((p, done));
                                    }
                                }
                            }
                            return;
                        }
                    }
                };
                self.send(client, reply);
                let _ = done.send(false);
            }
        }
    }

    /// Queues `msg` for `client`; a client whose queue is full is dropped.
    fn send(&mut self, client: u64, msg: ServerMessage) {
        if let Some(log) = &mut self.transcript {
            log(&LogLine {
                client,
                incoming: false,
                json: serde_json::to_string(&msg).unwrap_or_default(),
            });
        }
        let Some(c) = self.clients.get(&client) else {
            return;
        };
        if c.out.try_send(Some(msg)).is_err() {
            self.drop_client(client);
        }
    }

    /// Forgets `client`; a load it was waiting for goes on (see `orphan_loads`).
    fn drop_client(&mut self, client: u64) {
        if let Some(c) = self.clients.remove(&client)
            && let Some((p @ Pending::Load { .. }, _)) = c.pending
        {
            self.orphan_loads.push(p);
        }
    }

    fn broadcast(&mut self, event: &str, fields: serde_json::Value) {
        let to: Vec<u64> = self
            .clients
            .iter()
            .filter(|(_, c)| c.greeted && c.wants.contains(event))
            .map(|(&k, _)| k)
            .collect();
        for k in to {
            self.send(k, ServerMessage::event(event, fields.clone()));
        }
    }

    fn loaded(&mut self, m: &Model) {
        let source = m
            .vcd
            .clone()
            .or_else(|| m.circuit.as_ref()?.path().map(|p| p.to_path_buf()))
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        self.broadcast("waveforms_loaded", json!({ "source": source }));
        if let Some(s) = &mut self.seen {
            s.generation = m.generation;
        }
    }

    fn events(&mut self, m: &Model) {
        let now = self.snapshot(m);
        let Some(seen) = self.seen.take() else {
            self.seen = Some(now);
            return;
        };
        if now.generation != seen.generation {
            // A reload the window did (file changed on disk).
            self.broadcast("waveforms_loaded", json!({ "generation": now.generation }));
        }
        if now.cursor != seen.cursor {
            self.broadcast("cursor_moved", json!({ "cycle": now.cursor }));
        }
        if now.selection != seen.selection {
            self.broadcast("selection_changed", json!({ "id": now.selection }));
        }
        if now.complete && !seen.complete {
            let report = m.source.as_ref().and_then(|s| s.report());
            self.broadcast(
                "run_finished",
                json!({
                    "status": report.map(|r| r.status.as_str()),
                    "cycles": m.cycles(),
                }),
            );
        }
        self.seen = Some(now);
    }
}
