//! Keyboard shortcuts and the shortcut sheet (`?`).

use crate::app::breakpoints::Dir;
use crate::app::model::Model;

/// Every shortcut, for the sheet.
pub const SHEET: &[(&str, &str)] = &[
    ("Right / Left", "step one cycle forward / back"),
    (
        "Shift+Right / Shift+Left",
        "run to the next / previous breakpoint",
    ),
    ("PageDown / PageUp", "ten cycles forward / back"),
    ("Home / End", "first cycle / last simulated cycle"),
    ("Space", "play / pause"),
    ("+ / -", "faster / slower playback"),
    ("g", "go to a cycle"),
    ("/", "search nodes by ID or source text"),
    ("f", "fit the graph to the window"),
    ("b", "breakpoint on the selection firing"),
    ("w", "add the selected channel to the waveforms"),
    ("m", "waveform marker at the cursor"),
    ("d", "deadlock view on / off"),
    ("h", "throughput view: stall heat map and critical cycle"),
    (
        "] / [",
        "what if: one buffer slot more / less on the selected channel",
    ),
    ("t", "light / dark theme"),
    (
        "p",
        "presentation mode: larger labels, source and waveforms folded, view re-fitted",
    ),
    (
        "1 / 2 / 3",
        "fold or open the source / side panel / waveforms",
    ),
    ("c", "colour-blind-safe palette"),
    ("v", "values on edges on / off"),
    ("x", "cycle value format: signed, unsigned, hex, binary"),
    (
        "k",
        "compare view: the C kernel with task pipelining toggled, then buffers all / cycles / none, then off",
    ),
    ("n / N", "lesson: next / previous step"),
    ("Esc", "clear selection, close dialogs"),
    ("?", "this sheet"),
];

/// The mouse actions, shown under the keys on the sheet: (where and what, effect).
pub const MOUSE_SHEET: &[(&str, &str)] = &[
    (
        "graph: click a node or edge",
        "select it (inspector, source line, highlight)",
    ),
    ("graph: click empty space", "clear the selection"),
    ("graph: drag", "pan"),
    ("graph: wheel, pinch or Ctrl+wheel", "zoom at the pointer"),
    ("source: click a line", "select the nodes made from it"),
    ("timeline: click or drag", "go to that cycle"),
    ("waveforms: click", "move the cursor to that cycle"),
    ("waveforms: drag across", "zoom to the cycles dragged over"),
    ("waveforms: wheel", "scroll in time"),
    ("waveforms: Ctrl+wheel", "zoom in time at the pointer"),
    ("waveforms: right-click", "add a marker"),
];

/// What a key press asks of the window (the rest is applied to the model directly).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Actions {
    /// Open the go-to box.
    pub goto: bool,
    /// Focus the search box.
    pub search: bool,
    /// Fit the view.
    pub fit: bool,
    /// Toggle the shortcut sheet.
    pub help: bool,
    /// Escape pressed.
    pub escape: bool,
    /// Collapse or open a panel: 1 source, 2 side panel, 3 waveforms.
    pub toggle_panel: Option<u8>,
}

/// Applies the frame's key presses (unless a text field has the keyboard).
pub fn handle(ctx: &egui::Context, m: &mut Model) -> Actions {
    use egui::Key;
    let mut a = Actions::default();
    if ctx.egui_wants_keyboard_input() {
        if ctx.input(|i| i.key_pressed(Key::Escape)) {
            a.escape = true;
        }
        return a;
    }
    let events = ctx.input(|i| i.events.clone());
    for ev in events {
        match ev {
            egui::Event::Key {
                key,
                pressed: true,
                modifiers,
                ..
            } => match key {
                Key::ArrowRight if modifiers.shift => m.run_to_breakpoint(Dir::Forward),
                Key::ArrowLeft if modifiers.shift => m.run_to_breakpoint(Dir::Backward),
                Key::ArrowRight => m.step(1),
                Key::ArrowLeft => m.step(-1),
                Key::PageDown => m.step(10),
                Key::PageUp => m.step(-10),
                Key::Home => m.goto(0),
                Key::End => {
                    let n = m.cycles();
                    m.goto(n.saturating_sub(1));
                }
                Key::Space => m.playing = !m.playing,
                Key::Escape => {
                    a.escape = true;
                    m.select(None);
                }
                _ => {}
            },
            egui::Event::Text(t) => match t.as_str() {
                "g" => a.goto = true,
                "/" => a.search = true,
                "f" => a.fit = true,
                "?" => a.help = true,
                "+" | "=" => m.speed = (m.speed * 2.0).min(200.0),
                "-" => m.speed = (m.speed / 2.0).max(0.5),
                "t" => {
                    m.look.theme = match m.look.theme {
                        crate::app::style::Theme::Light => crate::app::style::Theme::Dark,
                        crate::app::style::Theme::Dark => crate::app::style::Theme::Light,
                    }
                }
                "p" => m.look.presentation = !m.look.presentation,
                "c" => m.look.colour_blind = !m.look.colour_blind,
                "v" => m.look.values = !m.look.values,
                "d" => m.deadlock_view = !m.deadlock_view,
                "h" => m.toggle_throughput(),
                "]" => m.what_if(1),
                "[" => m.what_if(-1),
                "1" => a.toggle_panel = Some(1),
                "2" => a.toggle_panel = Some(2),
                "3" => a.toggle_panel = Some(3),
                "k" => m.cycle_compare(),
                "n" => m.lesson_move(1),
                "N" => m.lesson_move(-1),
                "m" => m.markers.push(m.cycle),
                "x" => {
                    let all = crate::app::style::Radix::ALL;
                    let i = all.iter().position(|r| *r == m.look.radix).unwrap_or(0);
                    m.look.radix = all[(i + 1) % all.len()];
                }
                "b" => match m.selection {
                    Some(crate::app::describe::Selection::Channel(c)) => m
                        .breakpoints
                        .push(crate::app::breakpoints::Breakpoint::ChannelFires(c)),
                    Some(crate::app::describe::Selection::Node(n)) => m
                        .breakpoints
                        .push(crate::app::breakpoints::Breakpoint::NodeFires(n)),
                    None => {}
                },
                "w" => {
                    if let Some(crate::app::describe::Selection::Channel(c)) = m.selection
                        && !m.waves.contains(&c)
                    {
                        m.waves.push(c);
                    }
                }
                _ => {}
            },
            _ => {}
        }
    }
    a
}
