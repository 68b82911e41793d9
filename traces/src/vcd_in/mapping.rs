//! Mapping a VCD's signals onto a function's channels and component state.
//!
//! Naming schemes tried for every channel, in this order, inside the *function scope* (the
//! scope of the function's top module; chosen as the scope holding the clock in which most
//! channels match, or given):
//! 1. an explicit mapping file: lines `channel_name signal_prefix` (`#` starts a comment);
//!    the prefix is a dotted path relative to the function scope or from the root, and names
//!    `<prefix>`, `<prefix>_valid`, `<prefix>_ready`;
//! 2. Handscope's SystemVerilog: nets `<node>_<port>` (node ID encoded with
//!    `encode_instance_name` rules), argument ports `<arg>`;
//! 3. instance ports `<node>.<port>` (same encoding), as Verilator traces them;
//! 4. Handscope's own VCD writer: scopes along the node ID's `/` hierarchy;
//! 5. Dynamatic's RTL (GHDL or ModelSim running its VHDL): nets `<handshake.name>_<port>`
//!    with Dynamatic's port names ([`crate::dynamatic_names`]);
//! 6. CIRCT 1.62: nets `_<inst>_<port>` with `ready` on the consumer's net
//!    `_<consumer inst>_<input port>_ready`, result ports (`resNames` or `out<k>`), argument
//!    ports (`argNames` or `in<i>`); instances `handshake_<op><k>` / `arith_<op><k>` counted
//!    per op kind in textual order (or `<op>_id<N>` with `handshake_id`), whatever the
//!    `handshake.name`; then CIRCT instance ports `<inst>.<port>`.
//!
//! State words are looked up in the node's instance scope by their engine name with `.`
//! written `_` (`emitted_0`, `won`, `slot0_skid_valid`), or CIRCT's register names
//! ([`circt_names::state_register_names`]: `valid<k>_reg`/`data<k>_reg`/`ready<k>_reg`/
//! `ctrl_data<k>_reg` of buffer slots, `won_reg`, `result_emitted_reg`, `index_emitted_reg`,
//! `writeValidBuffer`).

use std::collections::{BTreeMap, BTreeSet};

use handscope_sim::spec::RegField;
use handscope_sim::trace::StateMeta;
use handscope_sim::{Function, NodeId, Op};
use serde::Serialize;

use super::parse::Header;
use crate::circt_names::{self, ChannelSite};
use crate::vcd_out::sanitize;

/// Where one channel's signals were found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChannelMatch {
    /// Channel name.
    pub channel: String,
    /// Path of its `valid` signal.
    pub valid: String,
    /// Naming scheme that matched (`map-file`, `handscope-sv`, `instance-port`,
    /// `handscope-vcd`, `dynamatic`, `circt-net`, `circt-instance`).
    pub scheme: &'static str,
}

/// What the mapping found.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MappingReport {
    /// The function scope (dotted path, empty for the root).
    pub scope: String,
    /// The clock signal.
    pub clock: String,
    /// The reset signal, if any.
    pub reset: Option<String>,
    /// Channels with signals.
    pub matched: Vec<ChannelMatch>,
    /// Channels without signals (their valid/ready/data read as 0).
    pub unmatched_channels: Vec<String>,
    /// Channels inside Dynamatic's multi-cycle units (from a unit's combinational node to its
    /// pipeline), which Dynamatic's RTL has no net for: they read as idle, and a replay does
    /// not count them as missing.
    pub unit_internal_channels: Vec<String>,
    /// Signals directly in the function scope that no channel uses.
    pub unmatched_signals: Vec<String>,
    /// Number of state words rebuilt from register signals, of all state words.
    pub state_words: (usize, usize),
}

/// Signal codes of one channel.
#[derive(Clone, Copy, Debug, Default)]
pub struct ChannelCodes {
    /// `valid`.
    pub valid: Option<u32>,
    /// `ready`.
    pub ready: Option<u32>,
    /// `data`.
    pub data: Option<u32>,
}

