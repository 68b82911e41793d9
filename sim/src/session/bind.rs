//! Binding stimulus text (`--in NAME=TOKENS`, `--mem NAME=VALUES`, `--ready NAME=POLICY`) to
//! a function's arguments, memories and results, with errors that name the flag, the name
//! and the names that would have been valid.

use std::num::ParseIntError;

use crate::graph::{ArgType, FuncArg, Function};
use crate::ops::Op;
use crate::stimulus::{ReadyPolicy, StimulusError, TokenSource};
use crate::types::Type;

use super::Session;

/// Stimulus in `handscope sim` syntax: the values of its `--in`, `--mem` and `--ready`
/// options (also what a `// sim:` header line holds).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StimulusArgs {
    /// `--in NAME=TOKENS` values.
    pub inputs: Vec<String>,
    /// `--mem NAME=VALUES` values.
    pub mems: Vec<String>,
    /// `--ready NAME=POLICY` values.
    pub ready: Vec<String>,
}

impl StimulusArgs {
    /// `self` with every entry of `over` replacing the entries of the same name.
    pub fn overridden_by(&self, over: &StimulusArgs) -> StimulusArgs {
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
        StimulusArgs {
            inputs: merge(&self.inputs, &over.inputs),
            mems: merge(&self.mems, &over.mems),
            ready: merge(&self.ready, &over.ready),
        }
    }

    /// Parses `--in`, `--mem` and `--ready` options written as text (each `--flag VALUE` or
    /// `--flag=VALUE`, separated by whitespace), as a `// sim:` line or a batch file holds
    /// them. Another word, or a flag without its value, is an error naming it.
    pub fn parse_flags(text: &str) -> Result<StimulusArgs, String> {
        let mut out = StimulusArgs::default();
        let mut words = text.split_whitespace();
        while let Some(w) = words.next() {
            let (flag, value) = match w.split_once('=') {
                Some((f, v)) if f.starts_with("--") => (f, v.to_string()),
                _ => {
                    let v = words
                        .next()
                        .ok_or_else(|| format!("`{w}` needs a value (`{w} NAME=VALUE`)"))?;
                    (w, v.to_string())
                }
            };
            match flag {
                "--in" => out.inputs.push(value),
                "--mem" => out.mems.push(value),
                "--ready" => out.ready.push(value),
                other => {
                    return Err(format!(
                        "`{other}` is not a stimulus option (expected --in, --mem or --ready)"
                    ));
                }
            }
        }
        Ok(out)
    }

    /// True when no value is given.
    pub fn is_empty(&self) -> bool {
        self.inputs.is_empty() && self.mems.is_empty() && self.ready.is_empty()
    }
}

/// A stimulus that does not fit the function. `flag` is the option the value came from
/// (`--in`, `--mem`, `--ready`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BindError {
    /// The value is not `NAME=VALUE`.
    #[error("{flag} `{text}` is not of the form NAME=VALUE")]
    NotAssignment {
        /// The option.
        flag: &'static str,
        /// The value given.
        text: String,
    },
    /// No argument of that name.
    #[error(
        "{flag} {name}: @{func} has no argument `{name}` (arguments: {})",
        list(valid)
    )]
    NoArgument {
        /// The option.
        flag: &'static str,
        /// The name given.
        name: String,
        /// The function.
        func: String,
        /// Its argument names.
        valid: Vec<String>,
    },
    /// Tokens for a memory argument.
    #[error("{flag} {name}: `{name}` is a memory; give its contents with --mem {name}=...")]
    MemoryArgument {
        /// The option.
        flag: &'static str,
        /// The argument.
        name: String,
    },
    /// A `none` argument takes a token count.
    #[error("{flag} {name}: `{name}` has type none; give a token count, not `{text}`")]
    NoneCount {
        /// The option.
        flag: &'static str,
        /// The argument.
        name: String,
        /// The value given.
        text: String,
        /// Why it is not a count.
        #[source]
        source: ParseIntError,
    },
    /// Contents for a channel argument.
    #[error("{flag} {name}: `{name}` is not a memory argument; give its tokens with --in")]
    NotMemory {
        /// The option.
        flag: &'static str,
        /// The argument.
        name: String,
    },
    /// No memory of that name.
    #[error(
        "{flag} {name}: @{func} has no memory argument or memory node `{name}` (memories: {})",
        list(valid)
    )]
    NoMemory {
        /// The option.
        flag: &'static str,
        /// The name given.
        name: String,
        /// The function.
        func: String,
        /// Its memref arguments and internal memory node IDs.
        valid: Vec<String>,
    },
    /// No result of that name.
    #[error(
        "{flag} {name}: @{func} has no result `{name}` (results: {})",
        list(valid)
    )]
    NoResult {
        /// The option.
        flag: &'static str,
        /// The name given.
        name: String,
        /// The function.
        func: String,
        /// Its result names.
        valid: Vec<String>,
    },
    /// More values than the memory has elements.
    #[error("{flag} {name}: {given} values for a memory of {size} elements")]
    TooManyValues {
        /// The option.
        flag: &'static str,
        /// The memory.
        name: String,
        /// Values given.
        given: u64,
        /// Elements of the memory.
        size: u64,
    },
    /// The tokens, contents or policy text does not parse.
    #[error("{flag} {name}")]
    Value {
        /// The option.
        flag: &'static str,
        /// The name.
        name: String,
        /// What is wrong with the value.
        #[source]
        source: StimulusError,
    },
}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

