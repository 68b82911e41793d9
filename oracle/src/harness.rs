//! The whole differential run: lower every design, build one Verilator model, run it, read
//! the VCD back, simulate every design in the engine with the same stimulus, and compare
//! every channel's valid, ready and data in every cycle.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use handscope_sim::session::Session;
use handscope_sim::spec::CirctLowering;
use handscope_sim::stimulus::{ReadyPolicy, TokenSource};
use handscope_sim::{ArgType, Function, Op, Type};

use crate::compare::{ChannelCheck, ChannelWave, Mismatch, compare_channel};
use crate::error::OracleError;
use crate::generator::Rng;
use crate::lower::{cache_root, lower_many};
use crate::model::{BuildOptions, DesignDrive, ModelDesign, TopPort, build_model, run_model};
use crate::names::channel_probes;
use crate::prng::random_ready_bits;
use crate::rtl::{LoweredDesign, channel_ports, combine};
use crate::tools::Tools;
use crate::vcd::Waves;

/// Ready policy of one result (the same three kinds as the engine's `ReadyPolicy`).
#[derive(Clone, Debug, PartialEq)]
pub enum ReadySpec {
    /// Always ready.
    Always,
    /// The engine's seeded splitmix64 policy.
    Random {
        /// Seed.
        seed: u64,
        /// Probability.
        prob: f64,
    },
    /// Repeating bit pattern.
    Pattern(Vec<bool>),
}

impl ReadySpec {
    /// Ready bits for cycles `0..cycles`, computed independently of the engine.
    pub fn bits(&self, cycles: usize) -> Vec<bool> {
        match self {
            ReadySpec::Always => vec![true; cycles],
            ReadySpec::Random { seed, prob } => random_ready_bits(*seed, *prob, cycles),
            ReadySpec::Pattern(p) => (0..cycles).map(|c| p[c % p.len()]).collect(),
        }
    }

    /// The engine's policy.
    pub fn policy(&self) -> ReadyPolicy {
        match self {
            ReadySpec::Always => ReadyPolicy::Always,
            ReadySpec::Random { seed, prob } => ReadyPolicy::Random {
                seed: *seed,
                prob: *prob,
            },
            ReadySpec::Pattern(p) => ReadyPolicy::Pattern(p.clone()),
        }
    }
}

/// One circuit with its stimulus.
#[derive(Clone, Debug)]
pub struct DesignSpec {
    /// Name used in messages.
    pub name: String,
    /// The function the engine simulates (IDs assigned; no instances).
    pub func: Function,
    /// The MLIR text CIRCT lowers; its top `handshake.func` must be named like `func`.
    pub mlir: String,
    /// Tokens per channel argument, in argument order (values are masked to the width).
    pub tokens: Vec<Vec<u64>>,
    /// Ready policy per result.
    pub ready: Vec<ReadySpec>,
    /// Channels whose data is not compared, with the reason.
    pub skip_data: BTreeMap<String, String>,
}

impl DesignSpec {
    /// A design with random stimulus drawn from `seed`: `n_tokens` tokens per argument and a
    /// random ready policy per result (always, random with p in {0.3, 0.6, 0.9}, or a pattern).
    pub fn with_random_stimulus(
        name: &str,
        func: Function,
        mlir: String,
        seed: u64,
        n_tokens: usize,
    ) -> Self {
        let mut rng = Rng::new(seed ^ 0xD15C_0A11);
        let tokens = func
            .args
            .iter()
            .filter_map(|a| match &a.ty {
                ArgType::Channel(t) => Some((0..n_tokens).map(|_| rng.value(t)).collect()),
                ArgType::MemRef(_) => None,
            })
            .collect();
        let ready = func
            .results
            .iter()
            .map(|_| random_ready(&mut rng))
            .collect();
        DesignSpec {
            name: name.to_string(),
            func,
            mlir,
            tokens,
            ready,
            skip_data: BTreeMap::new(),
        }
    }
}