/// The mapping used for sampling.
#[derive(Clone, Debug)]
pub struct Mapping {
    /// Per channel, in `f.channels` order.
    pub channels: Vec<ChannelCodes>,
    /// Per state word (in [`StateMeta`] order).
    pub state: Vec<Option<u32>>,
    /// Clock code.
    pub clock: u32,
    /// Reset code.
    pub reset: Option<u32>,
    /// The report.
    pub report: MappingReport,
}

/// Mapping failures.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MapError {
    /// No clock.
    #[error("no clock signal found (looked for `clock` and `clk`); name it with --clock")]
    NoClock,
    /// The named clock does not exist.
    #[error("clock signal `{0}` not found")]
    ClockNotFound(String),
    /// The requested scope does not exist.
    #[error("no scope `{0}` holding a clock")]
    NoScope(String),
    /// Bad mapping file line.
    #[error("mapping file line {line}: {message}")]
    MapFile {
        /// 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
}

/// Parses a mapping file: `channel_name signal_prefix` per line.
pub fn parse_map_file(text: &str, f: &Function) -> Result<BTreeMap<String, String>, MapError> {
    let mut m = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let mut it = line.split_whitespace();
        let (Some(c), Some(p), None) = (it.next(), it.next(), it.next()) else {
            return Err(MapError::MapFile {
                line: i + 1,
                message: format!("expected `channel signal_prefix`, got `{line}`"),
            });
        };
        if f.channel_by_name(c).is_none() {
            return Err(MapError::MapFile {
                line: i + 1,
                message: format!("@{} has no channel `{c}`", f.name),
            });
        }
        m.insert(c.to_string(), p.to_string());
    }
    Ok(m)
}

// Stable IDs are encoded like the SystemVerilog back end does (the shared implementation);
// CIRCT 1.62's instance names come from `crate::circt_names`.
use crate::circt_names::instance_names as circt_instance_names;
use handscope_sim::rtl_names::encode_instance_name as encode_id;

struct Index<'h> {
    by_path: BTreeMap<String, (u32, u32)>,
    /// The same paths in lower case: VHDL names are case-insensitive and GHDL writes them in
    /// lower case (`load0_addrout` for Dynamatic's `load0_addrOut`).
    by_lower: BTreeMap<String, (u32, u32)>,
    h: &'h Header,
}

impl Index<'_> {
    fn get(&self, path: &str) -> Option<u32> {
        self.by_path
            .get(path)
            .or_else(|| self.by_lower.get(&path.to_ascii_lowercase()))
            .map(|x| x.0)
    }
}

fn join(scope: &str, rest: &str) -> String {
    if scope.is_empty() {
        rest.to_string()
    } else {
        format!("{scope}.{rest}")
    }
}

