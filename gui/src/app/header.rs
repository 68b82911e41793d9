//! The `// sim:` header of example files: command-line style stimulus arguments.

/// Stimulus arguments in `handscope sim` syntax.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SimArgs {
    /// `--in NAME=TOKENS` values.
    pub inputs: Vec<String>,
    /// `--mem NAME=VALUES` values.
    pub mems: Vec<String>,
    /// `--ready NAME=POLICY` values.
    pub ready: Vec<String>,
}

impl SimArgs {
    /// `self` with every entry of `over` replacing the entry of the same name.
    pub fn overridden_by(&self, over: &SimArgs) -> SimArgs {
        fn merge(base: &[String], over: &[String]) -> Vec<String> {
            let name = |s: &String| s.split_once('=').map(|(n, _)| n.trim().to_string());
            let mut out: Vec<String> = base
                .iter()
                .filter(|b| !over.iter().any(|o| name(o) == name(b)))
                .cloned()
                .collect();
            out.extend(over.iter().cloned());
            out
        }
        SimArgs {
            inputs: merge(&self.inputs, &over.inputs),
            mems: merge(&self.mems, &over.mems),
            ready: merge(&self.ready, &over.ready),
        }
    }

    /// True when no argument is given.
    pub fn is_empty(&self) -> bool {
        self.inputs.is_empty() && self.mems.is_empty() && self.ready.is_empty()
    }
}

/// Reads every `// sim:` line of the leading comment block of `text`.
pub fn sim_header(text: &str) -> SimArgs {
    let mut out = SimArgs::default();
    for line in text
        .lines()
        .take_while(|l| l.trim_start().starts_with("//"))
    {
        let body = line.trim_start().trim_start_matches('/').trim();
        let Some(rest) = body.strip_prefix("sim:") else {
            continue;
        };
        let words: Vec<&str> = rest.split_whitespace().collect();
        let mut i = 0;
        while i < words.len() {
            let w = words[i];
            let (flag, value) = match w.split_once('=') {
                Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
                _ => (w, None),
            };
            let value = match value {
                Some(v) => v,
                None => {
                    i += 1;
                    match words.get(i) {
                        Some(v) => v.to_string(),
                        None => break,
                    }
                }
            };
            match flag {
                "--in" => out.inputs.push(value),
                "--mem" => out.mems.push(value),
                "--ready" => out.ready.push(value),
                _ => {}
            }
            i += 1;
        }
    }
    out
}

/// The C test-input convention (`// RUN:` lines, as in `examples/kernels`): the first RUN
/// line of the leading comment block as stimulus for `f`'s parameters, in order. Integers
/// are scalar tokens; `[a b ...]` fills an array (zero-padded); `rand(seed,lo,hi)` fills
/// it with the test harness's pseudo-random values. Empty when there is no RUN line or it
/// does not fit the parameters.
pub fn run_header(text: &str, f: &handscope_sim::Function) -> SimArgs {
    let mut out = SimArgs::default();
    let Some(line) = text
        .lines()
        .take_while(|l| l.trim_start().starts_with("//") || l.trim().is_empty())
        .find_map(|l| {
            l.trim_start()
                .trim_start_matches('/')
                .trim()
                .strip_prefix("RUN:")
        })
    else {
        return out;
    };
    let words = split_run_args(line);
    let params: Vec<&handscope_sim::FuncArg> = f
        .args
        .iter()
        .filter(|a| {
            !matches!(
                a.ty,
                handscope_sim::ArgType::Channel(handscope_sim::Type::None)
            )
        })
        .collect();
    if words.len() != params.len() {
        return out;
    }
    for (p, w) in params.iter().zip(&words) {
        match &p.ty {
            handscope_sim::ArgType::Channel(_) => {
                if w.parse::<i64>().is_err() {
                    return SimArgs::default();
                }
                out.inputs.push(format!("{}={w}", p.name));
            }
            handscope_sim::ArgType::MemRef(m) => {
                let len = m.dims.iter().product::<u64>() as usize;
                let vals: Vec<i64> = if let Some(r) = w.strip_prefix("rand(") {
                    let nums: Vec<i64> = r
                        .trim_end_matches(')')
                        .split(',')
                        .filter_map(|x| x.trim().parse().ok())
                        .collect();
                    let [seed, lo, hi] = nums[..] else {
                        return SimArgs::default();
                    };
                    rand_fill(seed as u64, lo, hi, len)
                } else {
                    let v: Result<Vec<i64>, _> = w
                        .trim_matches(|c| c == '[' || c == ']')
                        .split_whitespace()
                        .map(str::parse)
                        .collect();
                    match v {
                        Ok(v) => v,
                        Err(_) => return SimArgs::default(),
                    }
                };
                if !vals.is_empty() {
                    let list: Vec<String> = vals.iter().map(i64::to_string).collect();
                    out.mems.push(format!("{}={}", p.name, list.join(",")));
                }
            }
        }
    }
    out
}

/// Splits a RUN line into arguments, keeping `[...]` and `(...)` groups together.
fn split_run_args(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut depth = 0i32;
    for ch in line.chars() {
        match ch {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            _ => {}
        }
        if ch.is_whitespace() && depth == 0 {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
        } else {
            cur.push(ch);
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The kernels' pseudo-random array contents (a 64-bit LCG; the same as the test harness).
fn rand_fill(seed: u64, lo: i64, hi: i64, n: usize) -> Vec<i64> {
    let step = |x: u64| {
        x.wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407)
    };
    let mut x = step(seed);
    let span = (hi - lo + 1).max(1) as u64;
    (0..n)
        .map(|_| {
            x = step(x);
            lo + ((x >> 33) % span) as i64
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_run_header_of_c_kernels() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../examples/kernels/carried_dep.c"
        ))
        .unwrap();
        let m = handscope_compiler::c::compile_to_handshake(
            &text,
            "carried_dep.c",
            None,
            &Default::default(),
        )
        .unwrap();
        let a = run_header(&text, &m.functions[0]);
        assert_eq!(a.inputs, ["k=3"]);
        assert_eq!(a.mems, ["a=5"]);
    }

    #[test]
    fn reads_sim_header() {
        let t = "// intro\n// sim: --in n=5 --in start=1 --mem=m=1,2\n// expect: x\nfunc";
        let a = sim_header(t);
        assert_eq!(a.inputs, vec!["n=5", "start=1"]);
        assert_eq!(a.mems, vec!["m=1,2"]);
        assert!(sim_header("func\n// sim: --in a=1").is_empty());
    }
}
