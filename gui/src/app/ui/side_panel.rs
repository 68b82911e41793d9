//! The side panel: the selection in words, memory contents, the deadlock explanation, the
//! breakpoint list and editor.

use handscope_sim::NodeId;

use crate::app::breakpoints::{Breakpoint, Cmp, Dir};
use crate::app::describe::{self, Selection};
use crate::app::model::Model;
use crate::app::style::{Radix, format_value};

/// State of the breakpoint editor.
#[derive(Default)]
pub struct BpEditor {
    /// Value for a value condition.
    pub value: String,
    /// Comparison.
    pub cmp: usize,
    /// Cycle number.
    pub cycle: String,
}

/// Draws the panel.
pub fn show(ui: &mut egui::Ui, m: &mut Model, ed: &mut BpEditor) {
    egui::ScrollArea::vertical()
        .auto_shrink([false, false])
        .show(ui, |ui| {
            if let Some(e) = &m.error {
                ui.colored_label(
                    m.look.palette().deadlock.egui(),
                    "Error (the last good circuit stays on screen):",
                );
                ui.add(egui::Label::new(egui::RichText::new(e).monospace()).wrap());
                ui.separator();
            }
            super::lesson_panel::show(ui, m);
            if let Some(e) = m.source.as_ref().and_then(|s| s.error()) {
                ui.colored_label(m.look.palette().deadlock.egui(), format!("engine: {e}"));
            }
            if let Some(c) = &m.circuit {
                let s = &c.stimulus;
                let args: Vec<String> = s
                    .inputs
                    .iter()
                    .map(|x| format!("--in {x}"))
                    .chain(s.mems.iter().map(|x| format!("--mem {x}")))
                    .chain(s.ready.iter().map(|x| format!("--ready {x}")))
                    .collect();
                let replay = m.replaying().then(|| {
                    m.replayed_trace()
                        .map_or(String::new(), |v| v.display().to_string())
                });
                ui.label(match (replay, args.is_empty()) {
                    (Some(v), true) => format!(
                        "@{}  replay of {v}: stimulus and memory contents as the trace shows them",
                        c.func.name
                    ),
                    (Some(v), false) => format!(
                        "@{}  replay of {v}, stimulus given: {}",
                        c.func.name,
                        args.join(" ")
                    ),
                    (None, true) => format!("@{}  stimulus: (defaults)", c.func.name),
                    (None, false) => format!("@{}  stimulus: {}", c.func.name, args.join(" ")),
                });
            }
            check_panel(ui, m);
            ui.heading("Selection");
            let lines = m.describe_selection();
            if lines.is_empty() {
                ui.label("Click a node or a channel.");
            }
            for l in &lines {
                ui.add(egui::Label::new(egui::RichText::new(l).monospace()).wrap());
            }
            if let Some(sel) = m.selection {
                if ui
                    .small_button("Open in Surfer")
                    .on_hover_text(format!(
                        "show this selection's valid/ready/data in a Surfer serving WCP at {}",
                        crate::wcp::server::DEFAULT_ADDR
                    ))
                    .clicked()
                {
                    m.send_selection_to_surfer(crate::wcp::server::DEFAULT_ADDR);
                }
                selection_actions(ui, m, sel, ed);
                if let Selection::Node(n) = sel {
                    memory_view(ui, m, n);
                }
            }
            if m.deadlock_view
                && let Some(x) = m.deadlock_explanation()
            {
                ui.separator();
                deadlock_panel(ui, m, &x);
            } else if m.deadlock().is_some() && ui.button("Show deadlock").clicked() {
                m.deadlock_view = true;
            }
            ui.separator();
            breakpoints(ui, m, ed);
        });
}

