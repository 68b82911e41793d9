//! Interaction tests (egui_kittest) and view snapshot tests.

use std::sync::Arc;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

use super::breakpoints::{Breakpoint, Dir};
use super::describe::Selection;
use super::model::{Look, Model, Start};
use super::style::ChanState;
use super::ui::DebuggerApp;

fn example(name: &str) -> usize {
    crate::examples::CIRCUITS
        .iter()
        .position(|e| e.name == name)
        .expect("example exists")
}

fn noop() -> super::model::Wake {
    Arc::new(|| {})
}

fn harness(start: Start) -> Harness<'static, DebuggerApp> {
    let mut app = DebuggerApp::new(start, noop());
    app.model.settle();
    let mut h = Harness::builder()
        .with_size(egui::Vec2::new(1400.0, 900.0))
        .build_ui_state(|ui, app: &mut DebuggerApp| app.show(ui), app);
    h.run_steps(3);
    h
}

/// Steps the harness until `cond` holds (the engine runs in another thread).
fn run_until(
    h: &mut Harness<'static, DebuggerApp>,
    what: &str,
    cond: impl Fn(&DebuggerApp) -> bool,
) {
    for _ in 0..400 {
        if cond(h.state()) {
            return;
        }
        h.step();
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    panic!("timed out waiting for {what}");
}

#[test]
fn opens_first_example_and_steps_with_keys() {
    let mut h = harness(Start::Example(0));
    assert_eq!(h.state().model.cycle, 0);
    assert!(h.state().model.layout.is_some());
    // Every node has a labelled response.
    let ids: Vec<String> = h
        .state()
        .model
        .circuit
        .as_ref()
        .unwrap()
        .func
        .nodes
        .values()
        .map(|n| n.id.clone())
        .collect();
    for id in &ids {
        h.get_by_label(id);
    }
    h.key_press(egui::Key::ArrowRight);
    h.run_steps(2);
    h.key_press(egui::Key::ArrowRight);
    run_until(&mut h, "cycle 2", |a| {
        a.model.cycle == 2 && a.model.cycle_state().is_some()
    });
    h.key_press(egui::Key::ArrowLeft);
    run_until(&mut h, "cycle 1", |a| a.model.cycle == 1);
    // The step button does the same.
    h.get_by_label("Step forward >").click();
    run_until(&mut h, "cycle 2 by button", |a| a.model.cycle == 2);
}

#[test]
fn click_node_shows_description_and_source_line() {
    let mut h = harness(Start::Example(0));
    let id = {
        let f = &h.state().model.circuit.as_ref().unwrap().func;
        f.nodes
            .values()
            .find(|n| n.op.mnemonic() == "control_merge")
            .unwrap()
            .id
            .clone()
    };
    h.get_by_label(&id).click();
    h.run_steps(3);
    let m = &h.state().model;
    assert!(matches!(m.selection, Some(Selection::Node(_))));
    assert!(m.source_line.is_some(), "the node's source line is picked");
    h.get_by_label_contains(&format!("node {id} : control_merge"));
    h.get_by_label_contains("state: won=");
}

/// Types `text` as text input (the single-character shortcuts are text events).
fn type_keys(h: &mut Harness<'static, DebuggerApp>, text: &str) {
    for ch in text.chars() {
        h.event(egui::Event::Text(ch.to_string()));
        // The look applies in the frame of the key; egui's zoom in the pass after it.
        h.run_steps(3);
    }
}

#[test]
fn shortcut_sheet_themes_palettes_and_formats() {
    let mut h = harness(Start::Example(0));
    // `?` opens the sheet listing every shortcut.
    type_keys(&mut h, "?");
    h.get_by_label("Keyboard shortcuts");
    for (k, what) in super::ui::keyboard::SHEET {
        assert!(h.query_all_by_label(k).count() >= 1, "key {k} listed");
        h.get_by_label(what);
    }
    // ... and the mouse actions.
    for (k, what) in super::ui::keyboard::MOUSE_SHEET {
        h.get_by_label(k);
        h.get_by_label(what);
    }
    h.key_press(egui::Key::Escape);
    h.run_steps(2);
    assert!(
        h.query_by_label("Keyboard shortcuts").is_none(),
        "Esc closes it"
    );
    // Themes, presentation mode, colour-blind palette, value formats.
    let look0 = h.state().model.look.clone();
    let pal0 = look0.palette();
    type_keys(&mut h, "t");
    assert_ne!(
        h.state().model.look.theme,
        look0.theme,
        "t switches the theme"
    );
    assert_ne!(
        h.state().model.look.palette().background,
        pal0.background,
        "the dark theme has another background"
    );
    assert_eq!(h.ctx.theme(), egui::Theme::Dark, "egui follows the theme");
    type_keys(&mut h, "p");
    assert!(h.state().model.look.presentation);
    assert!(
        h.ctx.zoom_factor() > 1.2,
        "presentation mode enlarges everything"
    );
    type_keys(&mut h, "tpc");
    let cb = h.state().model.look.palette();
    assert!(h.state().model.look.colour_blind);
    for s in [ChanState::Transfer, ChanState::Stall] {
        assert_ne!(
            cb.chan(s),
            pal0.chan(s),
            "{} has a colour-blind-safe colour",
            s.name()
        );
    }
    let mut seen = vec![h.state().model.look.radix];
    for _ in 0..3 {
        type_keys(&mut h, "x");
        seen.push(h.state().model.look.radix);
    }
    seen.sort_by_key(|r| r.name());
    seen.dedup();
    assert_eq!(
        seen.len(),
        4,
        "x cycles through signed, unsigned, hex, binary"
    );
    // `g` opens "Go to cycle"; typing a number and Enter moves the cursor there.
    type_keys(&mut h, "g");
    h.get_by_label("Go to cycle");
    h.event(egui::Event::Text("4".into()));
    h.run_steps(1);
    h.key_press(egui::Key::Enter);
    run_until(&mut h, "cycle 4", |a| a.model.cycle == 4);
    // Space plays, space again pauses.
    h.key_press(egui::Key::Space);
    h.run_steps(1);
    assert!(h.state().model.playing);
    h.key_press(egui::Key::Space);
    h.run_steps(1);
    assert!(!h.state().model.playing);
}

#[test]
fn memory_contents_on_click_and_tokens_move_when_stepping() {
    let mut h = harness(Start::Example(example("memory_roundtrip.mlir")));
    let f = h.state().model.circuit.as_ref().unwrap().func.clone();
    let (mem, _) = f
        .nodes
        .iter()
        .find(|(_, n)| matches!(n.op, handscope_sim::Op::Memory { .. }))
        .expect("a memory");
    // Step to the end of the run: the stores have happened.
    h.state_mut().model.settle_complete(10_000);
    let last = h.state().model.cycles() - 1;
    h.state_mut().model.goto(last);
    h.run_steps(2);
    h.state_mut().model.select(Some(Selection::Node(mem)));
    h.run_steps(2);
    h.get_by_label_contains("elements)");
    // The stimulus stores 42 at address 3 and -7 at address 5.
    h.get_by_label_contains("[3]=42");
    h.get_by_label_contains("[5]=-7");
    // Stepping forward animates tokens along the channels that just transferred.
    h.state_mut().model.goto(0);
    h.run_steps(2);
    h.key_press(egui::Key::ArrowRight);
    run_until(&mut h, "cycle 1", |a| {
        a.model.cycle == 1 && a.model.cycle_state().is_some()
    });
    let m = &h.state().model;
    assert!(m.anim < 1.0, "a forward step starts the token animation");
    let cs = m.cycle_state().unwrap();
    let toks = super::scene::tokens(m.layout.as_ref().unwrap(), cs, &m.look.palette(), 0.5);
    let moved = cs.moved.iter().filter(|x| **x).count();
    assert!(moved > 0, "something transferred in cycle 0");
    assert!(
        !toks.is_empty(),
        "tokens are drawn on the channels that moved"
    );
}

#[test]
fn breakpoint_on_channel_then_run_to_it_both_ways() {
    let mut h = harness(Start::Example(0));
    let (ch, name) = {
        let f = &h.state().model.circuit.as_ref().unwrap().func;
        let r = f.return_node().unwrap();
        let c = f.nodes[r].inputs[0];
        (c, f.channels[c].name.clone())
    };
    h.state_mut().model.select(Some(Selection::Channel(ch)));
    h.run_steps(2);
    h.get_by_label_contains(&format!("channel {name}"));
    h.get_by_label("Break when it fires").click();
    h.run_steps(2);
    assert_eq!(
        h.state().model.breakpoints,
        vec![Breakpoint::ChannelFires(ch)]
    );
    h.get_by_label("Breakpoint >>").click();
    run_until(&mut h, "the breakpoint", |a| {
        !a.model.searching() && a.model.cycle > 0 && a.model.cycle_state().is_some()
    });
    let m = &h.state().model;
    let hit = m.cycle;
    let cs = m.cycle_state().expect("cycle state");
    assert_eq!(
        cs.chan(cranelift_entity::EntityRef::index(ch)),
        ChanState::Transfer,
        "{}",
        m.status
    );
    assert!(m.status.contains("breakpoint at cycle"), "{}", m.status);
    h.get_by_label_contains("transfers 5 from");
    // Nothing before it: backwards search reports so and keeps the cursor.
    h.state_mut().model.run_to_breakpoint(Dir::Backward);
    run_until(&mut h, "backward search", |a| !a.model.searching());
    assert_eq!(h.state().model.cycle, hit);
    // Cycle breakpoint backwards from the hit.
    h.state_mut().model.breakpoints.push(Breakpoint::Cycle(2));
    h.state_mut().model.run_to_breakpoint(Dir::Backward);
    run_until(&mut h, "cycle breakpoint", |a| !a.model.searching());
    assert_eq!(h.state().model.cycle, 2);
}

/// A node centered on request (a deadlock step's link, the search) stays centered when the
/// view fits again for a new drawing of the graph (the window resized: the layout is redone
/// for the new panel in the background and arrives frames later), and a pan ends that.
#[test]
fn a_centered_node_stays_centered_when_a_new_drawing_arrives() {
    let mut h = harness_sized(
        Start::Example(example("deadlock_join.mlir")),
        1600.0,
        1000.0,
    );
    run_until(&mut h, "the layout", |a| a.model.layout.is_some());
    let f = h.state().model.circuit.as_ref().unwrap().func.clone();
    let join = f.node_by_id("join0").unwrap();
    let offset_from_center = |h: &Harness<'static, DebuggerApp>| {
        let m = &h.state().model;
        let layout = m.layout.as_ref().unwrap();
        let nb = layout.nodes.iter().find(|b| b.node == join).unwrap();
        let v = &h.state().view;
        (v.screen_of(nb.center) - v.rect.center()).length()
    };
    h.state_mut().model.focus_node(join);
    h.run_steps(2);
    assert!(offset_from_center(&h) < 2.0, "join0 centered");
    let before = std::sync::Arc::as_ptr(h.state().model.layout.as_ref().unwrap());
    h.set_size(egui::Vec2::new(900.0, 1000.0));
    run_until(&mut h, "a new drawing for the narrower panel", |a| {
        a.model
            .layout
            .as_ref()
            .is_some_and(|l| !std::ptr::eq(std::sync::Arc::as_ptr(l), before))
    });
    h.run_steps(2);
    assert!(
        offset_from_center(&h) < 2.0,
        "join0 still centered after the new drawing: {:.1} points off",
        offset_from_center(&h)
    );
    // A pan is the user's: the next fit no longer centers join0.
    let drag_from = h.state().view.rect.center();
    h.drag_at(drag_from);
    h.hover_at(drag_from + egui::Vec2::new(120.0, 0.0));
    h.drop_at(drag_from + egui::Vec2::new(120.0, 0.0));
    h.run_steps(2);
    assert!(offset_from_center(&h) > 50.0, "the pan moved the view");
}

