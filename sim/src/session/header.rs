//! The header of example and kernel files: `// KEY: value` lines in the leading comment
//! block, read the same way by the debugger and by every test harness.
//!
//! The leading comment block is every line from the top of the file that is a `//` comment or
//! blank; the header is its lines of the form `// KEY: value`. The keys Handscope knows:
//!
//! * `// sim: --in NAME=TOKENS --mem NAME=VALUES --ready NAME=POLICY ...`: stimulus in the
//!   syntax of `handscope sim` (handshake circuits), see [`Header::sim_args`];
//! * `// TOP: name`: the top function of a C kernel, see [`Header::top`];
//! * `// RUN: arg arg ...`: one invocation of a C kernel, one argument per C parameter in order
//!   (see [`RunArg`]); a kernel may have several, see [`Header::runs`];
//! * `// expect: ...`, `// expect-mem: ...`, `// check: ...`, `// oracle: ...`: expectations
//!   that tests read with [`Header::values`].
//!
//! The header belongs with the run API rather than with the C front end: its job is to name a
//! stimulus (`sim:` lines are handshake MLIR, which the C front end never sees, and `RUN:`
//! lines are bound to the arguments of the compiled handshake function), and every crate
//! that runs examples already depends on `sim`.

use crate::float::{format_float, parse_float};
use crate::graph::{ArgType, Function};
use crate::types::{FloatKind, Type};

use super::StimulusArgs;

/// Errors in a header line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeaderError {
    /// A `RUN:` argument is not a number, a `[...]` list, `rand(seed,lo,hi)` or
    /// `frand(seed,lo,hi)`.
    #[error(
        "RUN argument `{0}` is not a number, a list `[v v ...]`, `rand(seed,lo,hi)` or `frand(seed,lo,hi)`"
    )]
    Arg(String),
    /// A float (`1.5`, a list with one, `frand`) for an integer parameter.
    #[error("RUN argument `{0}` holds floats, but its parameter is an integer (array)")]
    NotInteger(String),
    /// A float argument does not parse in the parameter's format.
    #[error("RUN argument `{arg}`: {why}")]
    BadFloat {
        /// The argument.
        arg: String,
        /// What is wrong.
        why: String,
    },
    /// A `RUN:` line has a different number of arguments than the function has parameters.
    #[error("RUN line `{line}` has {given} arguments, @{func} takes {expected} ({params})")]
    Arity {
        /// The line.
        line: String,
        /// The function.
        func: String,
        /// Arguments on the line.
        given: usize,
        /// Parameters of the function.
        expected: usize,
        /// The parameter names, comma-separated.
        params: String,
    },
    /// A list argument has more elements than its array.
    #[error("RUN argument `{arg}` has {given} elements, the array holds {len}")]
    TooLong {
        /// The argument.
        arg: String,
        /// Elements given.
        given: usize,
        /// Array length.
        len: usize,
    },
    /// A scalar parameter got an array or an array parameter a scalar.
    #[error("RUN argument `{arg}`: parameter `{param}` is {expected}")]
    Kind {
        /// The argument.
        arg: String,
        /// The parameter.
        param: String,
        /// `a scalar` or `an array`.
        expected: &'static str,
    },
}

/// The header lines of a file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Header {
    /// `(key, value)` in file order, both trimmed.
    entries: Vec<(String, String)>,
}

/// The stimulus a file's header gives a run ([`Header::stimulus`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HeaderStimulus {
    /// `--in`, `--mem` and `--ready` entries, as the header gives them.
    pub args: StimulusArgs,
    /// The lines they came from, as a note can name them (`its first `// RUN: 3 4``);
    /// `None` when the header gives no stimulus.
    pub from: Option<String>,
}

impl Header {
    /// Reads the `// KEY: value` lines of the leading comment block of `text`.
    pub fn parse(text: &str) -> Header {
        let mut entries = Vec::new();
        for line in text.lines() {
            let t = line.trim();
            if t.is_empty() {
                continue;
            }
            let Some(body) = t.strip_prefix("//") else {
                break;
            };
            let body = body.trim_start_matches('/').trim();
            let Some((key, value)) = body.split_once(':') else {
                continue;
            };
            let key = key.trim();
            let is_key = !key.is_empty()
                && key
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
            if is_key {
                entries.push((key.to_string(), value.trim().to_string()));
            }
        }
        Header { entries }
    }

