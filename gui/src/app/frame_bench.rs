//! Frame-time measurement of the whole debugger window without a display (`handscope bench
//! frame`): the window's egui pass (every panel, the graph view building and culling its
//! shapes) plus the tessellation of its shapes into triangles, the CPU work of one frame.
//! The GPU upload and rasterization of those triangles are not included.
//!
//! A large graph (the engine benchmark's chain, five nodes per stage) is measured against a
//! small baseline (the first gallery example) in the same run, in four scenarios: fitted and
//! at 100 % zoom, each with the cursor still (the scene is cached) and with a new cycle every
//! frame (the scene is rebuilt, as when playing).

use std::sync::Arc;
use std::time::Instant;

use super::model::Start;
use super::ui::DebuggerApp;

/// One scenario's figures.
#[derive(Clone, Debug)]
pub struct ScenarioTimes {
    /// What was measured (`fit, new cycle every frame`).
    pub label: String,
    /// Milliseconds per frame, one per measured frame (pass + tessellation).
    pub frames_ms: Vec<f64>,
    /// Mean egui pass time, milliseconds.
    pub pass_ms: f64,
    /// Mean tessellation time, milliseconds.
    pub tess_ms: f64,
    /// Shapes the graph view painted in the last frame.
    pub painted: usize,
}

impl ScenarioTimes {
    /// Mean frame time in milliseconds.
    pub fn mean(&self) -> f64 {
        self.frames_ms.iter().sum::<f64>() / self.frames_ms.len().max(1) as f64
    }

    /// The `q` quantile (0..=1) of the frame times, in milliseconds.
    pub fn quantile(&self, q: f64) -> f64 {
        let mut v = self.frames_ms.clone();
        v.sort_by(f64::total_cmp);
        if v.is_empty() {
            return 0.0;
        }
        v[((v.len() - 1) as f64 * q).round() as usize]
    }
}

/// The measurement of one circuit.
#[derive(Clone, Debug)]
pub struct FrameReport {
    /// Circuit name.
    pub name: String,
    /// Its node count.
    pub nodes: usize,
    /// Its channel count.
    pub channels: usize,
    /// Layout engine used.
    pub layout_engine: String,
    /// Seconds to lay out the graph (once per graph, in a background thread in the app).
    pub layout_s: f64,
    /// The scenarios.
    pub scenarios: Vec<ScenarioTimes>,
}

/// Writes the engine benchmark's chain of `stages` stages as MLIR into `dir` and returns how
/// to open it, streaming `in0 = 0..1000` (enough tokens to keep every stage busy).
pub fn chain_start(stages: usize, dir: &std::path::Path) -> std::io::Result<Start> {
    let f = handscope_sim::bench_support::chain(stages);
    std::fs::create_dir_all(dir)?;
    let p = dir.join(format!("chain{stages}.mlir"));
    let module = handscope_sim::Module { functions: vec![f] };
    std::fs::write(&p, handscope_compiler::mlir::write_mlir(&module))?;
    let over = handscope_sim::session::StimulusArgs {
        inputs: vec!["in0=0..1000".into()],
        ..Default::default()
    };
    Ok(Start::File(p, None, over, None, Default::default()))
}

/// Window size of the measurement, in points.
pub const WINDOW: [f32; 2] = [1600.0, 1000.0];

fn raw_input() -> egui::RawInput {
    egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::Vec2::new(WINDOW[0], WINDOW[1]),
        )),
        ..Default::default()
    }
}