/// A random ready policy.
pub fn random_ready(rng: &mut Rng) -> ReadySpec {
    match rng.below(10) {
        0..=2 => ReadySpec::Always,
        3..=7 => ReadySpec::Random {
            seed: rng.next_u64(),
            prob: *rng.pick(&[0.3, 0.6, 0.9]),
        },
        _ => {
            let n = 1 + rng.below(7);
            let mut p: Vec<bool> = (0..n).map(|_| rng.chance(0.6)).collect();
            p.push(true);
            ReadySpec::Pattern(p)
        }
    }
}

/// Timings and counts of one run.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Designs compared.
    pub designs: usize,
    /// Cycles requested per design.
    pub cycles: u32,
    /// Channel-cycles compared (a channel-cycle is valid, ready and data of one channel in one
    /// cycle).
    pub channel_cycles: u64,
    /// Transfers (cycles with valid & ready) seen in the compared RTL channel-cycles: a
    /// sanity check that the comparison is not vacuous.
    pub transfers: u64,
    /// Disagreements (first one per channel).
    pub mismatches: Vec<Mismatch>,
    /// Seconds spent lowering.
    pub lower_seconds: f64,
    /// Seconds spent building the model (0 when cached).
    pub build_seconds: f64,
    /// True when the model came from the cache.
    pub model_cached: bool,
    /// Seconds spent running the model and reading the VCD.
    pub rtl_seconds: f64,
    /// Seconds spent in the engine.
    pub engine_seconds: f64,
    /// Designs the engine finished before `cycles` (compared up to where it stopped).
    pub engine_stopped_early: usize,
}

impl Summary {
    /// The one-line summary.
    pub fn line(&self) -> String {
        format!(
            "oracle: {} designs, {} cycles each, {} channel-cycles compared ({} transfers), {} mismatches \
             (lower {:.1}s, verilator build {:.1}s{}, rtl run {:.1}s, engine {:.1}s)",
            self.designs,
            self.cycles,
            self.channel_cycles,
            self.transfers,
            self.mismatches.len(),
            self.lower_seconds,
            self.build_seconds,
            if self.model_cached { " cached" } else { "" },
            self.rtl_seconds,
            self.engine_seconds
        )
    }
}

fn unsupported(d: &DesignSpec, reason: &str) -> OracleError {
    OracleError::Unsupported {
        design: d.name.clone(),
        reason: reason.to_string(),
    }
}

fn check_supported(d: &DesignSpec) -> Result<(), OracleError> {
    for (_, n) in d.func.nodes.iter() {
        match &n.op {
            Op::Instance { .. } => {
                return Err(unsupported(
                    d,
                    "instances (flattened IDs have no RTL net names yet)",
                ));
            }
            Op::ExtMemory { .. } => {
                return Err(unsupported(
                    d,
                    "extmemory (the testbench has no memory model)",
                ));
            }
            op if op.spec().circt == CirctLowering::NotLowered => {
                return Err(unsupported(d, "op not lowered by CIRCT 1.62"));
            }
            _ => {}
        }
    }
    Ok(())
}

/// The engine's simulation of `d` with its stimulus and ready policies (no deadlock
/// window: the run goes on as long as it is stepped).
pub fn engine_simulation(d: &DesignSpec) -> Result<handscope_sim::engine::Simulation, OracleError> {
    let f = &d.func;
    let refuse = |e: &dyn std::fmt::Display| unsupported(d, &format!("engine refused it: {e}"));
    let mut session = Session::new(f.clone()).map_err(|e| refuse(&e))?;
    session.set_deadlock_window(u64::MAX);
    let mut k = 0;
    for a in &f.args {
        if let ArgType::Channel(t) = &a.ty {
            let toks = &d.tokens[k];
            let src = if t.is_none() {
                TokenSource::None(toks.len() as u64)
            } else {
                TokenSource::Values(toks.clone())
            };
            session.bind_tokens(&a.name, src).map_err(|e| refuse(&e))?;
            k += 1;
        }
    }
    for (r, spec) in f.results.iter().zip(&d.ready) {
        session
            .bind_ready(&r.name, spec.policy())
            .map_err(|e| refuse(&e))?;
    }
    session.simulation().map_err(|e| refuse(&e))
}