/// The deadlock explanation: headline, root cause, then every wait-for cycle and chain as
/// numbered steps. A step's node, line and channel are links: the node is selected and
/// centered, its source line highlighted, the channel selected.
fn deadlock_panel(ui: &mut egui::Ui, m: &mut Model, x: &describe::DeadlockExplanation) {
    let pal = m.look.palette();
    ui.heading("Deadlock");
    ui.add(egui::Label::new(egui::RichText::new(&x.headline).strong()).wrap());
    if let Some(r) = &x.root_cause {
        ui.add(
            egui::Label::new(
                egui::RichText::new(format!("Root cause: {r}.")).color(pal.deadlock.egui()),
            )
            .wrap(),
        );
    }
    let since = m.deadlock().map_or(0, |d| d.since_cycle);
    ui.horizontal(|ui| {
        if ui
            .button("Go to first stuck cycle")
            .on_hover_text(format!("cycle {since}"))
            .clicked()
        {
            m.goto(since);
        }
        if ui.button("Close deadlock view").clicked() {
            m.deadlock_view = false;
        }
    });
    if m.cycle < since {
        ui.label(format!(
            "(the marks on the graph appear from cycle {since} on)"
        ));
    }
    for sec in &x.sections {
        ui.add_space(4.0);
        let title = egui::RichText::new(&sec.title).strong();
        ui.add(
            egui::Label::new(if sec.cyclic {
                title.color(pal.deadlock.egui())
            } else {
                title
            })
            .wrap(),
        );
        for st in &sec.steps {
            ui.horizontal_wrapped(|ui| {
                ui.spacing_mut().item_spacing.x = 4.0;
                ui.label(egui::RichText::new(format!("{}.", st.number)).strong());
                if let Some(n) = st.node
                    && ui
                        .link(egui::RichText::new(&st.node_id).monospace())
                        .on_hover_text("select and center this node")
                        .clicked()
                {
                    m.focus_node(n);
                }
                if let (Some(l), Some(n)) = (st.line, st.node)
                    && ui
                        .link(format!("(line {l})"))
                        .on_hover_text("show the source line")
                        .clicked()
                {
                    m.focus_node(n);
                }
                ui.add(egui::Label::new(&st.text).wrap());
                if let Some(c) = st.channel
                    && ui
                        .link(egui::RichText::new(format!("[{}]", st.channel_name)).monospace())
                        .on_hover_text("select this channel")
                        .clicked()
                {
                    m.select(Some(Selection::Channel(c)));
                }
            });
        }
        // Said once: the last step already names a cond_br that routed the token away.
        if let Some(t) = &sec.terminal
            && !sec
                .steps
                .last()
                .is_some_and(|s| s.text.contains(t.as_str()))
        {
            ui.add(egui::Label::new(format!("End of the chain: {t}.")).wrap());
        }
    }
    let stuck = m.deadlock().map_or(0, |d| d.stuck.len());
    if stuck > 0 {
        egui::CollapsingHeader::new(format!("Stuck tokens ({stuck})"))
            .id_salt("stuck tokens")
            .show(ui, |ui| {
                for t in m.deadlock().iter().flat_map(|d| &d.stuck) {
                    let v = t
                        .value
                        .as_ref()
                        .map_or("a token".to_string(), |v| v.to_string());
                    ui.add(
                        egui::Label::new(format!(
                            "{} holds {v} since cycle {}; {} does not take it.",
                            t.channel, t.since, t.consumer
                        ))
                        .wrap(),
                    );
                }
            });
    }
}

fn selection_actions(ui: &mut egui::Ui, m: &mut Model, sel: Selection, ed: &mut BpEditor) {
    ui.horizontal_wrapped(|ui| match sel {
        Selection::Channel(c) => {
            if ui.button("Break when it fires").clicked() {
                m.breakpoints.push(Breakpoint::ChannelFires(c));
            }
            egui::ComboBox::from_label("condition")
                .width(40.0)
                .show_index(ui, &mut ed.cmp, Cmp::ALL.len(), |i| Cmp::ALL[i].symbol());
            ui.add(
                egui::TextEdit::singleline(&mut ed.value)
                    .desired_width(50.0)
                    .hint_text("value"),
            );
            if ui.button("Break on value").clicked()
                && let Ok(v) = ed.value.trim().parse::<i64>()
            {
                m.breakpoints
                    .push(Breakpoint::Value(c, Cmp::ALL[ed.cmp], v));
            }
            if !m.waves.contains(&c) && ui.button("Add to waveforms").clicked() {
                m.waves.push(c);
            }
        }
        Selection::Node(n) => {
            if ui.button("Break when it fires").clicked() {
                m.breakpoints.push(Breakpoint::NodeFires(n));
            }
            if ui.button("Waveforms of its channels").clicked()
                && let Some(c) = &m.circuit
            {
                let node = &c.func.nodes[n];
                for &ch in node.inputs.iter().chain(&node.outputs) {
                    if !m.waves.contains(&ch) {
                        m.waves.push(ch);
                    }
                }
            }
        }
    });
}