/// Candidate `(valid, ready, data)` paths for channel `cid`, with scheme names.
fn candidates(
    f: &Function,
    cid: handscope_sim::ChannelId,
    circt: &BTreeMap<NodeId, String>,
    map: &BTreeMap<String, String>,
    scope: &str,
) -> Vec<(&'static str, String, String, String)> {
    let ch = &f.channels[cid];
    let p = &f.nodes[ch.producer.node];
    let mut v = Vec::new();
    let trio = |base: &str| {
        (
            format!("{base}_valid"),
            format!("{base}_ready"),
            base.to_string(),
        )
    };
    if let Some(pre) = map.get(&ch.name) {
        for b in [join(scope, pre), pre.clone()] {
            let (a, r, d) = trio(&b);
            v.push(("map-file", a, r, d));
        }
    }
    match p.op {
        Op::Argument { index } => {
            let mut names = vec![
                encode_id(&f.args[index].name),
                f.args[index].name.clone(),
                format!("in{index}"),
            ];
            names.dedup();
            for n in names {
                let (a, r, d) = trio(&join(scope, &n));
                v.push(("argument", a, r, d));
            }
        }
        _ => {
            let port = p.op.output_port_name(ch.producer.port as usize);
            let enc = encode_id(&p.id);
            let (a, r, d) = trio(&join(scope, &format!("{enc}_{port}")));
            v.push(("handscope-sv", a, r, d));
            let (a, r, d) = trio(&join(scope, &format!("{enc}.{port}")));
            v.push(("instance-port", a, r, d));
            if let Some(net) = crate::dynamatic_names::channel_net(f, cid) {
                let (a, r, d) = trio(&join(scope, &net));
                v.push(("dynamatic", a, r, d));
            }
            let path: Vec<String> = p.id.split('/').map(sanitize).collect();
            let (a, r, d) = trio(&join(
                scope,
                &format!("{}.{}", path.join("."), sanitize(&port)),
            ));
            v.push(("handscope-vcd", a, r, d));
            if let Some(inst) = circt.get(&ch.producer.node) {
                match circt_names::channel_site(f, cid, circt) {
                    Ok(ChannelSite::Result(k)) => {
                        let res = f.results.get(k).map(|r| r.name.clone()).unwrap_or_default();
                        for n in [res, format!("out{k}")] {
                            let (a, r, d) = trio(&join(scope, &n));
                            v.push(("circt-net", a, r, d));
                        }
                    }
                    Ok(ChannelSite::Net { base, ready }) => {
                        let base = join(scope, &base);
                        v.push((
                            "circt-net",
                            format!("{base}_valid"),
                            join(scope, &ready),
                            base,
                        ));
                    }
                    Ok(ChannelSite::Argument(_)) | Err(_) => {}
                }
                let (a, r, d) = trio(&join(scope, &format!("{inst}.{port}")));
                v.push(("circt-instance", a, r, d));
            }
        }
    }
    v
}

