//! FST input through `wellen`: the hierarchy becomes the same `Header` the VCD reader
//! makes (one code per FST signal), and the value changes of the mapped signals are streamed
//! in time order into the same sampler, so mapping, rising-edge sampling and the stop rule
//! are those of VCD replay.

use std::io::Read;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

use handscope_sim::Function;
use handscope_sim::stimulus::Environment;
use wellen::{Hierarchy, ScopeRef, SignalRef, SignalValueRef, States, VarRef};

use super::parse::{BodySink, Header, VarDecl};
use super::{Replay, ReplayOptions, VcdError, finish, prepare};

/// True when the file at `path` starts like an FST file (a header block, type byte 0);
/// a VCD starts with text.
pub fn is_fst(path: &Path) -> std::io::Result<bool> {
    let mut first = [0u8; 1];
    let n = std::fs::File::open(path)?.read(&mut first)?;
    Ok(n == 1 && first[0] == 0)
}

/// The VCD-style header of a `wellen` hierarchy: every variable with its scope path, width
/// and its signal's index as code.
fn header_of(h: &Hierarchy) -> Header {
    let mut out = Header::default();
    let mut codes = 0u32;
    let mut push_vars =
        |out: &mut Header, scope: &[String], vars: &mut dyn Iterator<Item = VarRef>| {
            for v in vars {
                let var = &h[v];
                let mut name = var.name(h).to_string();
                if let Some(i) = name.find('[')
                    && name.ends_with(']')
                    && i > 0
                {
                    name.truncate(i);
                }
                let name = name.trim_end().to_string();
                let code = var.signal_ref().index() as u32;
                codes = codes.max(code + 1);
                out.vars.push(VarDecl {
                    scope: scope.to_vec(),
                    name,
                    width: var.length(h).unwrap_or(1),
                    code,
                });
            }
        };
    push_vars(&mut out, &[], &mut h.vars());
    let mut stack: Vec<(ScopeRef, Vec<String>)> = h
        .scopes()
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .map(|s| (s, vec![h[s].name(h).to_string()]))
        .collect();
    while let Some((s, path)) = stack.pop() {
        out.scopes.push(path.join("."));
        push_vars(&mut out, &path, &mut h[s].vars(h));
        let kids: Vec<ScopeRef> = h[s].scopes(h).collect();
        for k in kids.into_iter().rev() {
            let mut p = path.clone();
            p.push(h[k].name(h).to_string());
            stack.push((k, p));
        }
    }
    out.codes = codes;
    out
}

/// Low 64 bits of a value (`x`/`z` and other non-1 states read as 0).
fn value_u64(v: SignalValueRef<'_>) -> u64 {
    match v {
        SignalValueRef::BitVec(b) => match b.be_bytes() {
            Some(bytes) if b.states() == States::Two => bytes
                .iter()
                .rev()
                .take(8)
                .rev()
                .fold(0u64, |acc, &x| (acc << 8) | u64::from(x)),
            _ => b
                .iter_lsb_to_msb()
                .take(64)
                .enumerate()
                .fold(0u64, |acc, (i, bit)| {
                    let one = matches!(u8::from(bit), 1 | 4);
                    acc | (u64::from(one) << i)
                }),
        },
        SignalValueRef::Real(r) => r as u64,
        SignalValueRef::Event | SignalValueRef::String(_) => 0,
    }
}

/// Replays the FST file at `path` (see [`super::replay_file`]).
pub(super) fn replay_fst(
    path: &Path,
    f: &Function,
    env: Option<&Environment>,
    opts: &ReplayOptions,
    map_text: Option<&str>,
) -> Result<Replay, VcdError> {
    let name = path.display().to_string();
    let bad = |message: String| VcdError::Fst {
        path: name.clone(),
        message,
    };
    let load = wellen::LoadOptions {
        multi_thread: false,
        remove_scopes_with_empty_name: false,
    };
    // The reader trusts the file's lengths and counts (it can loop or abort on damaged
    // ones): walk the block chain first, and show it only the complete blocks.
    let mut file = std::fs::File::open(path).map_err(|e| bad(format!("cannot read: {e}")))?;
    let checked = super::fst_guard::check(&mut file)
        .map_err(|m| bad(format!("cannot read the FST file: {m}")))?;
    let mut warnings = Vec::new();
    if checked.complete < checked.len {
        warnings.push(format!(
            "{name}: the last {} bytes are an incomplete block (the file is truncated or still being written); read up to byte {}",
            checked.len - checked.complete,
            checked.complete
        ));
    }
    let input = super::fst_guard::Prefix::new(file, checked.complete)
        .map_err(|e| bad(format!("cannot read: {e}")))?;
    // A damaged file must give an error, never a panic, whatever the FST reader does.
    let mut wave = catch_unwind(AssertUnwindSafe(|| {
        wellen::stream::read(std::io::BufReader::new(input), &load)
    }))
    .map_err(|_| bad("cannot read the FST header: the file is damaged".into()))?
    .map_err(|e| bad(format!("cannot read the FST file: {e}")))?;
    let header = header_of(wave.hierarchy());
    let mut sampler = prepare(&header, &name, f, env, opts, map_text)?;
    let refs: Vec<SignalRef> = (0..header.codes as usize)
        .filter(|&c| sampler.interesting.get(c).copied().unwrap_or(false))
        .filter_map(SignalRef::from_index)
        .collect();
    let mut last: Option<u64> = None;
    let filter = wellen::stream::Filter::include_signals(&refs);
    let streamed = catch_unwind(AssertUnwindSafe(|| {
        wave.stream_changes(filter, |time, signal, value| {
            if last != Some(time) {
                sampler.timestamp(time);
                last = Some(time);
            }
            sampler.change(signal.index() as u32, value_u64(value));
            Ok::<(), std::convert::Infallible>(())
        })
    }));
    let problem = match streamed {
        Ok(Ok(())) => None,
        Ok(Err(e)) => Some(format!("{e:?}")),
        Err(_) => Some("the file is damaged".to_string()),
    };
    if let Some(p) = problem {
        // Keep what was read, like a truncated VCD.
        warnings.push(format!(
            "{name}: reading the FST body failed ({p}); it looks truncated or damaged, replayed up to the last timestamp read"
        ));
    }
    Ok(finish(sampler, warnings))
}