/// Opens `start` headlessly, runs the engine to `first_cycle + frames`, and measures `frames`
/// frames per scenario (after a few warm-up frames).
pub fn measure(start: Start, first_cycle: u64, frames: usize) -> anyhow::Result<FrameReport> {
    let mut app = DebuggerApp::new(start, Arc::new(|| {}));
    app.model.watcher = None;
    let t0 = Instant::now();
    app.model.settle();
    let layout_s = t0.elapsed().as_secs_f64();
    if let Some(e) = &app.model.error {
        anyhow::bail!("{e}");
    }
    let (name, nodes, channels) = {
        let c = app
            .model
            .circuit
            .as_ref()
            .ok_or_else(|| anyhow::anyhow!("no circuit"))?;
        (c.name.clone(), c.func.nodes.len(), c.func.channels.len())
    };
    let layout_engine = app
        .model
        .layout
        .as_ref()
        .map_or("none".to_string(), |l| l.engine.to_string());
    // Make sure every cycle the scenarios visit exists.
    let last = first_cycle + frames as u64;
    app.model.goto(last);
    app.model.settle();
    let end = app.model.cycles().saturating_sub(1);
    let ctx = egui::Context::default();
    let frame = |app: &mut DebuggerApp| -> (f64, f64) {
        let t = Instant::now();
        let mut out = ctx.run_ui(raw_input(), |ui| app.show(ui));
        // No GPU: font atlas updates are not uploaded anywhere.
        out.textures_delta.clear();
        let pass = t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now();
        let prims = ctx.tessellate(out.shapes, out.pixels_per_point);
        let tess = t.elapsed().as_secs_f64() * 1e3;
        std::hint::black_box(prims);
        (pass, tess)
    };
    app.model.goto(first_cycle.min(end));
    for _ in 0..5 {
        frame(&mut app);
    }
    let mut scenarios = Vec::new();
    for (zoom, stepping) in [
        (None, false),
        (None, true),
        (Some(1.0), false),
        (Some(1.0), true),
    ] {
        match zoom {
            Some(z) => {
                // 100 %: centered on the middle of the drawing.
                let size = app.model.layout.as_ref().map_or([0.0, 0.0], |l| l.size);
                app.view.zoom = z;
                app.view.offset =
                    app.view.rect.size() / 2.0 - egui::Vec2::new(size[0], size[1]) / 2.0;
            }
            None => app.view.fit_request = true,
        }
        app.model.goto(first_cycle.min(end));
        frame(&mut app);
        let mut times = Vec::with_capacity(frames);
        let (mut pass_sum, mut tess_sum) = (0.0, 0.0);
        for i in 0..frames {
            if stepping {
                app.model.goto((first_cycle + 1 + i as u64).min(end));
            }
            let (pass, tess) = frame(&mut app);
            pass_sum += pass;
            tess_sum += tess;
            times.push(pass + tess);
        }
        let label = format!(
            "{}, {}",
            if zoom.is_some() { "100% zoom" } else { "fit" },
            if stepping {
                "new cycle every frame"
            } else {
                "cursor still"
            }
        );
        scenarios.push(ScenarioTimes {
            label,
            frames_ms: times,
            pass_ms: pass_sum / frames.max(1) as f64,
            tess_ms: tess_sum / frames.max(1) as f64,
            painted: app.view.painted,
        });
    }
    Ok(FrameReport {
        name,
        nodes,
        channels,
        layout_engine,
        layout_s,
        scenarios,
    })
}

/// The report as a table, with each scenario's mean as a ratio to the baseline's and to the
/// 16.7 ms budget of 60 frames per second.
pub fn render(big: &FrameReport, base: &FrameReport) -> String {
    let mut s = String::new();
    for r in [base, big] {
        s.push_str(&format!(
            "{}: {} nodes, {} channels, layout ({}) {:.2} s\n",
            r.name, r.nodes, r.channels, r.layout_engine, r.layout_s
        ));
    }
    s.push_str(&format!(
        "\n{:<32} {:>9} {:>9} {:>9} {:>9} {:>9} {:>8} {:>8} {:>9} {:>8}\n",
        "scenario",
        "base ms",
        "mean ms",
        "pass ms",
        "tess ms",
        "p95 ms",
        "max ms",
        "x base",
        "x 16.7ms",
        "shapes"
    ));
    for (b, g) in base.scenarios.iter().zip(&big.scenarios) {
        s.push_str(&format!(
            "{:<32} {:>9.2} {:>9.2} {:>9.2} {:>9.2} {:>9.2} {:>8.2} {:>8.2} {:>9.2} {:>8}\n",
            g.label,
            b.mean(),
            g.mean(),
            g.pass_ms,
            g.tess_ms,
            g.quantile(0.95),
            g.quantile(1.0),
            g.mean() / b.mean().max(1e-9),
            g.mean() / (1000.0 / 60.0),
            g.painted,
        ));
    }
    s
}
