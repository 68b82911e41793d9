//! Fuzz target: the VCD reader (`handscope_traces::fuzzing::replay_vcd`) on
//! `examples/circuits/extmem_add.mlir` with the stimulus of its `// sim:` line: it never
//! panics, and reading in chunks gives what reading at once gives. Run in `fuzz/` with
//! `cargo fuzz run replay_vcd -s none` (seeds: `fuzz/regressions/replay_vcd`).
#![no_main]

use std::sync::OnceLock;

use handscope_sim::Function;
use handscope_sim::session::Session;
use handscope_sim::session::header::Header;
use handscope_sim::stimulus::Environment;
use libfuzzer_sys::fuzz_target;

const CIRCUIT: &str = include_str!("../../examples/circuits/extmem_add.mlir");

fn circuit() -> &'static (Function, Environment) {
    static C: OnceLock<(Function, Environment)> = OnceLock::new();
    C.get_or_init(|| {
        let (module, _) = handscope_compiler::mlir::parse_mlir(CIRCUIT, "extmem_add.mlir")
            .expect("the example parses");
        let mut s = Session::open(&module, None).expect("the example opens");
        s.bind(&Header::parse(CIRCUIT).sim_args())
            .expect("its stimulus binds");
        (s.function().clone(), s.environment().clone())
    })
}

fuzz_target!(|data: &[u8]| {
    let (f, env) = circuit();
    handscope_traces::fuzzing::replay_vcd(data, f, env);
});
