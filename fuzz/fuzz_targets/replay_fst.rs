//! Fuzz target: the FST reader (`handscope_traces::fuzzing::replay_fst`, through `wellen`) on
//! `examples/circuits/extmem_add.mlir` with the stimulus of its `// sim:` line: it never
//! panics and replays reproducibly. Each input is written to a scratch file on the RAM disk
//! (`wellen` reads FST from a file). Run in `fuzz/` with `cargo fuzz run replay_fst -s none`
//! (seeds: `fuzz/regressions/replay_fst`).
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use handscope_sim::Function;
use handscope_sim::session::Session;
use handscope_sim::session::header::Header;
use handscope_sim::stimulus::Environment;
use libfuzzer_sys::fuzz_target;

const CIRCUIT: &str = include_str!("../../examples/circuits/extmem_add.mlir");

fn circuit() -> &'static (Function, Environment, PathBuf) {
    static C: OnceLock<(Function, Environment, PathBuf)> = OnceLock::new();
    C.get_or_init(|| {
        let (module, _) = handscope_compiler::mlir::parse_mlir(CIRCUIT, "extmem_add.mlir")
            .expect("the example parses");
        let mut s = Session::open(&module, None).expect("the example opens");
        s.bind(&Header::parse(CIRCUIT).sim_args())
            .expect("its stimulus binds");
        let dir = if std::path::Path::new("/dev/shm").is_dir() {
            PathBuf::from("/dev/shm")
        } else {
            std::env::temp_dir()
        };
        let scratch = dir.join(format!("handscope-fuzz-{}.fst", std::process::id()));
        // The reader's own panics are caught by the replay (and become errors); libFuzzer's
        // hook would abort on them before that, so panics are silent here and one that
        // escapes the replay still aborts the run as a crash.
        std::panic::set_hook(Box::new(|_| {}));
        (s.function().clone(), s.environment().clone(), scratch)
    })
}

fuzz_target!(|data: &[u8]| {
    let (f, env, scratch) = circuit();
    handscope_traces::fuzzing::replay_fst(data, f, env, scratch);
});