    /// The values of every `// key:` line, in file order.
    pub fn values<'a>(&'a self, key: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.entries
            .iter()
            .filter(move |(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The `// TOP:` function of a C kernel.
    pub fn top(&self) -> Option<&str> {
        self.values("TOP").next()
    }

    /// The `// RUN:` lines of a C kernel, in order.
    pub fn runs(&self) -> Vec<&str> {
        self.values("RUN").collect()
    }

    /// The stimulus of every `// sim:` line (`--in`, `--mem`, `--ready`, each as `--flag
    /// VALUE` or `--flag=VALUE`; other words are ignored).
    pub fn sim_args(&self) -> StimulusArgs {
        let mut out = StimulusArgs::default();
        for rest in self.values("sim") {
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

    /// The function a run of the file selects: `given` (`--func`), else a C kernel's
    /// `// TOP:`, else `None` (the run API's default: the only or last function with a body).
    pub fn function<'a>(&'a self, given: Option<&'a str>, is_c: bool) -> Option<&'a str> {
        given.or(if is_c { self.top() } else { None })
    }

    /// The stimulus the header gives a run of function `f`, the one rule of every command
    /// and view that runs a file: its `// sim:` lines; for a C kernel (`is_c`) without them,
    /// its first `// RUN:` line bound to `f`'s parameters ([`run_stimulus`]), unless `f` is
    /// not the kernel's `// TOP:` function (a `RUN:` line lists the top function's
    /// arguments). Command-line entries then replace entries of the same name
    /// ([`StimulusArgs::overridden_by`]).
    pub fn stimulus(&self, f: &Function, is_c: bool) -> Result<HeaderStimulus, HeaderError> {
        let sim = self.sim_args();
        if !sim.is_empty() {
            return Ok(HeaderStimulus {
                args: sim,
                from: Some("its `// sim:` lines".to_string()),
            });
        }
        let is_top = self.top().is_none_or(|t| t == f.name);
        match self.runs().first() {
            Some(line) if is_c && is_top => Ok(HeaderStimulus {
                args: run_stimulus(f, line)?,
                from: Some(format!("its first `// RUN: {line}`")),
            }),
            _ => Ok(HeaderStimulus::default()),
        }
    }
}

/// One argument of a `// RUN:` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunArg {
    /// An integer: the value of a scalar parameter.
    Scalar(i64),
    /// `[v v ...]`: the first elements of an array parameter (the rest are 0).
    List(Vec<i64>),
    /// `rand(seed,lo,hi)`: an array filled with pseudo-random values in `lo..=hi`: a 64-bit
    /// LCG (`x = x * 6364136223846793005 + 1442695040888963407`) advanced once from `seed`,
    /// then once per element, each element `lo + (x >> 33) % (hi - lo + 1)`.
    Rand {
        /// Generator seed.
        seed: u64,
        /// Smallest value.
        lo: i64,
        /// Largest value.
        hi: i64,
    },
    /// A number with a fraction, an exponent or a float name (`1.5`, `-2e-3`, `inf`, `nan`,
    /// `nan(0x7fc00001)` with its bit pattern):
    /// the value of a `float`/`double` parameter, read by [`crate::float::parse_float`]
    /// straight into the parameter's format (one rounding).
    Real(String),
    /// `[v v ...]` with at least one [`RunArg::Real`] element: the first elements of a
    /// `float`/`double` array (the rest are `+0`).
    RealList(Vec<String>),
    /// `frand(seed,lo,hi)`: a `float`/`double` array of pseudo-random values in `[lo, hi)`:
    /// the LCG of [`RunArg::Rand`], each element `lo + (hi - lo) * ((x >> 40) / 2^24)`
    /// computed in `f64` and rounded to the element format.
    FRand {
        /// Generator seed.
        seed: u64,
        /// Lower bound.
        lo: i64,
        /// Upper bound.
        hi: i64,
    },
}

/// Is `w` a float word of a `RUN:` line (rather than an integer)?
fn is_real(w: &str) -> bool {
    w.parse::<i64>().is_err() && w.parse::<f64>().is_ok()
        || matches!(w.trim_start_matches(['-', '+']), "inf" | "nan" | "infinity")
        || w.trim_start_matches(['-', '+']).starts_with("nan(")
}

impl RunArg {
    /// Parses one argument word.
    pub fn parse(word: &str) -> Result<RunArg, HeaderError> {
        let bad = || HeaderError::Arg(word.to_string());
        let w = word.trim();
        if let Some(r) = w.strip_prefix("frand(") {
            let nums: Vec<i64> = r
                .strip_suffix(')')
                .ok_or_else(bad)?
                .split(',')
                .map(|x| x.trim().parse().map_err(|_| bad()))
                .collect::<Result<_, _>>()?;
            let [seed, lo, hi] = nums[..] else {
                return Err(bad());
            };
            return Ok(RunArg::FRand {
                seed: seed as u64,
                lo,
                hi,
            });
        }
        if let Some(r) = w.strip_prefix("rand(") {
            let nums: Vec<i64> = r
                .strip_suffix(')')
                .ok_or_else(bad)?
                .split(',')
                .map(|x| x.trim().parse().map_err(|_| bad()))
                .collect::<Result<_, _>>()?;
            let [seed, lo, hi] = nums[..] else {
                return Err(bad());
            };
            return Ok(RunArg::Rand {
                seed: seed as u64,
                lo,
                hi,
            });
        }
        if let Some(body) = w.strip_prefix('[') {
            let body = body.strip_suffix(']').ok_or_else(bad)?;
            if body.split_whitespace().any(is_real) {
                return body
                    .split_whitespace()
                    .map(|x| {
                        if is_real(x) || x.parse::<i64>().is_ok() {
                            Ok(x.to_string())
                        } else {
                            Err(bad())
                        }
                    })
                    .collect::<Result<_, _>>()
                    .map(RunArg::RealList);
            }
            return body
                .split_whitespace()
                .map(|x| x.parse().map_err(|_| bad()))
                .collect::<Result<_, _>>()
                .map(RunArg::List);
        }
        if is_real(w) {
            return Ok(RunArg::Real(w.to_string()));
        }
        w.parse().map(RunArg::Scalar).map_err(|_| bad())
    }

    /// The bit pattern of a `float`/`double` scalar of format `kind`: an integer converted
    /// (rounded to nearest even) or a float read in that format. `None` for an array.
    pub fn float_scalar(&self, kind: FloatKind) -> Option<Result<u64, HeaderError>> {
        match self {
            RunArg::Scalar(v) => Some(Ok(int_to_float(*v, kind))),
            RunArg::Real(t) => Some(self.parse_in(t, kind)),
            RunArg::List(_) | RunArg::Rand { .. } | RunArg::RealList(_) | RunArg::FRand { .. } => {
                None
            }
        }
    }

    /// The contents (bit patterns) of a `float`/`double` array of `len` elements of format
    /// `kind`: a list zero-padded to `len` (integers converted, floats read in `kind`), or
    /// pseudo-random values (`rand` gives integers converted, `frand` fractions). `None` for a
    /// scalar.
    pub fn float_array(
        &self,
        len: usize,
        kind: FloatKind,
    ) -> Option<Result<Vec<u64>, HeaderError>> {
        let too_long = |given: usize| HeaderError::TooLong {
            arg: format!("{self}"),
            given,
            len,
        };
        let mut v: Vec<u64> = match self {
            RunArg::Scalar(_) | RunArg::Real(_) => return None,
            RunArg::List(v) if v.len() > len => return Some(Err(too_long(v.len()))),
            RunArg::RealList(v) if v.len() > len => return Some(Err(too_long(v.len()))),
            RunArg::List(v) => v.iter().map(|x| int_to_float(*x, kind)).collect(),
            RunArg::RealList(v) => match v.iter().map(|t| self.parse_in(t, kind)).collect() {
                Ok(v) => v,
                Err(e) => return Some(Err(e)),
            },
            RunArg::Rand { seed, lo, hi } => rand_fill(*seed, *lo, *hi, len)
                .into_iter()
                .map(|x| int_to_float(x, kind))
                .collect(),
            RunArg::FRand { seed, lo, hi } => frand_fill(*seed, *lo, *hi, len)
                .into_iter()
                .map(|x| f64_to(x, kind))
                .collect(),
        };
        v.resize(len, 0);
        Some(Ok(v))
    }

    fn parse_in(&self, text: &str, kind: FloatKind) -> Result<u64, HeaderError> {
        parse_float(text, kind).map_err(|e| HeaderError::BadFloat {
            arg: format!("{self}"),
            why: e.to_string(),
        })
    }

    /// The contents of an array of `len` elements: a list zero-padded to `len`, or `len`
    /// pseudo-random values. `None` for a scalar.
    pub fn array(&self, len: usize) -> Option<Result<Vec<i64>, HeaderError>> {
        match self {
            RunArg::Scalar(_) | RunArg::Real(_) => None,
            RunArg::RealList(_) | RunArg::FRand { .. } => {
                Some(Err(HeaderError::NotInteger(format!("{self}"))))
            }
            RunArg::List(v) if v.len() > len => Some(Err(HeaderError::TooLong {
                arg: format!("{self}"),
                given: v.len(),
                len,
            })),
            RunArg::List(v) => {
                let mut v = v.clone();
                v.resize(len, 0);
                Some(Ok(v))
            }
            RunArg::Rand { seed, lo, hi } => Some(Ok(rand_fill(*seed, *lo, *hi, len))),
        }
    }
}

impl std::fmt::Display for RunArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunArg::Scalar(v) => write!(f, "{v}"),
            RunArg::List(v) => {
                let items: Vec<String> = v.iter().map(i64::to_string).collect();
                write!(f, "[{}]", items.join(" "))
            }
            RunArg::Rand { seed, lo, hi } => write!(f, "rand({seed},{lo},{hi})"),
            RunArg::Real(t) => f.write_str(t),
            RunArg::RealList(v) => write!(f, "[{}]", v.join(" ")),
            RunArg::FRand { seed, lo, hi } => write!(f, "frand({seed},{lo},{hi})"),
        }
    }
}

