//! The inspector's sentence: what the selected component does, in plain English, and what it is
//! doing at the cursor ("fork: copies each input token to its 2 outputs; now: sent out0,
//! waiting for out1 to accept"). One arm per op kind, no catch-all: a new op must say what it
//! does here.

use cranelift_entity::EntityRef;
use handscope_sim::spec::NodeState;
use handscope_sim::{ArithClass, ChannelId, DynBufferKind, Function, NodeId, Op};

use super::binding::Binding;
use super::cycle::CycleState;
use super::style::{ChanState, Radix, format_value};

/// What a node reads at one cycle.
struct At<'a> {
    f: &'a Function,
    n: NodeId,
    cs: &'a CycleState,
    radix: Radix,
    state: NodeState,
}

impl At<'_> {
    fn node(&self) -> &handscope_sim::Node {
        &self.f.nodes[self.n]
    }
    fn st(&self, c: ChannelId) -> ChanState {
        self.cs.chan(c.index())
    }
    fn valid(&self, c: ChannelId) -> bool {
        self.cs.valid.get(c.index()).copied().unwrap_or(false)
    }
    fn value(&self, c: ChannelId) -> String {
        format_value(
            self.cs.data.get(c.index()).copied().unwrap_or(0),
            &self.f.channels[c].ty,
            self.radix,
        )
    }
    fn in_name(&self, k: usize) -> String {
        self.node().op.input_port_name(k)
    }
    fn out_name(&self, k: usize) -> String {
        self.node().op.output_port_name(k)
    }
    /// The input ports without a token, by name.
    fn missing_inputs(&self) -> Vec<String> {
        let node = self.node();
        (0..node.inputs.len())
            .filter(|&k| !self.valid(node.inputs[k]))
            .map(|k| self.in_name(k))
            .collect()
    }
    /// What a node that needs all its inputs and has one output is doing.
    fn join_like(&self, what: &str) -> String {
        let node = self.node();
        let missing = self.missing_inputs();
        if !missing.is_empty() && missing.len() < node.inputs.len() {
            return format!("waiting for {}", list(&missing));
        }
        if !missing.is_empty() {
            return "waiting for its inputs".into();
        }
        self.output_now(what)
    }
    /// The state of a node whose inputs are all there, by its first output.
    fn output_now(&self, what: &str) -> String {
        let Some(&o) = self.node().outputs.first() else {
            return "consuming its inputs".into();
        };
        let v = if self.f.channels[o].ty.is_none() {
            String::new()
        } else {
            format!(" {}", self.value(o))
        };
        match self.st(o) {
            ChanState::Transfer => format!("{what}{v}, taken this cycle"),
            ChanState::Stall => format!("{what}{v}, waiting for it to be accepted"),
            ChanState::Accept | ChanState::Idle => "waiting for its inputs".into(),
        }
    }
}