#[test]
fn deadlock_example_opens_on_first_stuck_cycle() {
    let mut h = harness(Start::Example(example("deadlock_join.mlir")));
    run_until(&mut h, "the deadlock report", |a| {
        a.model.deadlock().is_some()
    });
    h.run_steps(2);
    let since = h.state().model.deadlock().unwrap().since_cycle;
    assert_eq!(h.state().model.cycle, since);
    assert!(h.state().model.deadlock_view);
    h.get_by_label_contains("Deadlock: no transfer since cycle");
    // The root cause is named first, in words.
    h.get_by_label_contains("Root cause: cond_br0 sent its token to outFalse");
    h.get_by_label_contains(
        "Root cause: cond_br0 sent its token to outFalse (cond = (7 < 0) = false;",
    );
    // The wait chain is a titled list of numbered steps; fork0 already gave constant0 its
    // copy, so there is no wait-for cycle.
    h.get_by_label_contains("Wait chain: return0 -> fork2 -> constant1 -> join0 -> cond_br0");
    h.get_by_label_contains("waits for join0.in1 (cond_br0.outTrue)");
    let o = h.state().model.options();
    let f = h.state().model.circuit.as_ref().unwrap().func.clone();
    let id = |s: &str| f.node_by_id(s).unwrap();
    assert!(o.deadlock.cycle_nodes.is_empty(), "no wait-for cycle");
    for n in ["fork0", "join0", "cond_br0"] {
        assert!(
            o.deadlock.chain_nodes.contains(&id(n)),
            "{n} is marked as on a wait chain"
        );
    }
    assert!(
        !o.deadlock.chain_nodes.contains(&id("sink0")),
        "the sink is not on a chain"
    );
    assert!(
        o.deadlock.badges.iter().any(|(n, _)| *n == id("join0")),
        "the waiting nodes carry their step numbers"
    );
    // Clicking a step's node link selects the node, highlights its source line and centers it.
    let links: Vec<_> = h
        .query_all(
            egui_kittest::kittest::By::new()
                .label("join0")
                .role(egui::accesskit::Role::Link),
        )
        .collect();
    assert!(!links.is_empty(), "join0 is a link in the deadlock steps");
    links[0].click();
    h.run_steps(2);
    let m = &h.state().model;
    assert_eq!(m.selection, Some(Selection::Node(id("join0"))));
    assert_eq!(m.source_line, Some(14), "join0 is on line 14 of the MLIR");
    assert!(m.focus.is_none(), "the graph view took the focus request");
    // The graph view centered join0.
    let nb = m
        .layout
        .as_ref()
        .unwrap()
        .nodes
        .iter()
        .find(|b| b.node == id("join0"))
        .unwrap()
        .center;
    let v = &h.state().view;
    let on_screen = v.screen_of(nb);
    assert!(
        (on_screen - v.rect.center()).length() < 2.0,
        "join0 at {on_screen:?}, view center {:?}",
        v.rect.center()
    );
    // The inspector says join0 is waiting (its sentence and the input lines).
    h.get_by_label_contains("join: waits for a token on each of its 2 inputs");
    h.get_by_label_contains("cycles for input in1 from cond_br0.outTrue");
}

#[test]
fn waveforms_fit_the_run_then_drag_zooms_and_right_click_marks() {
    let mut h = harness(Start::Example(example("deadlock_join.mlir")));
    run_until(&mut h, "the whole run", |a| {
        a.model.complete() && a.model.deadlock().is_some()
    });
    h.run_steps(3);
    let n = h.state().model.cycles() as f64;
    assert!(
        !h.state().model.waves.is_empty(),
        "the deadlock's channels are shown"
    );
    assert_eq!(
        (h.state().waves.start, h.state().waves.end),
        (0.0, n),
        "fits the run"
    );
    let rect = h.get_by_label("waveforms").rect();
    // Plot area starts 150 points right of the canvas' left edge (the names column).
    let x_of = |c: f64| rect.left() + 150.0 + (c / n) as f32 * (rect.width() - 150.0);
    let y = rect.center().y;
    let press = |h: &mut Harness<'static, DebuggerApp>, x: f32, pressed: bool, button| {
        h.event(egui::Event::PointerMoved(egui::pos2(x, y)));
        h.event(egui::Event::PointerButton {
            pos: egui::pos2(x, y),
            button,
            pressed,
            modifiers: Default::default(),
        });
        h.run_steps(1);
    };
    // Drag from cycle 4 to cycle 12: the view zooms into that range and stops following.
    press(&mut h, x_of(4.2), true, egui::PointerButton::Primary);
    for k in 1..=8 {
        h.event(egui::Event::PointerMoved(egui::pos2(
            x_of(4.2 + f64::from(k)),
            y,
        )));
        h.run_steps(1);
    }
    press(&mut h, x_of(12.2), false, egui::PointerButton::Primary);
    h.run_steps(2);
    let w = &h.state().waves;
    assert!(w.touched, "a drag zoom stops fitting the run");
    assert_eq!(
        (w.start, w.end),
        (4.0, 13.0),
        "zoomed into the dragged range"
    );
    // Right click drops a numbered marker; the distance to the cursor is shown.
    let rect = h.get_by_label("waveforms").rect();
    let x = rect.left() + 150.0 + (rect.width() - 150.0) * (6.5 - 4.0) / 9.0;
    h.event(egui::Event::PointerMoved(egui::pos2(x, y)));
    h.run_steps(1);
    press(&mut h, x, true, egui::PointerButton::Secondary);
    press(&mut h, x, false, egui::PointerButton::Secondary);
    assert_eq!(h.state().model.markers, vec![6]);
    h.run_steps(2);
    h.get_by_label_contains("M1-cursor:");
    // `fit` goes back to the whole run.
    h.get_by_label("fit").click();
    h.run_steps(2);
    assert_eq!((h.state().waves.start, h.state().waves.end), (0.0, n));
}

