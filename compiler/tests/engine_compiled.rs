//! The compiled engine (`EngineKind::Compiled`) and the activity-driven interpreter
//! (`EngineKind::Activity`) against the interpreter, cycle by cycle:
//! every channel's valid/ready/data, every register and every memory word must agree after
//! every cycle, and both runs must end the same way. Over every C kernel (several buffer
//! policies, task pipelining, a timing profile with pipelined units, load-store queues) and
//! every example circuit; `ENGINE_DIFF_DIR=dir` adds the `.mlir` files of a directory (public
//! test circuits during development, in Handscope's dialect or Dynamatic's).

#![allow(clippy::print_stdout)] // progress lines for `--nocapture`

use crate::common;

use std::path::Path;

use common::kernels::{all_kernel_files, kernel, parse_args, session};
use handscope_compiler::c::{BufferPolicy, HsOptions, MemoryOrdering};
use handscope_compiler::mlir::parse_mlir;
use handscope_sim::engine::{EngineKind, Simulation};
use handscope_sim::session::Session;
use handscope_sim::session::header::Header;
use handscope_sim::spec::timing::TimingProfile;

/// Cycles compared per run (runs that end earlier are compared to their end).
const MAX_CYCLES: u64 = 4000;

/// Steps `interp` (the interpreter) and `other` (engine `kind`) side by side and compares
/// their whole state after every cycle. Returns the number of cycles compared.
fn compare_engines(
    what: &str,
    mut interp: Simulation,
    mut compiled: Simulation,
    kind: EngineKind,
) -> u64 {
    interp.set_engine(EngineKind::Interpreter);
    compiled.set_engine(kind);
    let (name, why) = compiled.engine();
    // The interpreted activity-driven passes name themselves "activity (interpreted)".
    let name = name.split(' ').next().unwrap_or(name);
    let f = interp.function().clone();
    let want = if kind == EngineKind::Activity {
        "activity"
    } else {
        "compiled"
    };
    if name != want {
        // Only graphs whose passes iterate together (lazy forks; for the activity-driven
        // interpreter also combinational cycles) stay interpreted.
        let why = why.map(|e| e.to_string()).unwrap_or_default();
        assert!(
            why.contains("lazy_fork") || kind == EngineKind::Activity,
            "{what}: not compiled: {why}"
        );
        return 0;
    }
    let mut n = 0;
    while interp.can_step() && n < MAX_CYCLES {
        interp.step();
        compiled.step();
        for (c, ch) in f.channels.iter() {
            let a = (interp.valid(c), interp.ready(c), interp.data(c));
            let b = (compiled.valid(c), compiled.ready(c), compiled.data(c));
            assert_eq!(
                a, b,
                "{what}: cycle {n}, channel {}: (valid, ready, data) interpreted {a:?}, compiled {b:?}",
                ch.name
            );
        }
        for (id, node) in f.nodes.iter() {
            let (a, names) = interp.registers(id);
            let (b, _) = compiled.registers(id);
            assert_eq!(
                a, b,
                "{what}: cycle {n}, registers of {} ({names:?})",
                node.id
            );
        }
        for ((name, a), (_, b)) in interp.memories().zip(compiled.memories()) {
            assert_eq!(a, b, "{what}: cycle {n}, memory {name}");
        }
        n += 1;
    }
    assert_eq!(interp.can_step(), compiled.can_step(), "{what}");
    assert_eq!(
        format!("{:?}", interp.report()),
        format!("{:?}", compiled.report()),
        "{what}: reports differ"
    );
    n
}

/// Cycles of the whole runs compared by [`compare_runs`].
const MAX_RUN_CYCLES: u64 = 300_000;

