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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_sim_header() {
        let t = "// intro\n// sim: --in n=5 --in start=1 --mem=m=1,2\n// expect: x\nfunc";
        let a = sim_header(t);
        assert_eq!(a.inputs, vec!["n=5", "start=1"]);
        assert_eq!(a.mems, vec!["m=1,2"]);
        assert!(sim_header("func\n// sim: --in a=1").is_empty());
    }
}