/// Splits a `RUN:` line into its arguments (`[...]` and `(...)` groups stay together) and
/// parses each.
pub fn parse_run_line(line: &str) -> Result<Vec<RunArg>, HeaderError> {
    let mut words = Vec::new();
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
                words.push(std::mem::take(&mut cur));
            }
        } else {
            cur.push(ch);
        }
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words.iter().map(|w| RunArg::parse(w)).collect()
}

/// The stimulus of one `RUN:` line for handshake function `f` (a compiled C kernel): its
/// arguments that are not `none` take the line's arguments in order, a scalar as one token
/// (`--in`), an array as the contents of the memref argument (`--mem`, the given elements;
/// an empty list gives none). The control argument (`start`) keeps its default single token.
pub fn run_stimulus(f: &Function, line: &str) -> Result<StimulusArgs, HeaderError> {
    let args = parse_run_line(line)?;
    let params: Vec<_> = f
        .args
        .iter()
        .filter(|a| !matches!(a.ty, ArgType::Channel(Type::None)))
        .collect();
    if args.len() != params.len() {
        let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
        return Err(HeaderError::Arity {
            line: line.trim().to_string(),
            func: f.name.clone(),
            given: args.len(),
            expected: params.len(),
            params: names.join(", "),
        });
    }
    let mut out = StimulusArgs::default();
    for (p, a) in params.iter().zip(&args) {
        let kind = |expected| HeaderError::Kind {
            arg: a.to_string(),
            param: p.name.clone(),
            expected,
        };
        match (&p.ty, a) {
            (ArgType::Channel(Type::Float(k)), a) => {
                let bits = a.float_scalar(*k).ok_or_else(|| kind("a scalar"))??;
                out.inputs
                    .push(format!("{}={}", p.name, format_float(bits, *k)));
            }
            (ArgType::MemRef(m), a) if matches!(m.elem, Type::Float(_)) => {
                let Type::Float(k) = m.elem else {
                    return Err(kind("an array"));
                };
                let given = match a {
                    RunArg::List(v) => Some(v.len()),
                    RunArg::RealList(v) => Some(v.len()),
                    _ => None,
                };
                let vals = a
                    .float_array(m.len() as usize, k)
                    .ok_or_else(|| kind("an array"))??;
                let vals = &vals[..given.unwrap_or(vals.len())];
                if !vals.is_empty() {
                    let list: Vec<String> = vals.iter().map(|b| format_float(*b, k)).collect();
                    out.mems.push(format!("{}={}", p.name, list.join(",")));
                }
            }
            (ArgType::Channel(_), RunArg::Scalar(v)) => {
                out.inputs.push(format!("{}={v}", p.name));
            }
            (ArgType::Channel(_), RunArg::Real(_)) => {
                return Err(HeaderError::NotInteger(a.to_string()));
            }
            (ArgType::Channel(_), _) => return Err(kind("a scalar")),
            (ArgType::MemRef(_), RunArg::Scalar(_) | RunArg::Real(_)) => {
                return Err(kind("an array"));
            }
            (ArgType::MemRef(_), RunArg::RealList(_) | RunArg::FRand { .. }) => {
                return Err(HeaderError::NotInteger(a.to_string()));
            }
            (ArgType::MemRef(m), RunArg::List(v)) => {
                if v.len() as u64 > m.len() {
                    return Err(HeaderError::TooLong {
                        arg: a.to_string(),
                        given: v.len(),
                        len: m.len() as usize,
                    });
                }
                if !v.is_empty() {
                    let list: Vec<String> = v.iter().map(i64::to_string).collect();
                    out.mems.push(format!("{}={}", p.name, list.join(",")));
                }
            }
            (ArgType::MemRef(m), RunArg::Rand { .. }) => {
                let vals = a.array(m.len() as usize).expect("an array argument")?;
                if !vals.is_empty() {
                    let list: Vec<String> = vals.iter().map(i64::to_string).collect();
                    out.mems.push(format!("{}={}", p.name, list.join(",")));
                }
            }
        }
    }
    Ok(out)
}

