//! FST input through `wellen`: the hierarchy becomes the same `Header` the VCD reader
//! makes (one code per FST signal), and the value changes of the mapped signals are streamed
//! in time order into the same sampler, so mapping, rising-edge sampling and the stop rule
//! are those of VCD replay.

use std::io::Read;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

use handscope_sim::Function;
use handscope_sim::stimulus::Environment;
use handscope_sim::types::MAX_DATA_WIDTH;
use handscope_sim::wide;
use wellen::{Hierarchy, ScopeRef, SignalRef, SignalValueRef, States, VarRef};

use super::parse::{BodySink, Header, MAX_HEADER_PATH_BYTES, MAX_SCOPE_DEPTH, VarDecl};
use super::{Replay, ReplayOptions, VcdError, finish, prepare};

/// True when the file at `path` starts like an FST file (a header block, type byte 0);
/// a VCD starts with text.
pub fn is_fst(path: &Path) -> std::io::Result<bool> {
    let mut first = [0u8; 1];
    let (mut file, _) = handscope_sim::input::open_regular(path).map_err(std::io::Error::other)?;
    let n = file.read(&mut first)?;
    Ok(n == 1 && first[0] == 0)
}

/// The VCD-style header of a `wellen` hierarchy: every variable with its scope path, width
/// and its signal's index as code. A hierarchy nested deeper than a VCD header may be
/// ([`MAX_SCOPE_DEPTH`]), or whose paths take more memory ([`MAX_HEADER_PATH_BYTES`]), is an
/// error in words.
fn header_of(h: &Hierarchy) -> Result<Header, String> {
    let mut out = Header::default();
    let mut codes = 0u32;
    let mut path_bytes = 0u64;
    let mut charge = |bytes: usize| {
        path_bytes += bytes as u64;
        if path_bytes > MAX_HEADER_PATH_BYTES {
            return Err(format!(
                "the hierarchy's scope and variable paths take more than {} MiB together; the limit keeps a replay within memory",
                MAX_HEADER_PATH_BYTES >> 20
            ));
        }
        Ok(())
    };
    let mut push_vars = |out: &mut Header,
                         scope: &[String],
                         vars: &mut dyn Iterator<Item = VarRef>,
                         charge: &mut dyn FnMut(usize) -> Result<(), String>|
     -> Result<(), String> {
        let scope_bytes: usize = scope.iter().map(|s| s.len() + 1).sum();
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
            charge(scope_bytes + name.len() + 24 * (scope.len() + 1))?;
            let code = var.signal_ref().index() as u32;
            codes = codes.max(code + 1);
            out.vars.push(VarDecl {
                scope: scope.to_vec(),
                name,
                width: var.length(h).unwrap_or(1),
                code,
            });
        }
        Ok(())
    };
    push_vars(&mut out, &[], &mut h.vars(), &mut charge)?;
    // Depth first, in declaration order: each entry is a scope and the number of scopes
    // around it; `path` holds the names of the scopes around the one being visited.
    let mut stack: Vec<(ScopeRef, usize)> = h
        .scopes()
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .map(|s| (s, 0))
        .collect();
    let mut path: Vec<String> = Vec::new();
    while let Some((s, depth)) = stack.pop() {
        path.truncate(depth);
        path.push(h[s].name(h).to_string());
        if path.len() > MAX_SCOPE_DEPTH {
            let shown: String = path.join(".").chars().take(60).collect();
            return Err(format!(
                "scopes nested more than {MAX_SCOPE_DEPTH} deep (under `{shown}...`)"
            ));
        }
        let joined = path.join(".");
        charge(joined.len())?;
        out.scopes.push(joined);
        push_vars(&mut out, &path, &mut h[s].vars(h), &mut charge)?;
        let kids: Vec<ScopeRef> = h[s].scopes(h).collect();
        stack.extend(kids.into_iter().rev().map(|k| (k, depth + 1)));
    }
    out.codes = codes;
    out.code_widths = super::parse::code_widths(&out.vars, codes);
    Ok(out)
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