/// Runs the engine for up to `cycles` cycles and records every channel.
/// Returns the waves (in `f.channels` order) and the number of cycles simulated (fewer than
/// `cycles` when the run finished: the engine does not step past `Done`).
pub fn engine_waves(d: &DesignSpec, cycles: u32) -> Result<(Vec<ChannelWave>, usize), OracleError> {
    let f = &d.func;
    let mut sim = engine_simulation(d)?;
    // Values are read from the engine's trace, which records each cycle's settled values
    // before the clock edge (`Simulation::valid` etc. read the state after the last step,
    // where buffer outputs already show the next cycle).
    sim.enable_trace();
    let mut done = 0usize;
    while done < cycles as usize {
        let before = sim.cycle();
        sim.step();
        if sim.cycle() == before {
            break;
        }
        done += 1;
    }
    let trace = sim
        .take_trace()
        .ok_or_else(|| unsupported(d, "engine produced no trace"))?;
    let n = f.channels.len();
    if trace.channels().len() != n {
        return Err(unsupported(d, "engine trace has a different channel list"));
    }
    let mut waves = vec![
        ChannelWave {
            valid: Vec::with_capacity(done),
            ready: Vec::with_capacity(done),
            data: Vec::with_capacity(done),
        };
        n
    ];
    let mut rp = trace.replay();
    while rp.next_cycle().is_some() {
        let vals = rp.values();
        for (i, w) in waves.iter_mut().enumerate() {
            w.valid.push(vals[i] & 1 != 0);
            w.ready.push(vals[i] & 2 != 0);
            w.data.push(vals[n + i]);
        }
    }
    let done = waves.first().map_or(done, |w| w.valid.len());
    Ok((waves, done))
}

fn port_width(t: &Type) -> u32 {
    t.bit_width()
}