/// Runs `interp` (the interpreter) and `other` (the activity-driven interpreter) with
/// [`Simulation::run`], where the activity-driven engine simulates the cycles in which
/// nothing can change together (time skipping), and compares where they end: cycle, report
/// (statistics, events, deadlock analysis), signals, registers and memories.
fn compare_runs(what: &str, mut interp: Simulation, mut other: Simulation) {
    interp.set_engine(EngineKind::Interpreter);
    other.set_engine(EngineKind::Activity);
    if !other.engine().0.starts_with("activity") {
        return;
    }
    let a = interp.run(MAX_RUN_CYCLES);
    let b = other.run(MAX_RUN_CYCLES);
    assert_eq!(interp.cycle(), other.cycle(), "{what}: whole run, cycles");
    assert_eq!(
        format!("{a:?}"),
        format!("{b:?}"),
        "{what}: whole run, reports differ"
    );
    let f = interp.function().clone();
    for (c, ch) in f.channels.iter() {
        let x = (interp.valid(c), interp.ready(c), interp.data(c));
        let y = (other.valid(c), other.ready(c), other.data(c));
        assert_eq!(x, y, "{what}: whole run, channel {}", ch.name);
    }
    for (id, node) in f.nodes.iter() {
        assert_eq!(
            interp.registers(id).0,
            other.registers(id).0,
            "{what}: whole run, registers of {}",
            node.id
        );
    }
    for ((name, x), (_, y)) in interp.memories().zip(other.memories()) {
        assert_eq!(x, y, "{what}: whole run, memory {name}");
    }
}

/// Compares engine `kind` with the interpreter on every kernel's first RUN line in each of
/// `configs` (buffers, task pipelining, timing, memory ordering). Returns the cycles compared.
fn compare_kernels(
    configs: &[(BufferPolicy, bool, TimingProfile, MemoryOrdering)],
    kind: EngineKind,
) -> u64 {
    compare_kernels_with(configs, kind, true)
}

/// [`compare_kernels`], the activity-driven passes compiled or interpreted
/// (`Simulation::set_activity_compiled`).
fn compare_kernels_with(
    configs: &[(BufferPolicy, bool, TimingProfile, MemoryOrdering)],
    kind: EngineKind,
    compiled_activity: bool,
) -> u64 {
    let mut total = 0;
    for file in all_kernel_files() {
        let k = kernel(&file);
        let ir = k.ir();
        let invocations = vec![parse_args(&ir, &k.runs[0])];
        for (buffers, task_pipelining, timing, memory) in configs {
            let what = format!(
                "{file} [{buffers:?}, pipelined {task_pipelining}, {}, {memory:?}] ({kind:?})",
                timing.name()
            );
            let hs = k.handshake(&HsOptions {
                buffers: *buffers,
                task_pipelining: *task_pipelining,
                memory: *memory,
                ..Default::default()
            });
            let s = session(&ir, &hs, &invocations, timing);
            let sim = || {
                let mut sim = s.simulation().unwrap_or_else(|e| panic!("{what}: {e}"));
                sim.set_activity_compiled(compiled_activity);
                sim
            };
            total += compare_engines(&what, sim(), sim(), kind);
            // Whole runs, where idle cycles are skipped: the pipelines of `fpga`.
            if kind == EngineKind::Activity && timing.name() == "fpga" {
                compare_runs(&what, sim(), sim());
            }
        }
    }
    total
}

#[test]
fn compiled_engine_matches_the_interpreter_on_every_kernel() {
    let configs = [
        (
            BufferPolicy::Cycles,
            false,
            TimingProfile::ideal(),
            MemoryOrdering::Serial,
        ),
        (
            BufferPolicy::None,
            false,
            TimingProfile::ideal(),
            MemoryOrdering::Serial,
        ),
        (
            BufferPolicy::All,
            true,
            TimingProfile::ideal(),
            MemoryOrdering::Serial,
        ),
        (
            BufferPolicy::Cycles,
            false,
            TimingProfile::fpga(),
            MemoryOrdering::Serial,
        ),
        // Load-store queues: the compiled engine calls the interpreter's LSQ code.
        (
            BufferPolicy::Cycles,
            false,
            TimingProfile::ideal(),
            MemoryOrdering::Lsq,
        ),
        // Address queues, under the `fpga` profile's latencies.
        (
            BufferPolicy::Cycles,
            false,
            TimingProfile::fpga(),
            MemoryOrdering::Queue,
        ),
    ];
    let total = compare_kernels(&configs, EngineKind::Compiled);
    assert!(total > 50_000, "only {total} cycles compared");
}

/// The activity-driven interpreter equals the interpreter on every kernel, in the same
/// configurations as the compiled engine.
#[test]
fn activity_engine_matches_the_interpreter_on_every_kernel() {
    let configs = [
        (
            BufferPolicy::Cycles,
            false,
            TimingProfile::ideal(),
            MemoryOrdering::Serial,
        ),
        (
            BufferPolicy::All,
            true,
            TimingProfile::ideal(),
            MemoryOrdering::Serial,
        ),
        (
            BufferPolicy::Cycles,
            false,
            TimingProfile::fpga(),
            MemoryOrdering::Serial,
        ),
        (
            BufferPolicy::Cycles,
            false,
            TimingProfile::ideal(),
            MemoryOrdering::Lsq,
        ),
        (
            BufferPolicy::Cycles,
            false,
            TimingProfile::fpga(),
            MemoryOrdering::Queue,
        ),
    ];
    let total = compare_kernels(&configs, EngineKind::Activity);
    assert!(total > 50_000, "only {total} cycles compared");
}