/// Maps `f`'s channels and state words onto the signals of `h`.
pub fn map_signals(
    h: &Header,
    f: &Function,
    state_meta: &[StateMeta],
    map_file: &BTreeMap<String, String>,
    clock: Option<&str>,
    scope_hint: Option<&str>,
) -> Result<Mapping, MapError> {
    let mut by_path = BTreeMap::new();
    for (i, v) in h.vars.iter().enumerate() {
        by_path.entry(v.path()).or_insert((v.code, i as u32));
    }
    let mut by_lower = BTreeMap::new();
    for (p, &v) in &by_path {
        by_lower.entry(p.to_ascii_lowercase()).or_insert(v);
    }
    let idx = Index {
        by_path,
        by_lower,
        h,
    };
    let circt = circt_instance_names(f);
    // Scopes holding a clock.
    let clock_names: Vec<&str> = match clock {
        Some(c) => vec![c.rsplit('.').next().unwrap_or(c)],
        None => vec!["clock", "clk"],
    };
    let mut scopes: Vec<String> = Vec::new();
    for v in &h.vars {
        if clock_names.contains(&v.name.as_str()) {
            let s = v.scope.join(".");
            if let Some(c) = clock
                && c.contains('.')
                && v.path() != c
                && !v.path().ends_with(&format!(".{c}"))
            {
                continue;
            }
            if !scopes.contains(&s) {
                scopes.push(s);
            }
        }
    }
    if scopes.is_empty() {
        return Err(match clock {
            Some(c) => MapError::ClockNotFound(c.to_string()),
            None => MapError::NoClock,
        });
    }
    if let Some(hint) = scope_hint {
        scopes.retain(|s| s == hint || s.ends_with(&format!(".{hint}")));
        if scopes.is_empty() {
            return Err(MapError::NoScope(hint.to_string()));
        }
    }
    let try_scope = |scope: &str| {
        let mut chans = Vec::new();
        let mut matched = Vec::new();
        let mut unmatched = Vec::new();
        let mut internal = Vec::new();
        for (cid, ch) in f.channels.iter() {
            let w = ch.ty.bit_width();
            let mut found = None;
            for (scheme, a, r, d) in candidates(f, cid, &circt, map_file, scope) {
                let (Some(va), Some(re)) = (idx.get(&a), idx.get(&r)) else {
                    continue;
                };
                let data = if w > 0 {
                    match idx.get(&d) {
                        Some(x) => Some(x),
                        None => continue,
                    }
                } else {
                    None
                };
                found = Some((
                    ChannelCodes {
                        valid: Some(va),
                        ready: Some(re),
                        data,
                    },
                    scheme,
                    a,
                    r,
                    d,
                ));
                break;
            }
            match found {
                Some((codes, scheme, a, r, d)) => {
                    chans.push(codes);
                    matched.push((
                        ChannelMatch {
                            channel: ch.name.clone(),
                            valid: a,
                            scheme,
                        },
                        r,
                        d,
                    ));
                }
                None => {
                    chans.push(ChannelCodes::default());
                    if crate::dynamatic_names::is_unit_internal(f, cid) {
                        internal.push(ch.name.clone());
                    } else {
                        unmatched.push(ch.name.clone());
                    }
                }
            }
        }
        (chans, matched, unmatched, internal)
    };
    let mut best: Option<(String, _)> = None;
    for s in &scopes {
        let r = try_scope(s);
        type Tried = (
            Vec<ChannelCodes>,
            Vec<(ChannelMatch, String, String)>,
            Vec<String>,
            Vec<String>,
        );
        if best
            .as_ref()
            .is_none_or(|(_, b): &(String, Tried)| r.1.len() > b.1.len())
        {
            best = Some((s.clone(), r));
        }
    }
    let Some((scope, (channels, matched, unmatched_channels, unit_internal_channels))) = best
    else {
        return Err(MapError::NoClock);
    };
    let clock_path = clock_names
        .iter()
        .map(|n| join(&scope, n))
        .find(|p| idx.get(p).is_some())
        .ok_or(MapError::NoClock)?;
    let clock_code = idx.get(&clock_path).ok_or(MapError::NoClock)?;
    let reset_path = ["reset", "rst"]
        .iter()
        .map(|n| join(&scope, n))
        .find(|p| idx.get(p).is_some());
    let reset = reset_path.as_ref().and_then(|p| idx.get(p));
    // State words.
    let mut state = Vec::new();
    let mut found_state = 0;
    for meta in state_meta {
        let node = f.node_by_id(&meta.node);
        let mut insts = vec![
            encode_id(&meta.node),
            meta.node
                .split('/')
                .map(sanitize)
                .collect::<Vec<_>>()
                .join("."),
        ];
        if let Some(ci) = node.and_then(|n| circt.get(&n)) {
            insts.push(ci.clone());
        }
        for field in &meta.fields {
            let plain = field.replace('.', "_");
            let mut names = vec![plain.clone(), sanitize(field)];
            if let Some(f) = RegField::parse(field) {
                names.extend(circt_names::state_register_names(f));
            }
            let sc = scope.as_str();
            let code = insts
                .iter()
                .flat_map(|i| names.iter().map(move |n| join(sc, &format!("{i}.{n}"))))
                .find_map(|p| idx.get(&p));
            found_state += usize::from(code.is_some());
            state.push(code);
        }
    }
    // Signals in the function scope that nothing uses.
    let mut used: BTreeSet<String> = BTreeSet::new();
    for (m, r, d) in &matched {
        used.insert(m.valid.clone());
        used.insert(r.clone());
        used.insert(d.clone());
    }
    used.insert(clock_path.clone());
    used.extend(reset_path.clone());
    used.insert(join(&scope, "hs_any_fire"));
    let prefix = if scope.is_empty() {
        String::new()
    } else {
        format!("{scope}.")
    };
    let unmatched_signals = idx
        .h
        .vars
        .iter()
        .filter(|v| v.scope.join(".") == scope)
        .map(|v| v.path())
        .filter(|p| !used.contains(p))
        .map(|p| p.strip_prefix(&prefix).unwrap_or(&p).to_string())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let report = MappingReport {
        scope: scope.clone(),
        clock: clock_path,
        reset: reset_path,
        matched: matched.into_iter().map(|m| m.0).collect(),
        unmatched_channels,
        unit_internal_channels,
        unmatched_signals,
        state_words: (found_state, state.len()),
    };
    Ok(Mapping {
        channels,
        state,
        clock: clock_code,
        reset,
        report,
    })
}