fn memory_view(ui: &mut egui::Ui, m: &mut Model, n: NodeId) {
    let Some(mc) = m.memory_contents(n) else {
        return;
    };
    let Some(c) = &m.circuit else { return };
    let Some(elem) = c.func.nodes[n].op.array().map(|a| a.memref.elem.clone()) else {
        return;
    };
    ui.separator();
    ui.label(format!(
        "memory {} at the start of cycle {} ({} elements)",
        mc.name,
        mc.cycle,
        mc.values.len()
    ));
    if !mc.initial_known {
        ui.label(
            "initial contents not in the trace (give them with --mem): ? until the run reads or writes an element",
        );
    }
    let radix = if m.look.radix == Radix::Bin {
        Radix::Hex
    } else {
        m.look.radix
    };
    let text: Vec<String> = mc
        .values
        .iter()
        .take(256)
        .enumerate()
        .map(|(i, v)| match v {
            Some(v) => format!("[{i}]={}", format_value(*v, &elem, radix)),
            None => format!("[{i}]=?"),
        })
        .collect();
    ui.add(egui::Label::new(egui::RichText::new(text.join("  ")).monospace()).wrap());
}

fn breakpoints(ui: &mut egui::Ui, m: &mut Model, ed: &mut BpEditor) {
    ui.heading("Breakpoints");
    let mut remove = None;
    if let Some(c) = &m.circuit {
        for (i, bp) in m.breakpoints.iter().enumerate() {
            ui.horizontal(|ui| {
                ui.label(bp.describe(&c.func));
                if ui.small_button("x").on_hover_text("Remove").clicked() {
                    remove = Some(i);
                }
            });
        }
    }
    if let Some(i) = remove {
        m.breakpoints.remove(i);
    }
    ui.horizontal(|ui| {
        if !m.breakpoints.contains(&Breakpoint::Deadlock)
            && ui.button("Break on deadlock").clicked()
        {
            m.breakpoints.push(Breakpoint::Deadlock);
        }
        ui.add(
            egui::TextEdit::singleline(&mut ed.cycle)
                .desired_width(50.0)
                .hint_text("cycle"),
        );
        if ui.button("Break at cycle").clicked()
            && let Ok(c) = ed.cycle.trim().parse::<u64>()
        {
            m.breakpoints.push(Breakpoint::Cycle(c));
        }
    });
    ui.horizontal(|ui| {
        if ui.button("< previous").clicked() {
            m.run_to_breakpoint(Dir::Backward);
        }
        if ui.button("next >").clicked() {
            m.run_to_breakpoint(Dir::Forward);
        }
    });
}

/// What `check` says about the circuit: each error and warning, clickable to its first node.
fn check_panel(ui: &mut egui::Ui, m: &mut Model) {
    let Some(c) = &m.circuit else { return };
    if let Some(e) = &c.sim_error {
        ui.colored_label(m.look.palette().deadlock.egui(), e);
    }
    if c.problems.is_empty() {
        return;
    }
    let errors = c.problems.iter().filter(|p| p.error).count();
    let warnings = c.problems.len() - errors;
    let plural = |n: usize, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
    ui.heading(format!(
        "Check: {}, {}",
        plural(errors, "error"),
        plural(warnings, "warning")
    ));
    let mut go = None;
    for p in &c.problems {
        let colour = if p.error {
            m.look.palette().deadlock.egui()
        } else {
            m.look.palette().chan[1].egui()
        };
        let at = p.line.map_or(String::new(), |l| format!("line {l}: "));
        let text = format!(
            "{} {at}{}",
            if p.error { "error" } else { "warning" },
            p.text
        );
        let r = ui.add(
            egui::Label::new(egui::RichText::new(text).color(colour))
                .wrap()
                .sense(egui::Sense::click()),
        );
        if r.clicked()
            && let Some(&n) = p.nodes.first()
        {
            go = Some(n);
        }
    }
    if let Some(n) = go {
        m.focus_node(n);
    }
    ui.separator();
}
