//! Headless drawing of the view at a cycle (`handscope render`, the export button, tests).

use super::model::Model;
use super::picture::{Caption, Picture};
use super::style::ChanState;

/// The view of `m` at its cursor as a picture with its caption (`None` until layout and trace
/// exist).
pub fn picture_of(m: &mut Model) -> Option<Picture> {
    let scene = m.scene()?;
    let pal = m.look.palette();
    let c = m.circuit.as_ref()?;
    let cs = m.cycle_state()?;
    let fires = c
        .func
        .channels
        .keys()
        .filter(|ch| cs.fired(cranelift_entity::EntityRef::index(*ch)))
        .count();
    let mut title = format!(
        "{} @{} — cycle {} — {fires} transfer{}",
        c.name,
        c.func.name,
        m.cycle,
        if fires == 1 { "" } else { "s" }
    );
    if let Some(d) = m.deadlock()
        && m.cycle >= d.since_cycle
    {
        title.push_str(&format!(" — deadlocked since cycle {}", d.since_cycle));
    }
    let caption = Caption {
        title,
        legend: ChanState::ALL
            .iter()
            .map(|s| (pal.chan(*s), s.name().to_string()))
            .collect(),
        color: Some(pal.text),
    };
    Some(Picture::new(&scene, &caption))
}

/// Opens `start` headlessly, moves to `cycle` and returns the SVG.
pub fn render_svg(
    start: super::model::Start,
    cycle: u64,
    look: super::model::Look,
) -> anyhow::Result<String> {
    render_picture_noting(start, cycle, look, &mut |_| {}).map(|p| super::svg::to_svg(&p))
}

/// Opens `start` headlessly, moves to `cycle` and returns the picture (for SVG or PNG); tells
/// `note` what a reader of the picture should know: the arguments that got no tokens (a run
/// without stimulus stalls at once) and a deadlock.
pub fn render_picture_noting(
    start: super::model::Start,
    cycle: u64,
    look: super::model::Look,
    note: &mut dyn FnMut(String),
) -> anyhow::Result<Picture> {
    let mut m = Model::new(start, std::sync::Arc::new(|| {}));
    m.watcher = None;
    if let Some(e) = &m.error {
        anyhow::bail!("{}", e.trim_end_matches(super::model::TRACE_FALLBACK));
    }
    // A stimulus that does not bind: the window draws the bare graph, a render fails.
    if let Some(e) = m.circuit.as_ref().and_then(|c| c.sim_error.clone()) {
        anyhow::bail!("{e}");
    }
    m.look = look;
    m.settle();
    m.goto(cycle);
    m.settle();
    // The deadlock view opens itself when the run is known to deadlock; keep the cursor.
    m.cycle = cycle.min(m.cycles().saturating_sub(1));
    m.update(0.0);
    if let Some(e) = m.source.as_ref().and_then(|s| s.error()) {
        anyhow::bail!("the engine could not start: {e}");
    }
    if let Some(c) = &m.circuit
        && m.vcd.is_none()
    {
        let unfed = c.session.unfed_arguments();
        if !unfed.is_empty() {
            let names: Vec<String> = unfed.iter().map(|a| format!("`{a}`")).collect();
            note(format!(
                "no tokens for {} (give them with --in NAME=...)",
                names.join(", ")
            ));
        }
    }
    if let Some(d) = m.deadlock() {
        note(format!(
            "the run deadlocks at cycle {} (`handscope sim` explains it)",
            d.since_cycle
        ));
    }
    picture_of(&mut m).ok_or_else(|| anyhow::anyhow!("nothing to draw (the circuit has no cycles)"))
}