/// The activity-driven passes interpreted (where the code generator cannot compile them)
/// equal the interpreter on every kernel, at ideal and `fpga` timing.
#[test]
fn interpreted_activity_engine_matches_the_interpreter_on_every_kernel() {
    let configs = [
        (
            BufferPolicy::Cycles,
            false,
            TimingProfile::ideal(),
            MemoryOrdering::Serial,
        ),
        (
            BufferPolicy::Cycles,
            false,
            TimingProfile::fpga(),
            MemoryOrdering::Queue,
        ),
    ];
    let total = compare_kernels_with(&configs, EngineKind::Activity, false);
    assert!(total > 20_000, "only {total} cycles compared");
}

/// Compares the two engines on every `.mlir` file of `dir`, with each file's `// sim:`
/// stimulus. Returns the cycles compared. Files that do not parse or cannot start are
/// skipped when not `strict` (other people's test files include invalid ones on purpose).
fn compare_circuits(dir: &Path, strict: bool) -> u64 {
    compare_circuits_with(dir, strict, EngineKind::Compiled)
}

/// [`compare_circuits`] for engine `kind`.
fn compare_circuits_with(dir: &Path, strict: bool, kind: EngineKind) -> u64 {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "mlir"))
        .collect();
    files.sort();
    let mut total = 0;
    for path in files {
        let what = path.display().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        // Handscope's dialect, or Dynamatic's (lowered with its built-in latencies).
        let parsed: Result<handscope_sim::Module, String> =
            if handscope_compiler::mlir::looks_dynamatic(&text) {
                handscope_compiler::mlir::parse_dynamatic(&text, &what)
                    .map_err(|e| e.to_string())
                    .and_then(|(m, _)| {
                        handscope_compiler::mlir::dynamatic::lower(
                            &m,
                            &text,
                            &what,
                            &handscope_compiler::mlir::dynamatic::DynTiming::builtin(),
                        )
                        .map_err(|e| e.to_string())
                    })
            } else {
                parse_mlir(&text, &what)
                    .map(|(m, _)| m)
                    .map_err(|e| e.to_string())
            };
        let started = parsed
            .and_then(|module| Session::open(&module, None).map_err(|e| e.to_string()))
            .and_then(|mut s| {
                s.bind(&Header::parse(&text).sim_args())
                    .map_err(|e| e.to_string())?;
                Ok((
                    s.simulation().map_err(|e| e.to_string())?,
                    s.simulation().map_err(|e| e.to_string())?,
                    s.simulation().map_err(|e| e.to_string())?,
                    s.simulation().map_err(|e| e.to_string())?,
                ))
            });
        match started {
            Ok((a, b, c, d)) => {
                let n = compare_engines(&what, a, b, kind);
                if kind == EngineKind::Activity {
                    compare_runs(&what, c, d);
                }
                println!("{what}: {n} cycles");
                total += n;
            }
            Err(e) => assert!(!strict, "{what}: {e}"),
        }
    }
    total
}

/// The activity-driven interpreter equals the interpreter on every example circuit (and,
/// with `ENGINE_DIFF_DIR`, a directory of other circuits).
#[test]
fn activity_engine_matches_the_interpreter_on_every_example_circuit() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/circuits");
    let n = compare_circuits_with(&dir, true, EngineKind::Activity);
    assert!(n > 200, "only {n} cycles compared");
    if let Ok(extra) = std::env::var("ENGINE_DIFF_DIR") {
        let n = compare_circuits_with(Path::new(&extra), false, EngineKind::Activity);
        println!("{extra}: {n} cycles compared (activity)");
    }
}

#[test]
fn compiled_engine_matches_the_interpreter_on_every_example_circuit() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/circuits");
    let n = compare_circuits(&dir, true);
    assert!(n > 200, "only {n} cycles compared");
    if let Ok(extra) = std::env::var("ENGINE_DIFF_DIR") {
        let n = compare_circuits(Path::new(&extra), false);
        println!("{extra}: {n} cycles compared");
    }
}