fn list(v: &[String]) -> String {
    match v {
        [] => String::new(),
        [a] => a.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// What a static island does and is doing: its schedule, and while it runs, which iteration
/// each stage holds.
fn island_sentence(x: &At<'_>, isl: &handscope_sim::island::Island) -> (String, String) {
    use handscope_sim::spec::IslandPhase;
    let does = match isl.loop_pipeline() {
        Some(p) => format!(
            "static island: the loop at line {} scheduled at compile time, a new iteration every {}, each {} long ({}); it takes its {} inputs together, and offers its results (n - 1) × {} + {} cycles later for n iterations",
            p.line,
            plural(p.ii as usize, "cycle", "cycles"),
            plural(p.latency as usize, "cycle", "cycles"),
            plural(p.stages() as usize, "stage", "stages"),
            x.node().inputs.len(),
            p.ii,
            p.latency
        ),
        None => format!(
            "static island: {} scheduled at compile time ({}); it takes its inputs together and offers its results when its schedule says",
            plural(isl.blocks.len(), "block", "blocks"),
            plural(isl.pipelines.len(), "pipelined loop", "pipelined loops")
        ),
    };
    // Expanded: its operations block by block.
    let does = format!("{does}\n{}", isl.block_listing().join("\n"));
    let NodeState::Island(st) = &x.state else {
        return (does, "idle".into());
    };
    let now = match st.phase {
        IslandPhase::Idle if x.missing_inputs().is_empty() => {
            "takes its inputs: its first iteration begins".to_string()
        }
        IslandPhase::Idle => x.join_like("takes its inputs"),
        IslandPhase::Running => {
            let rows = isl.stage_table(Some((st.elapsed, st.iterations)));
            let table: Vec<String> = rows
                .iter()
                .map(|r| {
                    format!(
                        "stage {}: {} — {}",
                        r.stage,
                        if r.ops.is_empty() {
                            "(no op starts)".into()
                        } else {
                            r.ops.join(", ")
                        },
                        r.iteration
                            .map_or("empty".to_string(), |k| format!("iteration {k}"))
                    )
                })
                .collect();
            let mut s = if st.walked {
                format!(
                    "running: cycle {} of its invocation, {} in all, results in {}",
                    st.elapsed,
                    plural(st.iterations as usize, "iteration", "iterations"),
                    plural(
                        st.sched.saturating_sub(st.elapsed) as usize,
                        "cycle",
                        "cycles"
                    )
                )
            } else {
                format!(
                    "running: cycle {} of its invocation, {} begun so far",
                    st.elapsed,
                    plural(st.iterations as usize, "iteration", "iterations")
                )
            };
            if !table.is_empty() {
                s.push_str(&format!("\n{}", table.join("\n")));
            }
            s
        }
        IslandPhase::Offering => format!(
            "offering the results of {}{}",
            plural(st.iterations as usize, "iteration", "iterations"),
            if st.emitted.iter().any(|&e| e) {
                ", some already taken"
            } else {
                ""
            }
        ),
    };
    (does, now)
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The inspector's sentence for node `n` at the cycle `cs`: what the component does, then
/// what it is doing now.
pub fn sentence(f: &Function, b: &Binding, cs: &CycleState, n: NodeId, radix: Radix) -> String {
    let node = &f.nodes[n];
    let state = cs
        .node_words(b, n.index())
        .map_or(NodeState::Stateless, |(w, _)| {
            node.op.spec().state.decode(w)
        });
    let x = At {
        f,
        n,
        cs,
        radix,
        state,
    };
    let (does, now) = what(&x);
    format!("{does}; now: {now}.")
}

/// (what the component does, what it is doing now) for each op kind.
fn what(x: &At<'_>) -> (String, String) {
    let node = x.node();
    let ins = &node.inputs;
    let outs = &node.outputs;
    match &node.op {
        Op::Argument { .. } => {
            let now = match outs.first().map(|&o| (o, x.st(o))) {
                Some((o, ChanState::Transfer)) => format!("hands in {}", x.value(o)),
                Some((o, ChanState::Stall)) => {
                    format!("offers {}, waiting for it to be accepted", x.value(o))
                }
                _ => "has no token to offer".into(),
            };
            (
                format!("argument `{}`: brings the caller's tokens in", node.id),
                now,
            )
        }
        Op::Return => {
            let missing = x.missing_inputs();
            let now = if missing.len() == ins.len() {
                "waiting for results".into()
            } else if missing.is_empty() {
                "every result has a token".into()
            } else {
                format!("waiting for {}", list(&missing))
            };
            ("return: hands the results to the caller".into(), now)
        }
        Op::Fork | Op::Unpack => {
            let does = match node.op {
                Op::Unpack => format!(
                    "unpack: splits each tuple into its {} members, one per output, each sent as soon as its consumer is ready",
                    outs.len()
                ),
                _ => format!(
                    "fork: copies each input token to its {} outputs, each as soon as that output is ready",
                    outs.len()
                ),
            };
            let emitted = match &x.state {
                NodeState::Emitted(e) => e.clone(),
                _ => vec![false; outs.len()],
            };
            let now = if !ins.iter().all(|&i| x.valid(i)) {
                "waiting for an input token".into()
            } else {
                let mut sent = Vec::new();
                let mut waiting = Vec::new();
                for (k, &o) in outs.iter().enumerate() {
                    if emitted.get(k).copied().unwrap_or(false) || x.st(o) == ChanState::Transfer
                    {
                        sent.push(x.out_name(k));
                    } else {
                        waiting.push(x.out_name(k));
                    }
                }
                match (sent.is_empty(), waiting.is_empty()) {
                    (_, true) => format!("every output has its copy of {}", x.value(ins[0])),
                    (true, false) => format!("waiting for {} to accept", list(&waiting)),
                    (false, false) => format!(
                        "sent {}, waiting for {} to accept",
                        list(&sent),
                        list(&waiting)
                    ),
                }
            };
            (does, now)
        }
        Op::LazyFork => {
            let now = if !ins.iter().all(|&i| x.valid(i)) {
                "waiting for an input token".into()
            } else {
                let not_ready: Vec<String> = (0..outs.len())
                    .filter(|&k| !x.cs.ready.get(outs[k].index()).copied().unwrap_or(false))
                    .map(|k| x.out_name(k))
                    .collect();
                if not_ready.is_empty() {
                    format!("passes {} to every output", x.value(ins[0]))
                } else {
                    format!("holds its token until {} is ready", list(&not_ready))
                }
            };
            (
                format!(
                    "lazy fork: passes each token to its {} outputs in one cycle, when all of them are ready",
                    outs.len()
                ),
                now,
            )
        }
        Op::Merge => {
            let valid: Vec<usize> = (0..ins.len()).filter(|&k| x.valid(ins[k])).collect();
            let now = match valid.first() {
                None => "waiting for a token on any input".into(),
                Some(&k) => x.output_now(&format!("passes on {}'s token", x.in_name(k))),
            };
            (
                "merge: passes on a token from whichever input has one (the lowest-numbered first)"
                    .into(),
                now,
            )
        }
        Op::Mux => {
            let now = if !x.valid(ins[0]) {
                "waiting for the select token".into()
            } else {
                let sel = x.value(ins[0]);
                match handscope_sim::spec::mux_input(
                    x.cs.data.get(ins[0].index()).copied().unwrap_or(0),
                    ins.len() - 1,
                ) {
                    None => format!("select = {sel} names no input"),
                    Some(k) if !x.valid(ins[k + 1]) => {
                        format!("select = {sel}: waiting for {}", x.in_name(k + 1))
                    }
                    Some(k) => x.output_now(&format!("select = {sel}: passes on {}", x.in_name(k + 1))),
                }
            };
            (
                "mux: passes on the data input that its select token names".into(),
                now,
            )
        }
        Op::ControlMerge => (
            "control_merge: passes on a token from whichever input has one and says on `index` which input that was".into(),
            merge_now(x, "dataOut", "holds in{} as the winner"),
        ),
        Op::CondBr => {
            let now = match (x.valid(ins[0]), x.valid(ins[1])) {
                (false, false) => "waiting for a condition and a data token".into(),
                (false, true) => "waiting for the condition".into(),
                (true, false) => "waiting for the data token".into(),
                (true, true) => {
                    let c = x.cs.data.get(ins[0].index()).copied().unwrap_or(0) & 1 == 1;
                    let (k, o) = if c { (0, outs[0]) } else { (1, outs[1]) };
                    let d = x.value(ins[1]);
                    let d = if x.f.channels[ins[1]].ty.is_none() {
                        "its token".to_string()
                    } else {
                        d
                    };
                    match x.st(o) {
                        ChanState::Transfer => {
                            format!("cond = {}: sends {d} to {}", u8::from(c), x.out_name(k))
                        }
                        _ => format!(
                            "cond = {}: {d} waits for {} to accept",
                            u8::from(c),
                            x.out_name(k)
                        ),
                    }
                }
            };
            (
                "cond_br: sends its data to outTrue when the condition is 1, to outFalse when it is 0"
                    .into(),
                now,
            )
        }
        Op::Br => (
            "br: passes each token on unchanged".into(),
            x.join_like("passes on"),
        ),
        Op::Join => (
            format!(
                "join: waits for a token on each of its {} inputs, then sends one control token",
                ins.len()
            ),
            x.join_like("all inputs arrived: sends its token"),
        ),
        Op::Sync => (
            format!(
                "sync: waits for a token on each of its {} inputs, then releases them together",
                ins.len()
            ),
            x.join_like("all inputs arrived: releases"),
        ),
        Op::Pack => (
            format!(
                "pack: combines one token from each of its {} inputs into a tuple",
                ins.len()
            ),
            x.join_like("packs"),
        ),
        Op::Pipeline { latency, ii } => {
            let (held, cooldown) = match &x.state {
                NodeState::Pipeline(p) => (p.occupancy(), p.cooldown),
                _ => (0, 0),
            };
            let out = outs[0];
            let now = match (held, x.st(out)) {
                (0, _) if cooldown > 0 => format!(
                    "empty; takes its next token in {}",
                    plural(cooldown as usize, "cycle", "cycles")
                ),
                (0, _) => "empty".into(),
                (h, ChanState::Transfer) => format!(
                    "{} in flight, hands out {}",
                    plural(h, "token", "tokens"),
                    x.value(out)
                ),
                (h, ChanState::Stall) => format!(
                    "{} in flight; {} waits to be accepted",
                    plural(h, "token", "tokens"),
                    x.value(out)
                ),
                (h, _) => format!("{} in flight", plural(h, "token", "tokens")),
            };
            (
                format!(
                    "pipeline: the latency of the unit before it, {} deep, a new token every {}",
                    plural(*latency as usize, "stage", "stages"),
                    plural(*ii as usize, "cycle", "cycles")
                ),
                now,
            )
        }
        Op::Island(isl) => island_sentence(x, isl),
        Op::Buffer { slots, init, .. } => (
            format!(
                "buffer: {} (up to {} tokens), each adding one cycle of latency{}",
                plural(*slots as usize, "slot", "slots"),
                2 * slots,
                if init.is_some() { ", preloaded" } else { "" }
            ),
            buffer_now(x),
        ),
        Op::DynBuffer { kind, slots } => {
            let n = plural(*slots as usize, "token", "tokens");
            let does = match kind {
                DynBufferKind::OneSlotBreakDv => "buffer ONE_SLOT_BREAK_DV (Dynamatic's oehb): one slot that adds one cycle of latency and cuts the valid and data paths".to_string(),
                DynBufferKind::OneSlotBreakR => "buffer ONE_SLOT_BREAK_R (Dynamatic's tehb): passes tokens straight through and keeps one while its output stalls; cuts the ready path".to_string(),
                DynBufferKind::FifoBreakNone => format!("buffer FIFO_BREAK_NONE: passes tokens straight through while empty and queues up to {n} while its output stalls"),
                DynBufferKind::FifoBreakDv => format!("buffer FIFO_BREAK_DV: a FIFO of up to {n} that adds one cycle of latency"),
                DynBufferKind::OneSlotBreakDvr => "buffer ONE_SLOT_BREAK_DVR: one slot that adds one cycle of latency and cuts every path; it takes a token only while empty, one every two cycles".to_string(),
            };
            (does, buffer_now(x))
        }
        Op::DynCounterBuffer { latency } => (
            format!(
                "buffer COUNTER_BUFFER: takes one token at a time and offers it {} later",
                plural(*latency as usize, "cycle", "cycles")
            ),
            buffer_now(x),
        ),
        Op::DynPipeline { latency } => {
            let held = match &x.state {
                NodeState::Pipeline(p) => p.occupancy(),
                _ => 0,
            };
            let out = outs[0];
            let now = match (held, x.st(out)) {
                (0, _) => "empty".into(),
                (h, ChanState::Transfer) => format!(
                    "{} in flight, hands out {}",
                    plural(h, "token", "tokens"),
                    x.value(out)
                ),
                (h, ChanState::Stall) => format!(
                    "{} in flight, all stopped: {} waits to be accepted",
                    plural(h, "token", "tokens"),
                    x.value(out)
                ),
                (h, _) => format!("{} in flight", plural(h, "token", "tokens")),
            };
            (
                format!(
                    "pipeline of a Dynamatic unit: {} that advance together, so a stalled output stops every stage",
                    plural(*latency as usize, "stage", "stages")
                ),
                now,
            )
        }
        Op::DynSelect => {
            let at = match &x.state {
                NodeState::Antitokens(at) => *at,
                _ => [false; 2],
            };
            let names = ["trueValue", "falseValue"];
            let now = if let Some(k) = (0..2).find(|&k| at[k]) {
                format!(
                    "an antitoken waits to discard the next token on {}; no result until then",
                    names[k]
                )
            } else if !x.valid(ins[0]) {
                "waiting for the condition".into()
            } else {
                let c = x.cs.data.get(ins[0].index()).copied().unwrap_or(0) & 1 == 1;
                let k = if c { 1 } else { 2 };
                if x.valid(ins[k]) {
                    x.output_now(&format!("condition = {}: passes on {}", u8::from(c), names[k - 1]))
                } else {
                    format!("condition = {}: waiting for {}", u8::from(c), names[k - 1])
                }
            };
            (
                "select (Dynamatic): passes on trueValue or falseValue as the condition says, as soon as the chosen one has a token; the other one's token is discarded, now or when it arrives".into(),
                now,
            )
        }
        Op::DynControlMerge => (
            "control_merge (Dynamatic): passes on a token from whichever input has one (the lowest-numbered first) and says on `index` which input that was; a skid register keeps it while an output stalls".into(),
            merge_now(x, "outs", "keeps in{}'s token in its skid register"),
        ),
        Op::Constant { value } => {
            let v = outs
                .first()
                .map_or(value.to_string(), |&o| format_value(*value, &x.f.channels[o].ty, x.radix));
            (
                format!("constant: sends {v} for each control token it receives"),
                x.join_like("sends"),
            )
        }
        Op::Source => (
            "source: offers a control token in every cycle".into(),
            x.output_now("offers a token"),
        ),
        Op::Sink => (
            "sink: accepts and discards every token".into(),
            if ins.iter().any(|&i| x.valid(i)) {
                format!("discards {}", x.value(ins[0]))
            } else {
                "nothing to discard".into()
            },
        ),
        Op::Never => (
            "never: never offers a token".into(),
            "offers nothing".into(),
        ),
        Op::Load => (
            "load: once it has an address and its control token, asks the memory for that address and passes the data on".into(),
            x.join_like("works on the access"),
        ),
        Op::Store => (
            "store: once it has an address, data and its control token, sends them to the memory to be written".into(),
            x.join_like("sends the write"),
        ),
        Op::Memory { ld, st, memref, .. } | Op::ExtMemory { ld, st, memref, .. } => {
            let busy: Vec<String> = (0..ins.len())
                .filter(|&k| x.st(ins[k]) == ChanState::Transfer)
                .map(|k| x.in_name(k))
                .collect();
            let now = if busy.is_empty() {
                "no access".into()
            } else {
                format!("takes {}", list(&busy))
            };
            (
                format!(
                    "{}: {} words, {} and {}",
                    if matches!(node.op, Op::Memory { .. }) {
                        "memory"
                    } else {
                        "external memory"
                    },
                    memref.dims.iter().product::<u64>(),
                    plural(*ld as usize, "load port", "load ports"),
                    plural(*st as usize, "store port", "store ports")
                ),
                now,
            )
        }
        Op::DynLoad => {
            let held = match &x.state {
                NodeState::Buffer(s) => [s[0].main.is_some(), s[1].main.is_some()],
                _ => [false; 2],
            };
            let mut now = Vec::new();
            if x.st(outs[0]) == ChanState::Transfer {
                now.push(format!("sends address {} to the memory", x.value(outs[0])));
            } else if held[0] {
                now.push(format!("keeps address {} until the memory takes it", x.value(outs[0])));
            }
            if x.st(outs[1]) == ChanState::Transfer {
                now.push(format!("hands out {}", x.value(outs[1])));
            } else if held[1] {
                now.push(format!("keeps {} until it is taken", x.value(outs[1])));
            }
            (
                "load (Dynamatic): sends each address to its memory controller and passes the data that comes back, a one-slot skid buffer on each way".into(),
                if now.is_empty() { "idle".into() } else { now.join("; ") },
            )
        }
        Op::DynStore => (
            "store (Dynamatic): passes each address and value on to its memory controller, which writes them".into(),
            if x.st(outs[0]) == ChanState::Transfer {
                format!("writes {} at address {}", x.value(outs[1]), x.value(outs[0]))
            } else {
                "no write".into()
            },
        ),
        Op::DynMemController { ctrl, ld, st, memref, .. } => {
            let now = match &x.state {
                NodeState::MemoryController {
                    started,
                    end_offered,
                    remaining_stores,
                    ..
                } => {
                    let mut parts = Vec::new();
                    let busy: Vec<String> = (0..ins.len())
                        .filter(|&k| x.st(ins[k]) == ChanState::Transfer)
                        .map(|k| x.in_name(k))
                        .collect();
                    if !busy.is_empty() {
                        parts.push(format!("takes {}", list(&busy)));
                    }
                    if *remaining_stores != 0 {
                        parts.push(format!(
                            "{} announced and not done",
                            plural(remaining_stores.unsigned_abs() as usize, "store", "stores")
                        ));
                    }
                    if *end_offered {
                        parts.push("offers memEnd: every announced store is done".into());
                    } else if !started {
                        parts.push("waits for memStart".into());
                    }
                    if parts.is_empty() {
                        "no access".into()
                    } else {
                        parts.join("; ")
                    }
                }
                _ => "no access".into(),
            };
            (
                format!(
                    "memory controller (Dynamatic): {} words, {} and {} served by fixed priority, a read answered the next cycle; {} count the stores to wait for before memEnd",
                    memref.dims.iter().product::<u64>(),
                    plural(*ld as usize, "load port", "load ports"),
                    plural(*st as usize, "store port", "store ports"),
                    plural(*ctrl as usize, "block control", "block controls")
                ),
                now,
            )
        }
        Op::DynLsq { shape, memref, .. } => {
            let now = match &x.state {
                NodeState::Lsq(q) => {
                    let (l, s) = q.occupancy();
                    let mut parts = vec![format!(
                        "{l} of {} load entries and {s} of {} store entries in use",
                        shape.load_depth, shape.store_depth
                    )];
                    parts.extend(
                        q.loads_by_age()
                            .iter()
                            .filter_map(|(i, _)| q.load_status(*i)),
                    );
                    parts.extend(
                        q.stores_by_age()
                            .iter()
                            .filter_map(|(j, _)| q.store_status(*j)),
                    );
                    if q.end_offered {
                        parts.push("offers memEnd".into());
                    }
                    parts.join("; ")
                }
                _ => "no access".into(),
            };
            let groups: Vec<String> = shape
                .groups
                .iter()
                .map(|g| {
                    let a: Vec<&str> = g
                        .iter()
                        .map(|a| match a {
                            handscope_sim::LsqAccess::Load => "load",
                            handscope_sim::LsqAccess::Store => "store",
                        })
                        .collect();
                    format!("({})", a.join(", "))
                })
                .collect();
            (
                format!(
                    "load-store queue (Dynamatic{}): each group token ({}) takes entries for its accesses in program order; a load goes to memory once no older store may write its address, or takes the data of the youngest older store to it; stores write in order",
                    if memref.is_some() {
                        ""
                    } else {
                        ", behind the memory controller"
                    },
                    groups.join(", ")
                ),
                now,
            )
        }
        Op::AddrQueue { ld, st, depth } => {
            let (ld, st) = (*ld as usize, *st as usize);
            let (entries, pending, offered) = match &x.state {
                NodeState::AddrQueue {
                    entries,
                    order_pending,
                    offered,
                } => (entries.clone(), order_pending.clone(), offered.clone()),
                _ => (Vec::new(), Vec::new(), Vec::new()),
            };
            let mut parts = vec![format!("{} of {depth} entries in use", entries.len())];
            if !entries.is_empty() {
                let list: Vec<String> = entries
                    .iter()
                    .map(|&(a, j)| format!("{a} (stAddr{j})"))
                    .collect();
                parts.push(format!("queued, oldest first: {}", list.join(", ")));
            }
            for i in 0..ld {
                let (a, o) = (ins[2 * i], ins[2 * i + 1]);
                let addr = x.cs.data.get(a.index()).copied().unwrap_or(0);
                match (x.valid(a), x.valid(o)) {
                    (true, true) => match entries.iter().position(|e| e.0 == addr) {
                        Some(k) if !offered.get(i).copied().unwrap_or(false) => parts.push(format!(
                            "load {i} waits: queued store {k} (stAddr{}) is to the same address {} and has not been written",
                            entries[k].1,
                            x.value(a)
                        )),
                        _ if x.st(outs[i]) == ChanState::Transfer => {
                            parts.push(format!("load {i} passes address {}", x.value(a)))
                        }
                        _ => parts.push(format!(
                            "load {i} offers address {}, waiting for it to be accepted",
                            x.value(a)
                        )),
                    },
                    (true, false) => parts.push(format!(
                        "load {i} has address {} and waits for its ordering token (older stores not yet queued)",
                        x.value(a)
                    )),
                    (false, true) => parts.push(format!("load {i} waits for its address")),
                    (false, false) => {}
                }
            }
            for j in 0..st {
                let (a, o) = (ins[2 * ld + 3 * j], ins[2 * ld + 3 * j + 1]);
                if x.valid(a) && x.valid(o) && x.st(a) != ChanState::Transfer {
                    if entries.len() >= *depth as usize {
                        parts.push(format!(
                            "store {j} waits: the queue is full until the oldest store is written"
                        ));
                    } else {
                        parts.push(format!(
                            "store {j} waits for stOrderOut{j}'s previous token to be taken"
                        ));
                    }
                } else if x.st(a) == ChanState::Transfer {
                    parts.push(format!("store {j} queues address {}", x.value(a)));
                }
                if pending.get(j).copied().unwrap_or(false) {
                    parts.push(format!("offers stOrderOut{j}"));
                }
            }
            (
                format!(
                    "address queue ({depth} entries): each store's address waits here from when it is ordered until the store is written (stDone); a load's address passes to memory once no queued store has the same address, so loads pass older stores to other addresses"
                ),
                parts.join("; "),
            )
        }
        Op::Instance { callee } => (
            format!("instance: a call of @{callee} (flattened for simulation)"),
            x.join_like("runs"),
        ),
        Op::Arith(a) => {
            let does = match a.class() {
                ArithClass::Binary | ArithClass::FloatBinary => {
                    format!("{}: computes a result from its two operands once both are there", a.mnemonic())
                }
                ArithClass::Compare | ArithClass::FloatCompare => {
                    format!("{}: compares its two operands, giving 1 (true) or 0 (false)", a.mnemonic())
                }
                ArithClass::Select => format!(
                    "{}: passes on its second operand when the condition is 1, else its third",
                    a.mnemonic()
                ),
                ArithClass::Extend
                | ArithClass::Truncate
                | ArithClass::IndexCast
                | ArithClass::IntToFloat
                | ArithClass::FloatToInt
                | ArithClass::FloatExtend
                | ArithClass::FloatTruncate => {
                    format!("{}: converts each value to another type", a.mnemonic())
                }
                ArithClass::FloatUnary => {
                    format!("{}: computes a result from one operand", a.mnemonic())
                }
                ArithClass::IntUnary => {
                    format!("{}: inverts every bit of its operand", a.mnemonic())
                }
            };
            let operands: Vec<String> = ins.iter().map(|&i| x.value(i)).collect();
            let now = if ins.iter().all(|&i| x.valid(i)) {
                x.output_now(&format!("({}) gives", operands.join(", ")))
            } else {
                x.join_like("")
            };
            (does, now)
        }
    }
}

/// What a control merge (CIRCT's or Dynamatic's, its first output `first`) does now: the
/// input it holds (`held`, with `{}` for the input's number) and the outputs already sent,
/// else the input that wins this cycle.
fn merge_now(x: &At<'_>, first: &str, held: &str) -> String {
    let ins = &x.node().inputs;
    match &x.state {
        NodeState::ControlMerge {
            won: Some(w),
            result_emitted,
            index_emitted,
        } => {
            let sent: Vec<&str> = [(*result_emitted, first), (*index_emitted, "index")]
                .iter()
                .filter(|(e, _)| *e)
                .map(|(_, n)| *n)
                .collect();
            format!(
                "{}{}",
                held.replace("{}", &w.to_string()),
                if sent.is_empty() {
                    String::new()
                } else {
                    format!(", already sent {}", sent.join(" and "))
                }
            )
        }
        _ => match (0..ins.len()).find(|&k| x.valid(ins[k])) {
            None => "waiting for a token on any input".into(),
            Some(k) => format!("{} wins this cycle", x.in_name(k)),
        },
    }
}

/// What a buffer holds and does with its front token now.
fn buffer_now(x: &At<'_>) -> String {
    let held: usize = match &x.state {
        NodeState::Buffer(s) => s.iter().map(|s| s.tokens()).sum(),
        _ => 0,
    };
    let out = x.node().outputs[0];
    match (held, x.st(out)) {
        (0, ChanState::Transfer) => format!("empty; passes {} straight through", x.value(out)),
        (0, _) => "empty".into(),
        (h, ChanState::Transfer) => format!(
            "holds {}, hands out {}",
            plural(h, "token", "tokens"),
            x.value(out)
        ),
        (h, ChanState::Stall) => format!(
            "holds {}; {} waits to be accepted",
            plural(h, "token", "tokens"),
            x.value(out)
        ),
        (h, _) => format!(
            "holds {} moving towards its output",
            plural(h, "token", "tokens")
        ),
    }
}

#[cfg(test)]
mod tests {
    use crate::app::model::{Model, Start};

    fn example(name: &str) -> usize {
        crate::examples::CIRCUITS
            .iter()
            .position(|e| e.name == name)
            .expect("example exists")
    }

    /// The inspector sentence of `id` in gallery example `ex` at `cycle`.
    fn said(ex: &str, cycle: u64, id: &str) -> String {
        let mut m = Model::new(Start::Example(example(ex)), std::sync::Arc::new(|| {}));
        // The whole run first: a deadlock report arriving later would move the cursor.
        m.settle_complete(10_000);
        m.goto(cycle);
        m.settle();
        assert_eq!(m.cycle, cycle);
        let c = m.circuit.as_ref().unwrap();
        let n = c.func.node_by_id(id).unwrap();
        let cs = m.cycle_state().expect("cycle state");
        let b = crate::app::binding::Binding::new(&c.func, m.trace().unwrap());
        super::sentence(&c.func, &b, cs, n, crate::app::style::Radix::Signed)
    }

    #[test]
    fn fork_says_which_outputs_have_their_copy() {
        assert_eq!(
            said("fork_join_diamond.mlir", 0, "fork0"),
            "fork: copies each input token to its 2 outputs, each as soon as that output is ready; now: sent out1, waiting for out0 to accept."
        );
        // One cycle later the remembered copy goes out: every output has it.
        assert!(
            said("fork_join_diamond.mlir", 1, "fork0")
                .ends_with("now: every output has its copy of 1.")
        );
    }

    #[test]
    fn joins_buffers_and_arith_say_what_they_wait_for() {
        assert_eq!(
            said("fork_join_diamond.mlir", 0, "addi1"),
            "addi: computes a result from its two operands once both are there; now: waiting for in1."
        );
        assert!(
            said("fork_join_diamond.mlir", 1, "addi1")
                .ends_with("now: (2, 3) gives 5, taken this cycle."),
            "{}",
            said("fork_join_diamond.mlir", 1, "addi1")
        );
        assert_eq!(
            said("fork_join_diamond.mlir", 1, "buffer0"),
            "buffer: 1 slot (up to 2 tokens), each adding one cycle of latency; now: holds 1 token, hands out 3."
        );
        assert!(said("fork_join_diamond.mlir", 0, "buffer0").ends_with("now: empty."));
        assert!(said("buffer_ring.mlir", 0, "buffer0").contains("preloaded; now: holds 3 tokens"));
    }

    #[test]
    fn branches_merges_and_joins_in_a_deadlock() {
        assert_eq!(
            said("deadlock_join.mlir", 0, "cond_br0"),
            "cond_br: sends its data to outTrue when the condition is 1, to outFalse when it is 0; now: cond = 0: sends 7 to outFalse."
        );
        assert_eq!(
            said("deadlock_join.mlir", 5, "join0"),
            "join: waits for a token on each of its 2 inputs, then sends one control token; now: waiting for in1."
        );
        assert!(
            said("counter_loop.mlir", 0, "control_merge0").ends_with("now: in0 wins this cycle.")
        );
        assert!(said("counter_loop.mlir", 2, "mux0").contains("now: select = 1: passes on in1"));
        let s = said("deadlock_join.mlir", 0, "sink0");
        assert!(s.ends_with("now: discards 7."), "{s}");
        assert!(said("deadlock_join.mlir", 5, "x").ends_with("now: has no token to offer."));
    }
}