/// `v` converted to format `kind`, rounded to nearest even.
fn int_to_float(v: i64, kind: FloatKind) -> u64 {
    match kind {
        FloatKind::F32 => u64::from((v as f32).to_bits()),
        FloatKind::F64 => (v as f64).to_bits(),
    }
}

/// `x` rounded to format `kind`.
fn f64_to(x: f64, kind: FloatKind) -> u64 {
    match kind {
        FloatKind::F32 => u64::from((x as f32).to_bits()),
        FloatKind::F64 => x.to_bits(),
    }
}

/// The kernels' pseudo-random float contents for `frand(seed,lo,hi)` (see [`RunArg::FRand`]).
fn frand_fill(seed: u64, lo: i64, hi: i64, n: usize) -> Vec<f64> {
    let step = |x: u64| {
        x.wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407)
    };
    let mut x = step(seed);
    let (lo, width) = (lo as f64, hi as f64 - lo as f64);
    (0..n)
        .map(|_| {
            x = step(x);
            lo + width * ((x >> 40) as f64 / 16_777_216.0)
        })
        .collect()
}

/// The kernels' pseudo-random array contents for `rand(seed,lo,hi)` (see [`RunArg::Rand`]).
fn rand_fill(seed: u64, lo: i64, hi: i64, n: usize) -> Vec<i64> {
    let step = |x: u64| {
        x.wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407)
    };
    let mut x = step(seed);
    let span = (hi.wrapping_sub(lo).wrapping_add(1) as u64).max(1);
    (0..n)
        .map(|_| {
            x = step(x);
            lo.wrapping_add(((x >> 33) % span) as i64)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::MemRefType;

    #[test]
    fn reads_the_leading_comment_block_only() {
        let t = "// intro: words\n// sim: --in n=5 --in start=1 --mem=m=1,2\n\n// expect: x\n\
                 func\n// sim: --in a=1\n";
        let h = Header::parse(t);
        let a = h.sim_args();
        assert_eq!(a.inputs, vec!["n=5", "start=1"]);
        assert_eq!(a.mems, vec!["m=1,2"]);
        assert_eq!(h.values("expect").collect::<Vec<_>>(), ["x"]);
        assert_eq!(h.values("intro").collect::<Vec<_>>(), ["words"]);
        assert!(
            Header::parse("func\n// sim: --in a=1")
                .sim_args()
                .is_empty()
        );
        // A comment sentence with a colon is no header line.
        assert!(
            Header::parse("// see this: x\n")
                .values("see this")
                .next()
                .is_none()
        );
    }

    #[test]
    fn kernel_lines() {
        let h = Header::parse(
            "// A kernel.\n// TOP: fir\n// RUN: [] [1 2]\n// RUN: 3 rand(11,-10,10)\nint fir();",
        );
        assert_eq!(h.top(), Some("fir"));
        assert_eq!(h.runs(), ["[] [1 2]", "3 rand(11,-10,10)"]);
        assert_eq!(
            parse_run_line(h.runs()[1]).unwrap(),
            [
                RunArg::Scalar(3),
                RunArg::Rand {
                    seed: 11,
                    lo: -10,
                    hi: 10
                }
            ]
        );
        assert_eq!(
            parse_run_line("[1 2] 4").unwrap()[0]
                .array(4)
                .unwrap()
                .unwrap(),
            [1, 2, 0, 0]
        );
        assert!(matches!(
            RunArg::List(vec![1, 2, 3]).array(2),
            Some(Err(HeaderError::TooLong { .. }))
        ));
        assert!(RunArg::parse("x").is_err());
        assert!(RunArg::parse("rand(1,2)").is_err());
        assert!(RunArg::parse("[1 x]").is_err());
        // The generator the kernels' expected outputs were computed with.
        let v = rand_fill(11, -1000, 1000, 3);
        assert_eq!(v, rand_fill(11, -1000, 1000, 4)[..3]);
        assert!(v.iter().all(|x| (-1000..=1000).contains(x)));
    }

    #[test]
    fn float_run_arguments() {
        use crate::types::FloatKind::{F32, F64};
        let args = parse_run_line("1.5 [1 -0.5 nan] frand(3,-2,2) 7 inf").unwrap();
        assert_eq!(args[0], RunArg::Real("1.5".into()));
        assert_eq!(
            args[1],
            RunArg::RealList(vec!["1".into(), "-0.5".into(), "nan".into()])
        );
        assert_eq!(args[4], RunArg::Real("inf".into()));
        assert_eq!(
            args[0].float_scalar(F32).unwrap().unwrap(),
            u64::from(1.5f32.to_bits())
        );
        assert_eq!(args[3].float_scalar(F64).unwrap().unwrap(), 7f64.to_bits());
        // One rounding, straight into the format: 0.1 in f32 is not (0.1 as f64) as f32's
        // double rounding in general, and is what C's 0.1f is.
        assert_eq!(
            RunArg::Real("0.1".into())
                .float_scalar(F32)
                .unwrap()
                .unwrap(),
            u64::from(0.1f32.to_bits())
        );
        let v = args[1].float_array(4, F32).unwrap().unwrap();
        assert_eq!(
            v,
            [
                u64::from(1f32.to_bits()),
                u64::from((-0.5f32).to_bits()),
                0x7fc0_0000,
                0
            ]
        );
        let r = args[2].float_array(5, F64).unwrap().unwrap();
        assert_eq!(r.len(), 5);
        assert!(r.iter().all(|b| (-2.0..2.0).contains(&f64::from_bits(*b))));
        assert_eq!(
            r,
            args[2].float_array(5, F64).unwrap().unwrap(),
            "deterministic"
        );
        // Floats never reach an integer parameter.
        assert!(matches!(
            args[1].array(4),
            Some(Err(HeaderError::NotInteger(_)))
        ));
        let mut f = Function::new("k");
        f.add_arg("x", ArgType::Channel(Type::Float(F32)));
        f.add_arg(
            "a",
            ArgType::MemRef(MemRefType {
                elem: Type::Float(F64),
                dims: vec![4],
            }),
        );
        f.add_arg("n", ArgType::Channel(Type::Int(32)));
        f.add_arg("start", ArgType::Channel(Type::None));
        let s = run_stimulus(&f, "0.1 [2 0.25] 3").unwrap();
        assert_eq!(s.inputs, ["x=0.1", "n=3"]);
        assert_eq!(s.mems, ["a=2,0.25"]);
        assert!(matches!(
            run_stimulus(&f, "0.1 [2] 1.5"),
            Err(HeaderError::NotInteger(_))
        ));
        assert!(run_stimulus(&f, "[1] [2] 3").is_err());
    }

    #[test]
    fn run_lines_bind_to_the_parameters_in_order() {
        let mut f = Function::new("k");
        f.add_arg("n", ArgType::Channel(Type::Int(32)));
        f.add_arg(
            "a",
            ArgType::MemRef(MemRefType {
                elem: Type::Int(32),
                dims: vec![4],
            }),
        );
        f.add_arg("start", ArgType::Channel(Type::None));
        let s = run_stimulus(&f, "3 [5 6]").unwrap();
        assert_eq!(s.inputs, ["n=3"]);
        assert_eq!(s.mems, ["a=5,6"]);
        assert!(run_stimulus(&f, "3 []").unwrap().mems.is_empty());
        let e = run_stimulus(&f, "3").unwrap_err().to_string();
        assert_eq!(
            e, "RUN line `3` has 1 arguments, @k takes 2 (n, a)",
            "names the parameters"
        );
        assert!(run_stimulus(&f, "[1] [2]").is_err());
        assert!(run_stimulus(&f, "1 [1 2 3 4 5]").is_err());
        assert_eq!(run_stimulus(&f, "1 rand(1,0,3)").unwrap().mems.len(), 1);
    }
}