/// Runs the whole differential comparison for `designs` over `cycles` cycles.
pub fn run_designs(
    tools: &Tools,
    designs: &[DesignSpec],
    cycles: u32,
    opts: &BuildOptions,
) -> Result<Summary, OracleError> {
    for d in designs {
        check_supported(d)?;
    }
    let mut summary = Summary {
        designs: designs.len(),
        cycles,
        ..Default::default()
    };

    // 1. Lower.
    let t = Instant::now();
    let inputs: Vec<(&str, &str)> = designs
        .iter()
        .map(|d| (d.name.as_str(), d.mlir.as_str()))
        .collect();
    let mut lowered = Vec::new();
    for (k, (d, r)) in designs.iter().zip(lower_many(tools, &inputs)).enumerate() {
        let sv = r?;
        let mut functions = BTreeSet::new();
        functions.insert(d.func.name.clone());
        lowered.push(LoweredDesign {
            index: k,
            functions,
            top: d.func.name.clone(),
            sv,
        });
    }
    summary.lower_seconds = t.elapsed().as_secs_f64();

    // 2. Merge and describe the tops.
    let combined = combine(&lowered).map_err(|m| OracleError::Rtl {
        design: "?".into(),
        message: m,
    })?;
    let mut model_designs = Vec::new();
    let mut probes = Vec::new();
    for (d, (module, ports)) in designs.iter().zip(&combined.tops) {
        let (ins, outs) = channel_ports(ports);
        let p = channel_probes(&d.func, &ins, &outs).map_err(|m| OracleError::Rtl {
            design: d.name.clone(),
            message: m,
        })?;
        let arg_types: Vec<&Type> = d
            .func
            .args
            .iter()
            .filter_map(|a| match &a.ty {
                ArgType::Channel(t) => Some(t),
                ArgType::MemRef(_) => None,
            })
            .collect();
        let args = ins
            .iter()
            .zip(&arg_types)
            .map(|(b, t)| TopPort {
                base: b.clone(),
                width: port_width(t),
            })
            .collect();
        let results = outs
            .iter()
            .zip(&d.func.results)
            .map(|(b, r)| TopPort {
                base: b.clone(),
                width: port_width(&r.ty),
            })
            .collect();
        model_designs.push(ModelDesign {
            module: module.clone(),
            args,
            results,
        });
        probes.push(p);
    }

    // 3. Build.
    let model = build_model(tools, &combined.sv, model_designs, opts)?;
    summary.build_seconds = model.build_seconds;
    summary.model_cached = model.cached;

    // 4. Run the model.
    let t = Instant::now();
    let drives: Vec<DesignDrive> = designs
        .iter()
        .zip(&model.designs)
        .map(|(d, m)| DesignDrive {
            tokens: d
                .tokens
                .iter()
                .zip(&m.args)
                .map(|(toks, p)| {
                    toks.iter()
                        .map(|v| v & handscope_sim::types::width_mask(p.width))
                        .collect()
                })
                .collect(),
            ready: d.ready.iter().map(|r| r.bits(cycles as usize)).collect(),
        })
        .collect();
    let workdir = cache_root(tools).join("runs").join(
        format!("{}-{:?}", std::process::id(), std::thread::current().id())
            .replace(|c: char| !c.is_ascii_alphanumeric() && c != '-', ""),
    );
    let vcd_path = run_model(&model, &drives, cycles, &workdir)?;
    let mut waves = Waves::open(&vcd_path, cycles)?;
    let _ = std::fs::remove_dir_all(&workdir);
    summary.rtl_seconds = t.elapsed().as_secs_f64();

    // 5. Engine and comparison, design by design.
    for (k, (d, probes)) in designs.iter().zip(&probes).enumerate() {
        let t = Instant::now();
        let (ewaves, ran) = engine_waves(d, cycles)?;
        summary.engine_seconds += t.elapsed().as_secs_f64();
        if ran < cycles as usize {
            summary.engine_stopped_early += 1;
        }
        let t = Instant::now();
        let vars = waves.design_vars(k)?;
        let lookup = |name: &str| {
            vars.get(name).copied().ok_or_else(|| {
                OracleError::Vcd(format!(
                    "design `{}` (dut{k}): no signal `{name}` in the VCD",
                    d.name
                ))
            })
        };
        let mut refs = Vec::new();
        let mut sigs = Vec::new();
        for p in probes {
            let v = lookup(&p.valid)?;
            let r = lookup(&p.ready)?;
            let dt = match &p.data {
                Some(n) => Some(lookup(n)?),
                None => None,
            };
            refs.extend([v, r]);
            refs.extend(dt);
            sigs.push((v, r, dt));
        }
        waves.load(&refs);
        for ((p, (v, r, dt)), ew) in probes.iter().zip(sigs).zip(&ewaves) {
            let rtl = ChannelWave {
                valid: waves.samples(v)?.into_iter().map(|x| x & 1 == 1).collect(),
                ready: waves.samples(r)?.into_iter().map(|x| x & 1 == 1).collect(),
                data: match dt {
                    Some(s) => waves.samples(s)?,
                    None => vec![0; cycles as usize],
                },
            };
            let mask = if d.skip_data.contains_key(&p.channel) {
                0
            } else {
                p.ty.mask()
            };
            let check = ChannelCheck {
                name: p.channel.clone(),
                data_mask: if p.ty.is_none() { 0 } else { mask },
                width: p.ty.bit_width(),
            };
            let (n, m) = compare_channel(&d.name, &check, ew, &rtl, ran);
            summary.transfers += (0..n as usize)
                .filter(|&c| rtl.valid[c] && rtl.ready[c])
                .count() as u64;
            summary.channel_cycles += n;
            summary.mismatches.extend(m);
        }
        waves.unload(&refs);
        summary.rtl_seconds += t.elapsed().as_secs_f64();
    }
    Ok(summary)
}

/// Prints `f` with the compiler's MLIR writer and reads the text back with its reader, so
/// the engine simulates exactly what CIRCT is given (and both directions are exercised).
/// Returns the parsed top function and the text.
pub fn through_mlir(f: &Function) -> Result<(Function, String), String> {
    let text = handscope_compiler::mlir::write_function(f);
    parse_top(&text, &f.name)
}

/// Parses MLIR text and returns its default (top) function and the text.
pub fn parse_top(text: &str, file: &str) -> Result<(Function, String), String> {
    let (m, _warnings) =
        handscope_compiler::mlir::parse_mlir(text, file).map_err(|e| format!("{file}: {e:?}"))?;
    let f = m
        .default_function()
        .ok_or_else(|| format!("{file}: no function"))?
        .clone();
    Ok((f, text.to_string()))
}