fn split_assignment<'a>(flag: &'static str, s: &'a str) -> Result<(&'a str, &'a str), BindError> {
    match s.split_once('=') {
        Some((n, v)) if !n.trim().is_empty() => Ok((n.trim(), v.trim())),
        _ => Err(BindError::NotAssignment {
            flag,
            text: crate::quote::excerpt(s),
        }),
    }
}

/// The type of channel argument `name`.
pub(super) fn channel_arg<'f>(
    f: &'f Function,
    flag: &'static str,
    name: &str,
) -> Result<&'f Type, BindError> {
    let arg = f
        .args
        .iter()
        .find(|a| a.name == name)
        .ok_or_else(|| BindError::NoArgument {
            flag,
            name: crate::quote::excerpt(name),
            func: f.name.clone(),
            valid: f.args.iter().map(|a| a.name.clone()).collect(),
        })?;
    match &arg.ty {
        ArgType::Channel(ty) => Ok(ty),
        ArgType::MemRef(_) => Err(BindError::MemoryArgument {
            flag,
            name: crate::quote::excerpt(name),
        }),
    }
}

/// The element type of memory `name`, whether it is an internal `memory` node, and its
/// number of elements.
pub(super) fn memory(f: &Function, name: &str) -> Result<(Type, bool, u64), BindError> {
    let flag = "--mem";
    match f.args.iter().find(|a| a.name == name) {
        Some(FuncArg {
            ty: ArgType::MemRef(m),
            ..
        }) => Ok((m.elem.clone(), false, m.len())),
        Some(_) => Err(BindError::NotMemory {
            flag,
            name: crate::quote::excerpt(name),
        }),
        None => match f.node_by_id(name).map(|n| &f.nodes[n].op) {
            Some(Op::Memory { memref, .. }) => Ok((memref.elem.clone(), true, memref.len())),
            _ => {
                let mut valid: Vec<String> = f
                    .args
                    .iter()
                    .filter(|a| matches!(a.ty, ArgType::MemRef(_)))
                    .map(|a| a.name.clone())
                    .collect();
                valid.extend(
                    f.nodes
                        .values()
                        .filter(|n| matches!(n.op, Op::Memory { .. }))
                        .map(|n| n.id.clone()),
                );
                Err(BindError::NoMemory {
                    flag,
                    name: crate::quote::excerpt(name),
                    func: f.name.clone(),
                    valid,
                })
            }
        },
    }
}

/// Checks that `name` is a result.
pub(super) fn result(f: &Function, name: &str) -> Result<(), BindError> {
    if f.results.iter().any(|r| r.name == name) {
        return Ok(());
    }
    Err(BindError::NoResult {
        flag: "--ready",
        name: crate::quote::excerpt(name),
        func: f.name.clone(),
        valid: f.results.iter().map(|r| r.name.clone()).collect(),
    })
}

/// [`Session::bind`].
pub(super) fn bind_text(s: &mut Session, args: &StimulusArgs) -> Result<(), BindError> {
    for text in &args.inputs {
        let flag = "--in";
        let (name, tokens) = split_assignment(flag, text)?;
        let ty = channel_arg(&s.func, flag, name)?;
        let src = if let Some(elem) = s.func.stream_element(name) {
            crate::stream::parse_streams(tokens, &elem).map_err(|source| BindError::Value {
                flag,
                name: crate::quote::excerpt(name),
                source,
            })?
        } else if ty.is_none() {
            let n: u64 = tokens.parse().map_err(|source| BindError::NoneCount {
                flag,
                name: crate::quote::excerpt(name),
                text: crate::quote::excerpt(tokens),
                source,
            })?;
            TokenSource::None(n)
        } else {
            TokenSource::parse(tokens, ty).map_err(|source| BindError::Value {
                flag,
                name: crate::quote::excerpt(name),
                source,
            })?
        };
        s.env.push_tokens(name, src);
    }
    for text in &args.mems {
        let flag = "--mem";
        let (name, values) = split_assignment(flag, text)?;
        let (elem, _, size) = memory(&s.func, name)?;
        let src = TokenSource::parse(values, &elem).map_err(|source| BindError::Value {
            flag,
            name: crate::quote::excerpt(name),
            source,
        })?;
        if src.len() > size {
            return Err(BindError::TooManyValues {
                flag,
                name: crate::quote::excerpt(name),
                given: src.len(),
                size,
            });
        }
        if src.len() < size {
            s.notes.push(format!(
                "--mem {name}: {} value{} for {size} elements; element{} {} start at 0",
                src.len(),
                if src.len() == 1 { "" } else { "s" },
                if size - src.len() == 1 { "" } else { "s" },
                if size - src.len() == 1 {
                    format!("{}", src.len())
                } else {
                    format!("{} to {}", src.len(), size - 1)
                }
            ));
        }
        let contents = (0..src.len()).map(|k| src.get(k)).collect();
        s.bind_memory(name, contents)?;
    }
    for text in &args.ready {
        let flag = "--ready";
        let (name, policy) = split_assignment(flag, text)?;
        result(&s.func, name)?;
        let p = ReadyPolicy::parse(policy).map_err(|source| BindError::Value {
            flag,
            name: crate::quote::excerpt(name),
            source,
        })?;
        s.env.set_ready(name, p);
    }
    Ok(())
}