/// The word of a value of a signal `width` bits wide (as [`super::parse::code_widths`]
/// gives it): [`value_u64`] up to 64 bits, else the wide word of the value's low `width`
/// bits (`x`/`z` and other non-1 states read as 0, as at 64 bits).
fn value_word(v: SignalValueRef<'_>, width: u32) -> u64 {
    if !wide::is_wide(width) {
        return value_u64(v);
    }
    let SignalValueRef::BitVec(b) = v else {
        return value_u64(v);
    };
    let width = width.min(MAX_DATA_WIDTH);
    let mut limbs = vec![0u64; wide::limb_count(width)];
    match b.be_bytes() {
        Some(bytes) if b.states() == States::Two => {
            for (i, &x) in bytes.iter().rev().take(limbs.len() * 8).enumerate() {
                limbs[i / 8] |= u64::from(x) << (8 * (i % 8));
            }
        }
        _ => {
            for (i, bit) in b.iter_lsb_to_msb().take(width as usize).enumerate() {
                if matches!(u8::from(bit), 1 | 4) {
                    limbs[i / 64] |= 1 << (i % 64);
                }
            }
        }
    }
    wide::from_limbs(&limbs, width)
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
    let (mut file, _) = handscope_sim::input::open_regular(path)?;
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
    let header =
        header_of(wave.hierarchy()).map_err(|m| bad(format!("cannot read the FST file: {m}")))?;
    let mut sampler = prepare(&header, &name, f, env, opts, map_text)?;
    let refs: Vec<SignalRef> = (0..header.codes as usize)
        .filter(|&c| sampler.interesting.get(c).copied().unwrap_or(false))
        .filter_map(SignalRef::from_index)
        .collect();
    let widths = header.code_widths.clone();
    let mut last: Option<u64> = None;
    let filter = wellen::stream::Filter::include_signals(&refs);
    let streamed = catch_unwind(AssertUnwindSafe(|| {
        wave.stream_changes(filter, |time, signal, value| {
            if last != Some(time) {
                sampler.timestamp(time);
                last = Some(time);
            }
            let code = signal.index();
            let width = widths.get(code).copied().unwrap_or(64);
            sampler.change(code as u32, value_word(value, width));
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
    finish(sampler, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_values_become_wide_words() {
        // Two states, big-endian bytes.
        let want = wide::from_limbs(&[3, 1 << 63], 128);
        let mut bytes = (1u64 << 63).to_be_bytes().to_vec();
        bytes.extend_from_slice(&3u64.to_be_bytes());
        let v = SignalValueRef::bit_vec(States::Two, 128, &bytes);
        assert_eq!(value_word(v, 128), want);
        // Below 2^63 the word is the value at any width.
        let small = [0u8, 0, 0, 0, 0, 0, 0, 0, 0, 7];
        let v = SignalValueRef::bit_vec(States::Two, 80, &small);
        assert_eq!(value_word(v, 80), 7);
        let ones = [0xffu8; 9];
        let v = SignalValueRef::bit_vec(States::Two, 72, &ones);
        assert_eq!(value_word(v, 72), wide::from_limbs(&[u64::MAX, 0xff], 72));
        // Four states (two bits per bit, most significant first): x reads 0, as at 64 bits.
        let mut four = vec![0u8; 18];
        let mut set = |bit: usize, state: u8| {
            let byte = four.len() - 1 - bit / 4;
            four[byte] |= state << (2 * (bit % 4));
        };
        set(69, 1);
        set(64, 1);
        set(0, 2);
        set(1, 3);
        set(2, 1);
        let v = SignalValueRef::bit_vec(States::Four, 70, &four);
        assert_eq!(value_word(v, 70), wide::from_limbs(&[4, 0b10_0001], 70));
        // A narrow signal keeps the 64-bit path.
        let max = u64::MAX.to_be_bytes();
        let v = SignalValueRef::bit_vec(States::Two, 64, &max);
        assert_eq!(value_word(v, 64), u64::MAX);
    }
}
