use handscope_compiler::c::*;
use handscope_sim::engine::Simulation;
use handscope_sim::stimulus::{Environment, TokenSource};
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let src = std::fs::read_to_string(&a[1]).unwrap();
    let top = src.lines().find_map(|l| l.strip_prefix("// TOP:")).map(str::trim);
    let pol = match a[2].as_str() { "none" => BufferPolicy::None, "all" => BufferPolicy::All, _ => BufferPolicy::Cycles };
    let m = compile_to_handshake(&src, &a[1], top, &HsOptions { buffers: pol, task_pipelining: a[3] == "1" }).unwrap();
    if a.get(4).map(String::as_str) == Some("mlir") { println!("{}", handscope_compiler::mlir::write_mlir(&m)); return; }
    let f = &m.functions[0];
    let mut env = Environment::default();
    env.memories = handshake::memory_inits(f);
    for kv in &a[4..] {
        let (k, v) = kv.split_once('=').unwrap();
        if let Some(k) = k.strip_prefix("mem:") {
            env.ext_memories.insert(k.into(), v.split(',').map(|x| x.parse::<i64>().unwrap() as u64).collect());
        } else {
            env.push_tokens(k, TokenSource::Values(v.split(',').map(|x| x.parse::<i64>().unwrap() as u64).collect()));
        }
    }
    let mut sim = Simulation::new(f, env).unwrap();
    sim.enable_trace();
    let r = sim.run(100000);
    if let Ok(n) = std::env::var("TRACE") {
        let t = sim.trace().unwrap();
        let n: u64 = n.parse().unwrap();
        for c in 0..n.min(t.cycles()) {
            let v = t.cycle(c).unwrap();
            let mut fired = Vec::new();
            for (i, m) in t.channels().iter().enumerate() {
                if v.valid(i) && v.ready(i) { fired.push(format!("{}={}", m.name, v.data(i) as i64)); }
            }
            println!("c{c}: {}", fired.join(" "));
        }
    }

    println!("{}", handscope_sim::report::render_human(&r));
}