#[test]
fn replayed_vcd_shows_like_the_engine_run_including_the_deadlock() {
    // The engine's run of deadlock_join, written as a VCD, opened with the graph: the view
    // reads the replayed Trace and shows the same states and the same deadlock explanation.
    let mut eng = Model::new(Start::Example(example("deadlock_join.mlir")), noop());
    eng.watcher = None;
    eng.settle_complete(10_000);
    let dir = std::env::temp_dir().join(format!("handscope-vcd-gui-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (mlir, vcd) = (dir.join("deadlock_join.mlir"), dir.join("run.vcd"));
    let ex = &crate::examples::CIRCUITS[example("deadlock_join.mlir")];
    std::fs::write(&mlir, ex.text).unwrap();
    let file = std::fs::File::create(&vcd).unwrap();
    handscope_traces::vcd_out::write_vcd(eng.trace().unwrap(), std::io::BufWriter::new(file))
        .unwrap();
    let mut h = harness(Start::File(
        mlir,
        Some(vcd),
        Default::default(),
        None,
        Default::default(),
    ));
    run_until(&mut h, "the replayed deadlock", |a| {
        a.model.deadlock().is_some() && a.model.cycle_state().is_some()
    });
    h.run_steps(3);
    let m = &h.state().model;
    assert!(m.error.is_none(), "{:?}", m.error);
    assert_eq!(m.cycles(), eng.cycles(), "same number of cycles");
    let (d, de) = (m.deadlock().unwrap(), eng.deadlock().unwrap());
    assert_eq!(d.since_cycle, de.since_cycle);
    assert_eq!(m.cycle, d.since_cycle, "opens at the first stuck cycle");
    // The same explanation, step by step (locations name the file each was loaded from).
    let strip = |ps: &[handscope_sim::deadlock::WaitPath]| {
        let mut ps = ps.to_vec();
        for s in ps.iter_mut().flat_map(|p| &mut p.steps) {
            s.loc = s
                .loc
                .as_ref()
                .map(|l| l.rsplit('/').next().unwrap().to_string());
        }
        ps
    };
    assert_eq!(strip(&d.paths), strip(&de.paths));
    h.get_by_label_contains("Root cause: cond_br0 sent its token to outFalse");
    // Every channel's state at every cycle equals the engine's.
    let n = eng.cycles();
    for c in 0..n {
        eng.goto(c);
        eng.settle();
        h.state_mut().model.goto(c);
        h.state_mut().model.settle();
        let (a, b) = (
            eng.cycle_state().unwrap(),
            h.state().model.cycle_state().unwrap(),
        );
        assert_eq!(a.valid, b.valid, "valid at cycle {c}");
        assert_eq!(a.ready, b.ready, "ready at cycle {c}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn app_exports_the_view_as_svg_and_png() {
    let mut m = Model::new(Start::Example(example("deadlock_join.mlir")), noop());
    m.watcher = None;
    m.settle_complete(10_000);
    let dir = std::env::temp_dir().join(format!("handscope-export-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let c = m.cycle;
    for ext in ["svg", "png"] {
        let status = super::ui::export_view(&mut m, ext, &dir);
        let p = dir.join(format!("handscope-cycle{c}.{ext}"));
        assert!(status.starts_with("wrote "), "{status}");
        let bytes = std::fs::read(&p).unwrap();
        match ext {
            "svg" => assert!(String::from_utf8_lossy(&bytes).contains(">join0<")),
            _ => assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n"),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn stalled_channel_is_described_in_words() {
    let mut m = Model::new(Start::Example(example("deadlock_join.mlir")), noop());
    m.settle_complete(10_000);
    let d = m.deadlock().cloned().expect("deadlock");
    let stuck = &d.stuck[0];
    let c = m
        .circuit
        .as_ref()
        .unwrap()
        .func
        .channel_by_name(&stuck.channel)
        .unwrap();
    m.goto(d.since_cycle + 5);
    m.update(0.0);
    m.select(Some(Selection::Channel(c)));
    let text = m.describe_selection().join("\n");
    assert!(
        text.contains("stalled") && text.contains("waiting for"),
        "{text}"
    );
    let n = d.since_cycle + 5 - stuck.since + 1;
    assert!(text.contains(&format!("stalled {n} cycles")), "{text}");
}

#[test]
fn value_breakpoint_and_node_breakpoint() {
    let mut m = Model::new(Start::Example(0), noop());
    m.settle_complete(10_000);
    let f = m.circuit.as_ref().unwrap().func.clone();
    let r = f.return_node().unwrap();
    let c = f.nodes[r].inputs[0];
    m.breakpoints
        .push(Breakpoint::Value(c, super::breakpoints::Cmp::Eq, 5));
    m.run_to_breakpoint(Dir::Forward);
    while m.searching() {
        m.update(0.0);
    }
    m.update(0.0);
    let hit = m.cycle;
    assert!(
        m.cycle_state()
            .unwrap()
            .fired(cranelift_entity::EntityRef::index(c))
    );
    m.breakpoints.clear();
    m.breakpoints.push(Breakpoint::NodeFires(r));
    m.goto(0);
    m.update(0.0);
    m.run_to_breakpoint(Dir::Forward);
    while m.searching() {
        m.update(0.0);
    }
    m.update(0.0);
    assert!(m.cycle <= hit && m.cycle > 0);
}

#[test]
fn source_line_selects_nodes_and_firing_lines_are_marked() {
    let mut m = Model::new(Start::Example(0), noop());
    m.settle();
    let (line, nodes) = {
        let c = m.circuit.as_ref().unwrap();
        let (l, ns) = c.line_nodes.iter().find(|(_, ns)| !ns.is_empty()).unwrap();
        (*l, ns.clone())
    };
    m.select_line(line);
    assert_eq!(m.selection, Some(Selection::Node(nodes[0])));
    assert_eq!(m.line_nodes(), nodes);
    let mut any = false;
    for c in 0..10 {
        m.goto(c);
        m.settle();
        any |= !m.firing_lines().is_empty();
    }
    assert!(any, "some line fires in the first cycles");
}

#[test]
fn live_reload_keeps_cursor_and_selection_and_survives_errors() {
    let dir = std::env::temp_dir().join(format!("handscope-reload-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("loop.mlir");
    let text = crate::examples::CIRCUITS[0].text;
    std::fs::write(&p, text).unwrap();
    let mut m = Model::new(
        Start::File(
            p.clone(),
            None,
            Default::default(),
            None,
            Default::default(),
        ),
        noop(),
    );
    m.settle();
    m.goto(3);
    m.settle();
    let n = m.circuit.as_ref().unwrap().func.node_by_id("cmpi0");
    m.select(n.map(Selection::Node));
    // A broken edit: error shown, last good circuit kept.
    std::fs::write(&p, "handshake.func @broken(").unwrap();
    m.reload();
    assert!(m.error.is_some());
    assert!(m.circuit.is_some());
    // A good edit: reloaded, cursor and selection kept.
    std::fs::write(&p, text.replace("--in n=5", "--in n=7")).unwrap();
    m.reload();
    m.settle();
    assert!(m.error.is_none());
    assert_eq!(m.cycle, 3);
    assert_eq!(m.selection, n.map(Selection::Node));
    assert!(
        m.circuit
            .as_ref()
            .unwrap()
            .stimulus
            .inputs
            .contains(&"n=7".to_string())
    );
    // The watcher notices changes on disk.
    if let Some(w) = &m.watcher {
        std::thread::sleep(std::time::Duration::from_millis(200));
        let _ = w.take_change();
        std::fs::write(&p, text).unwrap();
        let t0 = std::time::Instant::now();
        while !w.take_change() && t0.elapsed() < std::time::Duration::from_secs(5) {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert!(
            t0.elapsed() < std::time::Duration::from_secs(5),
            "the watcher saw the change"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn svg_render_shows_states_and_deadlock() {
    let svg = super::render::render_svg(
        Start::Example(example("deadlock_join.mlir")),
        1000,
        Look::default(),
    )
    .unwrap();
    assert!(svg.starts_with("<svg"));
    assert!(svg.contains("deadlocked since cycle"));
    assert!(svg.contains(">join0<"));
    let pal = Look::default().palette();
    assert!(
        svg.contains(&pal.chan(ChanState::Stall).css()),
        "a stalled channel is drawn in the stall colour"
    );
    assert!(
        svg.contains(&pal.deadlock.css()),
        "the wait-for chain is highlighted"
    );
    assert!(
        svg.contains("stroke-dasharray"),
        "control channels are dashed"
    );
    // Deterministic.
    let again = super::render::render_svg(
        Start::Example(example("deadlock_join.mlir")),
        1000,
        Look::default(),
    )
    .unwrap();
    assert_eq!(svg, again);
    // The PNG draws the same picture: deterministic, with stalled channels in the stall
    // colour among its pixels.
    let pic = || {
        super::render::render_picture_noting(
            Start::Example(example("deadlock_join.mlir")),
            1000,
            Look::default(),
            &mut |_| {},
        )
        .unwrap()
    };
    let png = super::png::to_png(&pic(), 1.0).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    assert_eq!(png, super::png::to_png(&pic(), 1.0).unwrap());
    let pixels = vello_cpu::Pixmap::from_png(std::io::Cursor::new(&png))
        .unwrap()
        .take_unpremultiplied();
    let stall = pal.chan(ChanState::Stall);
    let stalled = pixels
        .iter()
        .filter(|p| (p.r, p.g, p.b) == (stall.0, stall.1, stall.2))
        .count();
    assert!(stalled > 20, "{stalled} pixels in the stall colour");
}

/// Float channels show their values on the edges in the shortest round-trip form (`0.75`,
/// `inf`, `-nan`), and as bit patterns in hex.
#[test]
fn float_values_show_on_edges() {
    let at = |cycle, look: Look| {
        super::render::render_svg(Start::Example(example("float_ops.mlir")), cycle, look).unwrap()
    };
    let c0 = at(0, Look::default());
    assert!(c0.contains(">0.75<"), "x / y = 0.75 in cycle 0");
    assert!(c0.contains(">0.5<"), "the constant 0.5");
    let c2 = at(2, Look::default());
    assert!(c2.contains(">inf<"), "3 / 0 = inf in cycle 2");
    assert!(c2.contains(">-nan<"), "fmod(3, 0) = -nan in cycle 2");
    let hex = at(
        0,
        Look {
            radix: super::style::Radix::Hex,
            ..Look::default()
        },
    );
    assert!(hex.contains(">0x3f400000<"), "0.75 as bits");
}

/// Under the `fpga` timing profile (chosen like the toolbar's selector does) every float op
/// gets a pipeline; the view draws its stages and `k/L in flight`, the inspector lists each
/// token in flight with the cycles until it is offered, and the answers stay the same.
#[test]
fn pipelines_show_tokens_in_flight() {
    use handscope_sim::spec::timing::TimingProfile;
    let mut m = Model::new(Start::Example(example("float_ops.mlir")), noop());
    m.settle();
    let is_pipe = |n: &handscope_sim::Node| matches!(n.op, handscope_sim::Op::Pipeline { .. });
    let func = |m: &Model| m.circuit.as_ref().unwrap().func.clone();
    assert!(!func(&m).nodes.values().any(is_pipe));
    m.set_timing(TimingProfile::fpga());
    m.settle();
    assert_eq!(m.timing.name(), "fpga");
    let f = func(&m);
    let sqrt_pipe = f
        .node_by_id("sqrt0_pipe")
        .expect("a pipeline behind math.sqrt");
    assert!(matches!(
        f.nodes[sqrt_pipe].op,
        handscope_sim::Op::Pipeline { latency: 28, ii: 1 }
    ));
    // Cycle 20: tokens travel through the 28-stage square root.
    m.goto(20);
    m.settle();
    m.select(Some(Selection::Node(sqrt_pipe)));
    let lines = m.describe_selection();
    let flight = lines
        .iter()
        .find(|l| l.starts_with("in flight: "))
        .unwrap_or_else(|| panic!("{lines:#?}"));
    assert!(flight.ends_with("of 28 stages"), "{flight}");
    assert!(
        lines
            .iter()
            .any(|l| l.trim_start().starts_with("stage") && l.contains("cycles")),
        "{lines:#?}"
    );
    // Every pipeline's stage marks and count in flight lie inside its box (a 30-stage one
    // too, whose marks stand for several stages each).
    let scene = m.scene().expect("a scene");
    let layout = m.layout.clone().expect("a layout");
    for (n, node) in f.nodes.iter().filter(|(_, n)| is_pipe(n)) {
        let nb = layout.nodes.iter().find(|b| b.node == n).unwrap();
        let (lo, hi) = (nb.min(), nb.max());
        let inside = |q: [f32; 2], pad: [f32; 2]| {
            q[0] - pad[0] >= lo[0]
                && q[0] + pad[0] <= hi[0]
                && q[1] - pad[1] >= lo[1]
                && q[1] + pad[1] <= hi[1]
        };
        let mut seen = 0;
        for item in &scene.items {
            match item {
                super::scene::Item::Text {
                    pos, text, size, ..
                } if text.contains(" in flight") && inside(*pos, [0.0, 0.0]) => {
                    seen += 1;
                    assert!(inside(*pos, [0.0, size / 2.0]), "{}: {text}", node.id);
                }
                _ => {}
            }
        }
        assert_eq!(seen, 1, "{}: one count in flight", node.id);
        let marks: Vec<_> = scene
            .items
            .iter()
            .filter_map(|i| match i {
                // A stage mark (0.6-point border) overlapping the box.
                super::scene::Item::Rect {
                    min, max, width, ..
                } if *width == 0.6
                    && min[0] < hi[0]
                    && max[0] > lo[0]
                    && min[1] < hi[1]
                    && max[1] > lo[1] =>
                {
                    Some((*min, *max))
                }
                _ => None,
            })
            .collect();
        assert!(!marks.is_empty(), "{}", node.id);
        for (a, b) in marks {
            assert!(
                inside(a, [0.0, 0.0]) && inside(b, [0.0, 0.0]),
                "{}",
                node.id
            );
        }
    }
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/circuits/float_ops.mlir");
    let start = Start::File(path, None, Default::default(), None, TimingProfile::fpga());
    let svg = super::render::render_svg(start, 20, Look::default()).unwrap();
    assert!(svg.contains(" in flight<"), "the count in flight is drawn");
    assert!(svg.contains(">sqrt0_pipe<"));
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    check_snapshot(&dir.join("float_ops_fpga_c20.svg"), &svg);
}

/// Snapshot of the rendered SVG views (text snapshots: they run everywhere, no GPU needed).
#[test]
fn svg_snapshots() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    for (name, ex, cycle) in [
        ("counter_loop_c3", "counter_loop.mlir", 3),
        ("deadlock_join_end", "deadlock_join.mlir", 1000),
    ] {
        let svg =
            super::render::render_svg(Start::Example(example(ex)), cycle, Look::default()).unwrap();
        check_snapshot(&dir.join(format!("{name}.svg")), &svg);
    }
}

fn check_snapshot(path: &std::path::Path, got: &str) {
    let update = std::env::var_os("UPDATE_SNAPSHOTS").is_some();
    match std::fs::read_to_string(path) {
        Ok(want) if !update => {
            if want != got {
                let new = path.with_extension("new.svg");
                let _ = std::fs::write(&new, got);
                panic!(
                    "snapshot {} differs (new version in {}; UPDATE_SNAPSHOTS=1 accepts it)",
                    path.display(),
                    new.display()
                );
            }
        }
        _ => {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, got).unwrap();
        }
    }
}

/// Pixel snapshot of the whole window through wgpu (Mesa lavapipe/llvmpipe on machines without a
/// GPU). Skipped when no wgpu adapter exists, unless CI=true.
#[test]
fn window_snapshot_wgpu() {
    let mut app = DebuggerApp::new(Start::Example(example("deadlock_join.mlir")), noop());
    app.model.settle_complete(10_000);
    let mut h = Harness::builder()
        .with_size(egui::Vec2::new(1400.0, 900.0))
        .wgpu()
        .build_ui_state(|ui, app: &mut DebuggerApp| app.show(ui), app);
    h.run_steps(4);
    match h.render() {
        Ok(img) => {
            let px = img
                .pixels()
                .map(|p| p.0)
                .collect::<std::collections::BTreeSet<_>>()
                .len();
            assert!(px > 8, "the window is not blank ({px} colours)");
            // Small tolerance: software rasterizers differ slightly in anti-aliasing.
            let opts = egui_kittest::SnapshotOptions::new()
                .threshold(1.0)
                .max_failed_pixels(400);
            h.snapshot_options("deadlock_join_window", &opts);
        }
        Err(e) => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "wgpu rendering failed under CI: {e}"
            );
            eprintln!("skipping the wgpu snapshot: {e}");
        }
    }
}

/// Frame time of the graph view on a generated 2,000-node graph (printed; run with
/// `--nocapture` to see it): the egui pass of the graph view alone, its tessellation, and the
/// whole window (which also builds the accessibility tree in tests). Asserts a generous bound
/// so a large regression is noticed.
#[test]
fn frame_bench_draws_the_2000_node_chain() {
    // The measurement behind `handscope bench frame` works end to end on a 2,000-node graph:
    // every node laid out, the engine ran to the measured cycles, every scenario painted and
    // culled (times are reported by the benchmark, never asserted here).
    let n = handscope_sim::bench_support::chain(400).nodes.len();
    let dir = std::env::temp_dir().join(format!("handscope-bench-{}", std::process::id()));
    let start = super::frame_bench::chain_start(400, &dir).unwrap();
    let r = super::frame_bench::measure(start, 100, 3).unwrap();
    assert_eq!(r.nodes, n);
    assert!(n >= 2000);
    assert_eq!(r.scenarios.len(), 4);
    for sc in &r.scenarios {
        assert_eq!(sc.frames_ms.len(), 3, "{}", sc.label);
        assert!(sc.painted > 0, "{} painted nothing", sc.label);
    }
    // Fitted, the whole graph is on screen; at 100 % most of it is culled.
    let (fit, full) = (r.scenarios[0].painted, r.scenarios[2].painted);
    assert!(fit >= 2 * n, "fit paints every node and channel: {fit}");
    assert!(
        full < fit / 4,
        "100% zoom culls what is off screen: {full} of {fit}"
    );
    let table = super::frame_bench::render(&r, &r);
    assert!(table.contains("fit, new cycle every frame"), "{table}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `h` turns the throughput view on: the status line names the critical cycle, the scene gets
/// the stall heat and the critical cycle's channels; `h` again turns it off.
#[test]
fn throughput_view_marks_stalls_and_the_critical_cycle() {
    let mut h = harness(Start::Example(example("fork_join_diamond.mlir")));
    run_until(&mut h, "the run to end", |a| a.model.complete());
    type_keys(&mut h, "h");
    let m = &h.state().model;
    assert!(m.throughput_view);
    assert!(
        m.status
            .starts_with("throughput: critical cycle latency 2 over 1 token(s), II 2.00"),
        "{}",
        m.status
    );
    let o = m.options();
    let c = m.circuit.as_ref().unwrap();
    assert_eq!(o.throughput.heat.len(), c.func.channels.len());
    assert!(o.throughput.heat.contains(&1.0));
    let names: Vec<&str> = o
        .throughput
        .critical
        .iter()
        .map(|&ch| c.func.channels[ch].name.as_str())
        .collect();
    assert!(names.contains(&"fork1.out2"), "{names:?}");
    type_keys(&mut h, "h");
    assert_eq!(h.state().model.options().throughput, Default::default());
}

/// `]` / `[` on a selected channel: one slot more or less, the changed circuit runs at once
/// and the status line compares cycles and II; the view then shows the changed circuit.
#[test]
fn what_if_slots_on_the_selected_channel() {
    let mut h = harness(Start::Example(example("fork_join_diamond.mlir")));
    run_until(&mut h, "the run to end", |a| a.model.complete());
    type_keys(&mut h, "]");
    assert_eq!(h.state().model.status, "what if: select a channel first");
    let ch = {
        let f = &h.state().model.circuit.as_ref().unwrap().func;
        f.channel_by_name("fork0.out0").unwrap()
    };
    h.state_mut().model.select(Some(Selection::Channel(ch)));
    type_keys(&mut h, "]");
    let status = h.state().model.status.clone();
    assert!(
        status.starts_with("what if +1 slot on fork0.out0: 6 -> "),
        "{status}"
    );
    assert!(!status.contains("differ"), "{status}");
    // Again on the same channel: the inserted buffer grows.
    type_keys(&mut h, "]");
    let f = h.state().model.circuit.as_ref().unwrap().func.clone();
    let t = f.node_by_id("tune0").expect("a buffer was inserted");
    assert!(matches!(
        f.nodes[t].op,
        handscope_sim::Op::Buffer { slots: 2, .. }
    ));
    // And gives one slot back.
    let out = f.channel_by_name("tune0.out0").unwrap();
    h.state_mut().model.select(Some(Selection::Channel(out)));
    type_keys(&mut h, "[");
    let status = h.state().model.status.clone();
    assert!(
        status.starts_with("what if -1 slot on tune0.out0: "),
        "{status}"
    );
    let f = h.state().model.circuit.as_ref().unwrap().func.clone();
    let t = f.node_by_id("tune0").unwrap();
    assert!(matches!(
        f.nodes[t].op,
        handscope_sim::Op::Buffer { slots: 1, .. }
    ));
}

/// `--live`: the model follows a VCD while it is written: it shows the complete cycles so
/// far, keeps the cursor at the newest one, is not complete until the writer is done, and
/// then shows the whole run with its report.
#[test]
fn follows_a_vcd_while_it_is_written() {
    use std::io::Write as _;
    use std::sync::atomic::{AtomicBool, Ordering};
    let mut m = Model::new(Start::Example(example("counter_loop.mlir")), noop());
    let c = m.circuit.clone().expect("circuit");
    let run = c.session.run(2000, true).expect("run");
    let trace = run.trace.expect("trace");
    let mut vcd = Vec::new();
    handscope_traces::vcd_out::write_vcd(&trace, &mut vcd).expect("vcd");
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("live.vcd");
    std::fs::write(&path, b"").expect("create");
    let done = Arc::new(AtomicBool::new(false));
    m.follow_vcd(&path, Default::default(), done.clone());
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .expect("open");
    let wait = || std::thread::sleep(std::time::Duration::from_millis(300));
    let (mut at, mut last) = (0, 0);
    // Boundaries inside lines.
    for end in [vcd.len() / 3 + 7, 2 * vcd.len() / 3 + 3, vcd.len()] {
        f.write_all(&vcd[at..end]).expect("append");
        f.flush().expect("flush");
        at = end;
        wait();
        m.update(0.0);
        assert!(!m.complete(), "complete before the writer is done");
        let n = m.cycles();
        assert!(n >= last, "the trace shrank: {n} < {last}");
        assert!(n <= trace.cycles());
        last = n;
        if n > 0 {
            assert_eq!(m.cycle, n - 1, "the cursor follows the newest cycle");
        }
    }
    // The follower thread parses on its own schedule: give it time on a loaded machine.
    let until = |m: &mut Model, what: &str, ok: &dyn Fn(&Model) -> bool| {
        let t0 = std::time::Instant::now();
        while !ok(m) {
            assert!(t0.elapsed().as_secs() < 20, "{what}");
            std::thread::sleep(std::time::Duration::from_millis(20));
            m.update(0.0);
        }
    };
    until(&mut m, "nothing shown while the file grew", &|m| {
        m.cycles() > 0
    });
    assert!(!m.complete());
    // The followed file is the replayed trace the title and the side panel name.
    assert_eq!(m.replayed_trace(), Some(path.as_path()));
    done.store(true, Ordering::SeqCst);
    until(&mut m, "not complete after the writer finished", &|m| {
        m.complete()
    });
    assert_eq!(m.cycles(), trace.cycles());
    assert_eq!(
        m.source.as_ref().and_then(|s| s.report()).map(|r| r.status),
        Some(run.report.status)
    );
}

/// "Open in Surfer": the selected channel's signals go to a (fake) Surfer over WCP.
#[test]
fn sends_the_selection_to_surfer() {
    use std::io::{Read, Write};
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = l.local_addr().expect("addr").to_string();
    let fake = std::thread::spawn(move || {
        let (mut s, _) = l.accept().expect("accept");
        let (mut buf, mut got) = (Vec::new(), Vec::<serde_json::Value>::new());
        let send = |s: &mut std::net::TcpStream, v: serde_json::Value| {
            let mut b = v.to_string().into_bytes();
            b.push(0);
            s.write_all(&b).expect("write");
        };
        loop {
            while let Some(i) = buf.iter().position(|&b| b == 0) {
                let f: Vec<u8> = buf.drain(..=i).collect();
                let m: serde_json::Value = serde_json::from_slice(&f[..i]).expect("json");
                match m["command"].as_str() {
                    None => send(
                        &mut s,
                        serde_json::json!({"type": "greeting", "version": "0", "commands": ["load", "add_variables"]}),
                    ),
                    Some("load") => {
                        send(
                            &mut s,
                            serde_json::json!({"type": "response", "command": "ack"}),
                        );
                        send(
                            &mut s,
                            serde_json::json!({"type": "event", "event": "waveforms_loaded", "source": m["source"]}),
                        );
                    }
                    Some(_) => send(
                        &mut s,
                        serde_json::json!({"type": "response", "command": "add_variables", "ids": [0, 1, 2]}),
                    ),
                }
                got.push(m);
            }
            let mut chunk = [0u8; 4096];
            match s.read(&mut chunk) {
                Ok(0) | Err(_) => return got,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        }
    });
    let mut m = Model::new(Start::Example(example("counter_loop.mlir")), noop());
    m.settle();
    let ch = m
        .circuit
        .as_ref()
        .and_then(|c| c.func.channel_by_name("addi0.out0"))
        .expect("channel");
    m.select(Some(Selection::Channel(ch)));
    m.send_selection_to_surfer(&addr);
    for _ in 0..500 {
        m.update(0.0);
        if m.status.starts_with("Surfer") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(m.status.starts_with("Surfer at"), "{}", m.status);
    let got = fake.join().expect("fake surfer");
    assert_eq!(
        got[2]["variables"],
        serde_json::json!([
            "handscope.addi0.out0_valid",
            "handscope.addi0.out0_ready",
            "handscope.addi0.out0"
        ])
    );
}

fn lesson_start(name: &str, step: usize) -> Start {
    Start::Lesson(Box::new(crate::lessons::find(name).unwrap()), step)
}

fn node(h: &Harness<'static, DebuggerApp>, id: &str) -> handscope_sim::NodeId {
    h.state()
        .model
        .circuit
        .as_ref()
        .unwrap()
        .func
        .node_by_id(id)
        .unwrap_or_else(|| panic!("no node {id}"))
}

#[test]
fn lesson_panel_steps_through_cycles_circuits_and_answers() {
    let mut h = harness(lesson_start("loop", 0));
    // Step 1: the panel, the cursor at the step's cycle, the first highlighted node selected.
    h.get_by_label("Lesson: A loop: control_merge, mux and cond_br");
    h.get_by_label("step 1 of 4");
    h.get_by_label_contains("The loop header is control_merge0");
    h.get_by_label_contains("Question: Which input does control_merge0 report");
    assert_eq!(h.state().model.cycle, 0);
    let cm = node(&h, "control_merge0");
    assert_eq!(h.state().model.selection, Some(Selection::Node(cm)));
    let o = h.state().model.options();
    assert!(
        o.lesson_nodes.contains(&cm),
        "the step's node is highlighted"
    );
    assert_eq!(o.lesson_channels.len(), 1, "and its channel");
    // The inspector says what the selected control_merge does and does now.
    h.get_by_label_contains("control_merge: passes on a token from whichever input has one");
    // The answer appears on request.
    h.get_by_label("Show the answer").click();
    h.run_steps(2);
    h.get_by_label_contains("Answer: control_merge0.index carries 0 at cycle 0.");
    // `n` twice: step 3 at cycle 2 (same circuit, so the same graph generation).
    let generation = h.state().model.generation;
    type_keys(&mut h, "n");
    type_keys(&mut h, "n");
    run_until(&mut h, "step 3's cycle", |a| {
        a.model.cycle == 2 && a.model.cycle_state().is_some()
    });
    h.get_by_label("step 3 of 4");
    assert_eq!(h.state().model.generation, generation, "no reload");
    // The previous-step button goes back.
    h.get_by_label("< Previous step").click();
    h.run_steps(2);
    assert_eq!(h.state().model.lesson.as_ref().unwrap().step, 1);
}

#[test]
fn lesson_steps_load_their_circuits_and_keep_their_cycle_on_a_deadlock() {
    let mut h = harness(lesson_start("deadlock", 0));
    run_until(&mut h, "the deadlock report", |a| {
        a.model.deadlock().is_some()
    });
    h.run_steps(3);
    // A lesson keeps its step's cycle instead of jumping to the first stuck cycle.
    assert_eq!(h.state().model.cycle, 0);
    let g = h.state().model.generation;
    // Step 3 names another circuit: it is loaded, with the step's node highlighted.
    h.state_mut().model.lesson_step(2);
    h.run_steps(2);
    assert!(h.state().model.generation > g);
    assert_eq!(
        h.state().model.circuit.as_ref().unwrap().name,
        "deadlock_join_fixed.mlir"
    );
    let merge = node(&h, "merge0");
    assert!(h.state().model.options().lesson_nodes.contains(&merge));
    // From the gallery box: every lesson opens at its first step.
    for b in crate::lessons::BUILTIN {
        let mut m = Model::new(lesson_start(b.name, 0), noop());
        m.settle();
        assert!(m.error.is_none(), "{}: {:?}", b.name, m.error);
        let l = m.lesson.as_ref().unwrap();
        assert_eq!(m.cycle, l.current().cycle, "{}", b.name);
    }
}

#[test]
fn check_errors_appear_in_the_window_with_their_nodes_marked() {
    let mut h = harness(Start::Example(example("comb_cycle.mlir")));
    h.get_by_label_contains("Check: 1 error");
    h.get_by_label_contains("error line 7: combinational-cycle:");
    let o = h.state().model.options();
    let merge = node(&h, "merge0");
    assert!(
        o.problem_nodes.contains(&merge),
        "the cycle's nodes are marked"
    );
    // Clicking the problem selects its first node.
    h.get_by_label_contains("error line 7: combinational-cycle:")
        .click();
    h.run_steps(2);
    assert_eq!(h.state().model.selection, Some(Selection::Node(merge)));
    // Warnings are listed too (and do not mark nodes as errors).
    let h = harness(Start::Example(example("select_from_i1.mlir")));
    h.get_by_label_contains("Check: 0 errors, 1 warning");
    h.get_by_label_contains("select-range:");
    assert!(h.state().model.options().problem_nodes.is_empty());
}

#[test]
fn a_stimulus_that_does_not_bind_still_draws_the_graph_and_says_why() {
    let over = handscope_sim::session::StimulusArgs {
        inputs: vec!["nosuch=1".into()],
        ..Default::default()
    };
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/circuits/fork_join_diamond.mlir");
    let mut h = harness(Start::File(p, None, over, None, Default::default()));
    h.run_steps(3);
    let m = &h.state().model;
    let why = m.why_no_run().expect("no run");
    assert!(
        why.contains("cannot simulate") && why.contains("nosuch"),
        "{why}"
    );
    assert!(m.layout.is_some(), "the graph is laid out");
    assert!(
        h.state_mut().model.scene().is_some(),
        "and drawn without a run"
    );
    h.get_by_label_contains("cannot simulate");
    // `handscope render` fails with the same reason instead of drawing a run that is not.
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/circuits/fork_join_diamond.mlir");
    let over = handscope_sim::session::StimulusArgs {
        inputs: vec!["nosuch=1".into()],
        ..Default::default()
    };
    let e = super::render::render_svg(
        Start::File(p, None, over, None, Default::default()),
        0,
        Look::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("has no argument `nosuch`"), "{e}");
}

#[test]
fn a_c_syntax_error_shows_the_source_line_with_a_caret() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("bad.c");
    std::fs::write(&p, "int f(int a) {\n    return a +/ 2;\n}\n").unwrap();
    let mut h = harness(Start::File(
        p,
        None,
        Default::default(),
        None,
        Default::default(),
    ));
    h.run_steps(2);
    let e = h.state().model.error.clone().expect("an error");
    assert!(e.contains("return a +/ 2;"), "the line is quoted: {e}");
    assert!(
        e.ends_with(" 2 |     return a +/ 2;\n   |               ^"),
        "a caret under column 15: {e}"
    );
    // The graph view says it cannot open the file instead of "laying out".
    assert!(h.state().model.layout.is_none());
    h.get_by_label_contains("return a +/ 2;");
}

#[test]
fn a_replay_names_its_trace_and_takes_stimulus_and_memory_from_it() {
    // A run with other stimulus than the file's `// sim:` header, written as a VCD.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/circuits/extmem_add.mlir");
    let over = handscope_sim::session::StimulusArgs {
        inputs: vec!["i=2".into(), "j=1".into(), "k=0".into()],
        mems: vec!["mem=1,2,3,4".into()],
        ready: Vec::new(),
    };
    let mut eng = Model::new(
        Start::File(path.clone(), None, over, None, Default::default()),
        noop(),
    );
    eng.watcher = None;
    eng.settle_complete(10_000);
    let sum: Vec<u64> = eng.source.as_ref().unwrap().report().unwrap().outputs["sum"]
        .iter()
        .map(|t| t.bits)
        .collect();
    assert_eq!(sum, [5], "mem[2] + mem[1] = 3 + 2");
    let dir = tempfile::tempdir().unwrap();
    let vcd = dir.path().join("other_run.vcd");
    let file = std::fs::File::create(&vcd).unwrap();
    handscope_traces::vcd_out::write_vcd(eng.trace().unwrap(), std::io::BufWriter::new(file))
        .unwrap();
    let mut h = harness(Start::File(
        path,
        Some(vcd),
        Default::default(),
        None,
        Default::default(),
    ));
    h.run_steps(3);
    let m = &h.state().model;
    assert!(m.error.is_none(), "{:?}", m.error);
    assert!(m.replaying());
    // The title names the trace; the file's header stimulus is not used.
    assert_eq!(
        h.state().title.as_deref(),
        Some("Handscope — extmem_add.mlir — replay of other_run.vcd")
    );
    assert!(m.circuit.as_ref().unwrap().stimulus.is_empty());
    h.get_by_label("replay of other_run.vcd");
    h.get_by_label_contains("stimulus and memory contents as the trace shows them");
    let r = m.source.as_ref().unwrap().report().unwrap();
    let got: Vec<u64> = r.outputs["sum"].iter().map(|t| t.bits).collect();
    assert_eq!(got, sum, "the replayed report is the trace's run");
    // The memory panel agrees with the run: what it read and wrote, unknown elsewhere (not
    // the header's 5,6,7,8).
    let last = m.cycles() - 1;
    h.state_mut().model.goto(last);
    h.state_mut().model.settle();
    let n = node(&h, "extmemory0");
    let mc = h.state_mut().model.memory_contents(n).unwrap();
    assert!(!mc.initial_known);
    assert_eq!(mc.values, [Some(5), Some(2), Some(3), None]);
    h.state_mut().model.select(Some(Selection::Node(n)));
    h.run_steps(2);
    h.get_by_label_contains("initial contents not in the trace");
    h.get_by_label_contains("[0]=5  [1]=2  [2]=3  [3]=?");
    // The simulation of the same file shows the run's own memory at every cycle.
    let mc = eng.memory_contents(n).unwrap();
    assert!(mc.initial_known);
    assert_eq!(
        mc.values[..],
        [Some(1), Some(2), Some(3), Some(4)],
        "cycle 0"
    );
}

fn harness_sized(start: Start, w: f32, h: f32) -> Harness<'static, DebuggerApp> {
    let mut app = DebuggerApp::new(start, noop());
    app.model.settle();
    let mut h = Harness::builder()
        .with_size(egui::Vec2::new(w, h))
        .build_ui_state(|ui, app: &mut DebuggerApp| app.show(ui), app);
    h.run_steps(3);
    h
}

/// The toolbar's first row at the window's width: every widget of it on one line, none cut
/// off at the right edge.
fn toolbar_fits(h: &Harness<'static, DebuggerApp>, width_px: f32) {
    let zoom = h.ctx.zoom_factor();
    let row = h.get_by_label("Handscope").rect();
    for label in ["Fit", "View", "Present", "?"] {
        let r = h.get_by_label(label).rect();
        assert!(
            (r.center().y - row.center().y).abs() < row.height(),
            "`{label}` is on the toolbar's row (no wrap): {r:?} vs {row:?}"
        );
        assert!(
            r.right() * zoom <= width_px,
            "`{label}` ends at {} px of {width_px}",
            r.right() * zoom
        );
    }
    // The transport row too.
    let r = h.get_by_label_contains("cycle ").rect();
    assert!(
        r.right() * zoom <= width_px,
        "the cycle counter is cut off: {r:?}"
    );
}

#[test]
fn presentation_mode_folds_panels_refits_with_large_labels_and_the_toolbar_fits_1280() {
    let mut h = harness_sized(Start::Example(example("three_loops.c")), 1280.0, 720.0);
    toolbar_fits(&h, 1280.0);
    type_keys(&mut h, "p");
    h.run_steps(3);
    let a = h.state();
    assert!(a.model.look.presentation);
    assert!(h.ctx.zoom_factor() > 1.2);
    assert!(!a.panels.source && !a.panels.waves && a.panels.side);
    // Labels at least the presentation size (17.5 screen pixels at this zoom factor).
    let pts = a.view.label_points(true);
    assert!(
        pts >= super::ui::PRESENTATION_MIN_LABEL - 0.01,
        "node labels {pts} points"
    );
    toolbar_fits(&h, 1280.0);
    // `2` folds the side panel too; the view fits again, at least as large.
    let before = h.state().view.zoom;
    type_keys(&mut h, "2");
    h.run_steps(2);
    assert!(!h.state().panels.side);
    assert!(h.state().view.zoom >= before);
    // `p` again: everything back.
    type_keys(&mut h, "2");
    type_keys(&mut h, "p");
    h.run_steps(2);
    assert_eq!(h.state().panels, super::ui::Panels::default());
}

/// Pixel snapshots (wgpu; skipped without an adapter unless CI=true) of a lesson, of
/// presentation mode, of a C kernel fitted to the window and of the compare view.
#[test]
fn window_snapshots_lesson_presentation_and_c_kernel() {
    use super::model::Setting;
    let shots: [(&str, Start, bool, Option<Setting>); 4] = [
        ("lesson_loop_step3", lesson_start("loop", 2), false, None),
        (
            "presentation_fork_join",
            Start::Example(example("fork_join_diamond.mlir")),
            true,
            None,
        ),
        (
            "c_kernel_fir_fit",
            Start::Example(example("fir.c")),
            false,
            None,
        ),
        (
            "compare_three_loops_task_pipelining",
            Start::File(
                std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("../examples/kernels/three_loops.c"),
                None,
                handscope_sim::session::StimulusArgs {
                    inputs: vec!["v=1,2,3,4".into(), "start=4".into()],
                    ..Default::default()
                },
                None,
                Default::default(),
            ),
            false,
            Some(Setting::TaskPipelining),
        ),
    ];
    let mut results = egui_kittest::SnapshotResults::new();
    for (name, start, present, compare) in shots {
        let mut app = DebuggerApp::new(start, noop());
        app.model.settle_complete(100_000);
        if compare.is_some() {
            app.model.open_compare(compare);
            app.model.settle_compare(100_000);
        }
        app.model.settle();
        app.model.look.presentation = present;
        let mut h = Harness::builder()
            .with_size(egui::Vec2::new(1280.0, 720.0))
            .wgpu()
            .build_ui_state(|ui, app: &mut DebuggerApp| app.show(ui), app);
        h.run_steps(6);
        // The first frames show the graph panels' shapes: the graphs are laid out again for
        // them (the compare view's halves are tall) and fitted once the new layouts are in.
        h.state_mut().model.settle_compare(100_000);
        h.run_steps(4);
        if present {
            assert!(
                !h.state().panels.source,
                "{name}: presentation folds the source"
            );
        }
        match h.render() {
            Ok(img) => {
                let px = img
                    .pixels()
                    .map(|p| p.0)
                    .collect::<std::collections::BTreeSet<_>>()
                    .len();
                assert!(px > 8, "{name}: the window is not blank ({px} colours)");
                let opts = egui_kittest::SnapshotOptions::new()
                    .threshold(1.0)
                    .max_failed_pixels(400);
                results.add(h.try_snapshot_options(name, &opts));
            }
            Err(e) => {
                assert!(
                    std::env::var("CI").as_deref() != Ok("true"),
                    "wgpu rendering failed under CI: {e}"
                );
                eprintln!("skipping the wgpu snapshot {name}: {e}");
            }
        }
        results.extend_harness(&mut h);
    }
    results.unwrap();
}

/// Four invocations of `three_loops.c`, compared without and with task pipelining, both runs
/// complete.
fn three_loops_compared_with_task_pipelining() -> Model {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/kernels/three_loops.c");
    let over = handscope_sim::session::StimulusArgs {
        inputs: vec!["v=1,2,3,4".into(), "start=4".into()],
        ..Default::default()
    };
    let mut m = Model::new(
        Start::File(path, None, over, None, Default::default()),
        noop(),
    );
    m.watcher = None;
    m.open_compare(Some(super::model::Setting::TaskPipelining));
    m.settle_compare(100_000);
    m
}

#[test]
fn moving_tokens_take_the_colour_of_their_invocation_when_several_move() {
    // With task pipelining the next invocation enters the first loop while the previous one
    // is in a later loop.
    let mut m = three_loops_compared_with_task_pipelining();
    let pal = m.look.palette();
    let other = &mut m.compare.as_mut().expect("the compare view is open").other;
    let f = other.circuit.as_ref().unwrap().func.clone();
    let layout = super::layout::compute(
        &f,
        super::layout::Engine::Sugiyama,
        super::layout::DEFAULT_PANEL,
    );
    let (mut mixed, mut single) = (None, None);
    for c in 1..other.cycles() {
        other.goto(c);
        other.update(0.0);
        let cs = other.cycle_state().expect("the cycle's state");
        let tags: std::collections::BTreeSet<u32> =
            cs.moved_tags.iter().flatten().copied().collect();
        let fills: std::collections::BTreeSet<String> =
            super::scene::tokens(&layout, cs, &pal, 0.5)
                .iter()
                .filter_map(|it| match it {
                    super::scene::Item::Circle { fill, .. } => Some(format!("{fill:?}")),
                    _ => None,
                })
                .collect();
        let moved = cs.moved.iter().filter(|x| **x).count();
        // Every token that moved has an invocation.
        assert_eq!(cs.moved_tags.iter().flatten().count(), moved, "cycle {c}");
        if tags.len() > 1 && mixed.is_none() {
            // One colour per invocation, none of them the plain transfer colour.
            assert_eq!(fills.len(), tags.len(), "cycle {c}: {tags:?} {fills:?}");
            assert!(!fills.contains(&format!("{:?}", pal.chan[0])), "cycle {c}");
            mixed = Some(c);
        }
        if tags.len() == 1 && single.is_none() {
            assert_eq!(fills, [format!("{:?}", pal.chan[0])].into(), "cycle {c}");
            single = Some(c);
        }
    }
    assert!(mixed.is_some() && single.is_some(), "{mixed:?} {single:?}");
}

#[test]
fn compare_view_runs_the_kernel_under_another_setting_in_step() {
    let mut m = three_loops_compared_with_task_pipelining();
    let cmp = m.compare.as_ref().expect("the compare view is open");
    assert_eq!(cmp.base_label, "buffers cycles, task pipelining off");
    assert_eq!(cmp.other_label, "buffers cycles, task pipelining on");
    let (a, b) = cmp.figures.as_ref().expect("figures once both ran");
    assert_eq!(
        (a.cycles, b.cycles),
        (28, 16),
        "{} | {}",
        a.line(),
        b.line()
    );
    // The function lock is a loop of its own (one invocation every 7 cycles); with task
    // pipelining it is gone and the three loops are the limit.
    assert!(
        a.loops.contains(&("loop@lock.join".to_string(), Some(7.0))),
        "{}",
        a.line()
    );
    assert!(
        b.loops.iter().all(|(n, _)| !n.contains("lock")),
        "{}",
        b.line()
    );
    // The cursor and the selection follow the main view (by ID, else by source line).
    m.goto(9);
    let id = "bb3.cmpi0";
    let n = m.circuit.as_ref().unwrap().func.node_by_id(id).unwrap();
    m.select(Some(Selection::Node(n)));
    m.update(0.0);
    m.settle();
    let o = &m.compare.as_ref().unwrap().other;
    assert_eq!(o.cycle, 9);
    let on = o.circuit.as_ref().unwrap().func.node_by_id(id).unwrap();
    assert_eq!(o.selection, Some(Selection::Node(on)));
    let lock = m
        .circuit
        .as_ref()
        .unwrap()
        .func
        .node_by_id("lock.join")
        .unwrap();
    m.select(Some(Selection::Node(lock)));
    m.update(0.0);
    let o = &m.compare.as_ref().unwrap().other;
    let of = &o.circuit.as_ref().unwrap().func;
    let Some(Selection::Node(x)) = o.selection else {
        panic!("a node on the same source line is selected");
    };
    assert_eq!(of.nodes[x].loc.as_ref().unwrap().line, 14);
    // `k` steps through the settings; a circuit without compile options says so.
    m.cycle_compare();
    assert_eq!(
        m.compare.as_ref().unwrap().setting,
        super::model::Setting::BuffersAll
    );
    let mut mm = Model::new(Start::Example(example("counter_loop.mlir")), noop());
    mm.cycle_compare();
    assert!(mm.compare.is_none());
    assert!(mm.status.contains("only C kernels"), "{}", mm.status);
}

#[test]
fn compare_view_draws_both_sides_with_their_figures() {
    let mut app = DebuggerApp::new(Start::Example(example("three_loops.c")), noop());
    app.model
        .open_compare(Some(super::model::Setting::BuffersAll));
    app.model.settle_compare(100_000);
    let mut h = Harness::builder()
        .with_size(egui::Vec2::new(1400.0, 900.0))
        .build_ui_state(|ui, app: &mut DebuggerApp| app.show(ui), app);
    h.run_steps(4);
    h.get_by_label("buffers cycles, task pipelining off");
    h.get_by_label("buffers all, task pipelining off");
    let figures: Vec<_> = h
        .query_all(egui_kittest::kittest::By::new().label_contains("cycles (done); slowest loop:"))
        .collect();
    assert_eq!(figures.len(), 2, "each side shows its figures");
    assert!(
        h.state().view2.rect.width() > 100.0,
        "the other graph is drawn"
    );
    h.get_by_label("close compare (k)").click();
    h.run_steps(2);
    assert!(h.state().model.compare.is_none());
}

/// Kernel `file` of `examples/kernels` open with the compare view on `setting`, both sides
/// run to their end.
fn kernel_compared(file: &str, setting: super::model::Setting) -> Model {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/kernels")
        .join(file);
    let mut m = Model::new(
        Start::File(path, None, Default::default(), None, Default::default()),
        noop(),
    );
    m.watcher = None;
    m.open_compare(Some(setting));
    m.settle_compare(100_000);
    m
}

#[test]
fn compare_view_puts_the_other_timing_profile_beside_the_kernel() {
    let m = kernel_compared("dot_f32.c", super::model::Setting::Timing);
    let cmp = m.compare.as_ref().expect("the compare view is open");
    assert_eq!(cmp.base_label, "buffers cycles, task pipelining off");
    assert_eq!(
        cmp.other_label,
        "buffers cycles, task pipelining off, timing fpga"
    );
    let (a, b) = cmp.figures.as_ref().expect("figures once both ran");
    // The snapshot table's first RUN line: 16 cycles ideal, 221 fpga (the product and the sum are f64).
    assert_eq!(
        (a.cycles, b.cycles),
        (16, 221),
        "{} | {}",
        a.line(),
        b.line()
    );
}

#[test]
fn compare_view_puts_the_hybrid_schedule_beside_the_dynamic_circuit() {
    let m = kernel_compared("dot.c", super::model::Setting::Schedule);
    let cmp = m.compare.as_ref().expect("the compare view is open");
    assert_eq!(
        cmp.other_label,
        "buffers cycles, task pipelining off, schedule hybrid"
    );
    let (a, b) = cmp.figures.as_ref().expect("figures once both ran");
    // `handscope schedule examples/kernels/dot.c --compare`: 8 cycles dynamic, 9 hybrid
    // under the ideal profile (the island adds a cycle to enter and leave).
    assert_eq!((a.cycles, b.cycles), (8, 9), "{} | {}", a.line(), b.line());
    // The hybrid side draws its loop as one island.
    let other = &cmp
        .other
        .circuit
        .as_ref()
        .expect("the other side's circuit")
        .func;
    assert_eq!(
        other
            .nodes
            .values()
            .filter(|n| matches!(n.op, handscope_sim::Op::Island(_)))
            .count(),
        1
    );
}

/// Two buffer placements of one Dynamatic circuit side by side (`gui A --compare B`): the
/// circuit as written and as `tune -o` wrote it, run with the same stimulus, the selection
/// following by ID, the figures telling them apart.
#[test]
fn compare_view_puts_another_buffer_placement_beside_a_dynamatic_circuit() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/dynamatic");
    let mut m = Model::new(
        Start::File(
            dir.join("dynamatic_diamond.mlir"),
            None,
            Default::default(),
            None,
            Default::default(),
        ),
        noop(),
    );
    m.watcher = None;
    // Without another file, a circuit without compile settings says how to get one.
    m.cycle_compare();
    assert!(m.compare.is_none());
    assert!(m.status.contains("--compare"), "{}", m.status);
    m.compare_file = Some(dir.join("dynamatic_diamond_tuned.mlir"));
    m.cycle_compare();
    m.settle_compare(100_000);
    let cmp = m.compare.as_ref().expect("the compare view is open");
    assert_eq!(cmp.setting, super::model::Setting::File);
    assert_eq!(cmp.base_label, "dynamatic_diamond.mlir");
    assert_eq!(cmp.other_label, "dynamatic_diamond_tuned.mlir");
    let (a, b) = cmp.figures.as_ref().expect("figures once both ran");
    assert_eq!(
        (a.cycles, b.cycles),
        (29, 14),
        "{} | {}",
        a.line(),
        b.line()
    );
    // The other side draws the grown buffer under the same name.
    let of = cmp.other.circuit.as_ref().unwrap().func.clone();
    let b1 = of.node_by_id("buffer1").unwrap();
    assert_eq!(
        of.nodes[b1].op,
        handscope_sim::Op::DynBuffer {
            kind: handscope_sim::DynBufferKind::FifoBreakNone,
            slots: 5
        }
    );
    m.goto(4);
    let n = m
        .circuit
        .as_ref()
        .unwrap()
        .func
        .node_by_id("buffer1")
        .unwrap();
    m.select(Some(Selection::Node(n)));
    m.update(0.0);
    let o = &m.compare.as_ref().unwrap().other;
    assert_eq!(o.cycle, 4);
    assert_eq!(o.selection, Some(Selection::Node(b1)));
    // `k` after the file closes the view (no compile settings to step through).
    m.cycle_compare();
    assert!(m.compare.is_none());
}

/// The inspector's text for node `id` of lesson `lesson`'s step `step` over its first 20
/// cycles, one cycle after the other.
fn inspector_over_cycles(lesson: &str, step: usize, id: &str) -> String {
    let mut m = Model::new(lesson_start(lesson, step), noop());
    m.settle_complete(10_000);
    let n = m
        .circuit
        .as_ref()
        .unwrap()
        .func
        .node_by_id(id)
        .expect("the node");
    let mut seen = String::new();
    for c in 0..20 {
        m.goto(c);
        m.update(0.0);
        m.select(Some(Selection::Node(n)));
        seen.push_str(&m.describe_selection().join("\n"));
        seen.push('\n');
    }
    seen
}

/// The static-islands lesson's island: the inspector gives its schedule, its operations block
/// by block and, while it runs, the stage table with the iteration in each stage.
#[test]
fn the_inspector_shows_an_islands_stage_table() {
    let seen = inspector_over_cycles("static-islands", 1, "bb1.island0");
    assert!(
        seen.contains("static island: the loop at line 8 scheduled at compile time, a new iteration every 1 cycle"),
        "{seen}"
    );
    assert!(
        seen.contains("bb0: load a, load b, muli, addi, addi, cmpi -> bb0 or out"),
        "{seen}"
    );
    assert!(
        seen.contains("now: takes its inputs: its first iteration begins"),
        "{seen}"
    );
    assert!(
        seen.contains(
            "stage 0: load a (line 9), load b (line 9), addi (line 8), cmpi (line 8) — iteration 1"
        ),
        "{seen}"
    );
    assert!(
        seen.contains("stage 1: extsi (line 9), extsi (line 9), muli (line 9) — iteration 0"),
        "{seen}"
    );
    assert!(
        seen.contains("offering the results of 8 iterations"),
        "{seen}"
    );
}

/// Selecting an island expands it on the canvas: a panel beside its box with its stage table,
/// the stages holding an iteration highlighted; without the selection, no panel.
#[test]
fn a_selected_island_shows_its_stage_table_beside_its_box() {
    let mut m = Model::new(lesson_start("static-islands", 1), noop());
    m.settle_complete(10_000);
    let n = m
        .circuit
        .as_ref()
        .unwrap()
        .func
        .node_by_id("bb1.island0")
        .expect("the island");
    m.goto(3);
    m.update(0.0);
    let texts = |m: &mut Model| -> Vec<(String, bool)> {
        let scene = m.scene().expect("a scene");
        let lit = m.look.palette().chan[0];
        scene
            .items
            .iter()
            .filter_map(|i| match i {
                super::scene::Item::Text { text, color, .. } => Some((text.clone(), *color == lit)),
                _ => None,
            })
            .collect()
    };
    // The lesson step selects the island; without the selection there is no panel.
    m.select(None);
    assert!(!texts(&mut m).iter().any(|(t, _)| t.starts_with("stage 1:")));
    m.select(Some(Selection::Node(n)));
    let seen = texts(&mut m);
    assert!(
        seen.iter().any(|(t, _)| t == "II 1, latency 5, 6 stages"),
        "{seen:?}"
    );
    let row = seen
        .iter()
        .find(|(t, _)| t.starts_with("stage 1: extsi (line 9), extsi (line 9), muli (line 9)"))
        .unwrap_or_else(|| panic!("{seen:?}"));
    assert!(row.0.ends_with("[iteration 2]") && row.1, "{row:?}");
    let last = seen
        .iter()
        .find(|(t, _)| t.starts_with("stage 5: addi (line 9)"))
        .unwrap_or_else(|| panic!("{seen:?}"));
    assert!(!last.1, "{last:?}: no iteration there yet");
}

/// The load-store queue of the memory-ordering lesson: the inspector says how many entries
/// are in use and what each one waits for, in words.
#[test]
fn the_inspector_explains_a_load_store_queue() {
    let seen = inspector_over_cycles("memory-order", 3, "mem.hist");
    assert!(
        seen.contains("load-store queue (Dynamatic): each group token ((load, store))"),
        "{seen}"
    );
    assert!(seen.contains("of 16 load entries and"), "{seen}");
    assert!(
        seen.contains("waits for memory's answer") || seen.contains("has its data"),
        "{seen}"
    );
}

/// The address queue of the memory-ordering lesson's last step: the inspector says how many
/// entries are in use, which addresses are queued and what the ports do, in words.
#[test]
fn the_inspector_explains_an_address_queue() {
    let seen = inspector_over_cycles("memory-order", 5, "queue.hist");
    assert!(
        seen.contains("address queue (16 entries): each store's address waits here"),
        "{seen}"
    );
    assert!(seen.contains("1 of 16 entries in use"), "{seen}");
    assert!(seen.contains("queued, oldest first: "), "{seen}");
    assert!(
        seen.contains("store 0 queues address") && seen.contains("load 0 passes address"),
        "{seen}"
    );
}
