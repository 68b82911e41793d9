//! A structural check of an FST file before `wellen` reads it.
//!
//! The FST reader under `wellen` (fst-reader 0.17) trusts the lengths and counts a file
//! states: a block length below 8 or above `i64::MAX` makes its format check loop forever
//! (it seeks backwards), and a count such as a geometry block's handle count sizes an
//! allocation before any data is read (a damaged count asks for petabytes and aborts the
//! process, which no `catch_unwind` can stop). Both were found by the `replay_fst` fuzz
//! target. We wrote our own walk over the block chain because no crate validates FST
//! structure: it reads only the few fixed fields that size those allocations and refuses a
//! file whose values no writer could have produced, and it finds the prefix of complete
//! blocks so that a truncated file (a simulator still writing it, or killed) is read up to its
//! last complete block.
//!
//! Block layout (GTKWave's `fstapi` block format): a type byte, then a big-endian `u64`
//! length that counts itself and the block's body. Every count of items bounded here has at
//! least one byte per item in the block's uncompressed data, and zlib expands at most about
//! 1032 times, LZ4 at most 255 times; a block is refused when its stated sizes exceed those
//! ratios or [`MAX_UNCOMPRESSED`].

use std::io::{Read, Seek, SeekFrom};

/// Largest uncompressed size of one block's data accepted (4 GiB).
pub const MAX_UNCOMPRESSED: u64 = 1 << 32;
const ZLIB_RATIO: u64 = 1032;
const LZ4_RATIO: u64 = 255;

const HEADER: u8 = 0;
const VC_DATA: u8 = 1;
const BLACKOUT: u8 = 2;
const GEOMETRY: u8 = 3;
const HIERARCHY: u8 = 4;
const VC_DATA_ALIAS: u8 = 5;
const HIERARCHY_LZ4: u8 = 6;
const HIERARCHY_LZ4_DUO: u8 = 7;
const VC_DATA_ALIAS2: u8 = 8;
const GZIP_WRAPPER: u8 = 254;
const SKIP: u8 = 255;

/// What the walk found in a file that can be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checked {
    /// Bytes from the start that hold complete blocks (the whole file unless it is
    /// truncated).
    pub complete: u64,
    /// The file's length.
    pub len: u64,
}

/// Walks the block chain of the FST in `file`; an error says which block is impossible and
/// why.
pub fn check<F: Read + Seek>(file: &mut F) -> Result<Checked, String> {
    let len = file.seek(SeekFrom::End(0)).map_err(|e| e.to_string())?;
    // Any count of items, each of at least one byte of uncompressed data.
    let max_items = len.saturating_mul(ZLIB_RATIO).min(MAX_UNCOMPRESSED);
    let mut at = 0u64;
    // The header's handle count, and where the hierarchy block is, for the check after the
    // walk (the header comes first, the hierarchy usually last).
    let mut header_handles = None;
    let mut hierarchy = None;
    let mut complete = len;
    while at.checked_add(9).is_some_and(|end| end <= len) {
        let kind = read_u8(file, at)?;
        let size = read_u64(file, at + 1)?;
        if kind == SKIP && size == 0 {
            break;
        }
        let bad = |what: String| {
            format!("the block at byte {at} (type {kind}) {what}: the file is damaged")
        };
        if size < 8 || i64::try_from(size).is_err() {
            return Err(bad(format!(
                "has length {size} (a block length counts its own 8 bytes and fits 63 bits)"
            )));
        }
        let end = at + 1 + size;
        if end > len {
            // Truncated: the blocks before it are read.
            complete = at;
            break;
        }
        let body = at + 9;
        match kind {
            GEOMETRY => {
                let (uncompressed, handles) = (
                    read_u64_checked(file, body, end)?,
                    read_u64_checked(file, body + 8, end)?,
                );
                bounded(uncompressed, size, ZLIB_RATIO).map_err(&bad)?;
                if handles > uncompressed {
                    return Err(bad(format!(
                        "declares {handles} signals in {uncompressed} bytes"
                    )));
                }
            }
            HIERARCHY | HIERARCHY_LZ4 | HIERARCHY_LZ4_DUO | GZIP_WRAPPER => {
                let ratio = match kind {
                    HIERARCHY | GZIP_WRAPPER => ZLIB_RATIO,
                    HIERARCHY_LZ4 => LZ4_RATIO,
                    _ => LZ4_RATIO * LZ4_RATIO,
                };
                bounded(read_u64_checked(file, body, end)?, size, ratio).map_err(&bad)?;
                hierarchy = Some((at, kind, end));
            }
            BLACKOUT => {
                let (count, _) = read_varint(file, body, end)?;
                if count > size {
                    return Err(bad(format!("declares {count} blackouts in {size} bytes")));
                }
            }
            VC_DATA | VC_DATA_ALIAS | VC_DATA_ALIAS2 => {
                // After the begin and end times and the memory hint: the frame's sizes and
                // handle count, the frame, then the value changes' handle count.
                let (frame_unc, n1) = read_varint(file, body + 24, end)?;
                let (frame_comp, n2) = read_varint(file, body + 24 + n1, end)?;
                let (frame_handles, n3) = read_varint(file, body + 24 + n1 + n2, end)?;
                if frame_comp > size {
                    return Err(bad(format!("has a frame of {frame_comp} bytes")));
                }
                bounded(frame_unc, frame_comp.max(1), ZLIB_RATIO).map_err(&bad)?;
                let after_frame = body + 24 + n1 + n2 + n3 + frame_comp;
                let (vc_handles, _) = read_varint(file, after_frame, end)?;
                for handles in [frame_handles, vc_handles] {
                    if handles > max_items {
                        return Err(bad(format!("declares {handles} signals")));
                    }
                }
                // The time table's sizes are the block's last 24 bytes.
                if size < 8 + 24 {
                    return Err(bad(format!(
                        "has length {size}, too short for its time table"
                    )));
                }
                let t = end - 24;
                let (t_unc, t_comp, t_items) = (
                    read_u64(file, t)?,
                    read_u64(file, t + 8)?,
                    read_u64(file, t + 16)?,
                );
                if t_comp > size {
                    return Err(bad(format!("has a time table of {t_comp} bytes")));
                }
                bounded(t_unc, t_comp.max(1), ZLIB_RATIO).map_err(&bad)?;
                if t_items > t_unc {
                    return Err(bad(format!(
                        "declares {t_items} time steps in {t_unc} bytes"
                    )));
                }
                // The chain (where each signal's changes start) lies in front of the time
                // table, its length in the 8 bytes before the table; each entry stands for
                // one signal or a run of signals without changes, and the reader makes a
                // table entry for every signal the chain covers.
                let chain_len_at = (end - 24)
                    .checked_sub(t_comp)
                    .and_then(|p| p.checked_sub(8))
                    .filter(|&p| p >= body + 24)
                    .ok_or_else(|| bad("has a time table larger than the block".into()))?;
                let chain_len = read_u64(file, chain_len_at)?;
                if chain_len > chain_len_at - (body + 24) {
                    return Err(bad(format!("has an index of {chain_len} bytes")));
                }
                let mut chain = vec![0u8; chain_len as usize];
                file.seek(SeekFrom::Start(chain_len_at - chain_len))
                    .and_then(|_| file.read_exact(&mut chain))
                    .map_err(|e| e.to_string())?;
                let covered = chain_signals(&chain, kind == VC_DATA_ALIAS2);
                if covered > vc_handles {
                    return Err(bad(format!("indexes {covered} signals of {vc_handles}")));
                }
            }
            HEADER => {
                // The handle count of the whole file (its 7th field).
                let handles = read_u64_checked(file, body + 48, end)?;
                if handles > max_items {
                    return Err(bad(format!("declares {handles} signals")));
                }
                header_handles = Some(handles);
            }
            _ => {} // blocks the reader skips or rejects by type
        }
        at = end;
    }
    if let (Some(handles), Some((block_at, kind, end))) = (header_handles, hierarchy) {
        check_hierarchy(file, block_at, kind, end, handles)?;
    }
    Ok(Checked { complete, len })
}

/// Decompresses the hierarchy block at `at` (of type `kind`, ending at `end`) and refuses a
/// variable whose alias names a signal handle above the header's `handles`: the reader under
/// `wellen` sizes a table by that handle (an alias near 2^32 in a 1.2 KB file asked for
/// 10.8 GB; found by the `replay_fst` fuzz target). A hierarchy that does not decompress or
/// parse is left to the reader, which fails on it without a large allocation.
fn check_hierarchy<F: Read + Seek>(
    file: &mut F,
    at: u64,
    kind: u8,
    end: u64,
    handles: u64,
) -> Result<(), String> {
    let body = at + 9;
    let Some(compressed) = end.checked_sub(body + 8) else {
        return Ok(()); // too short to hold data: the reader fails on it
    };
    // Bounded by the walk (the block's size times the compression ratio, at most 4 GiB).
    let uncompressed = read_u64(file, body)? as usize;
    let mut data = vec![0u8; compressed as usize];
    file.seek(SeekFrom::Start(body + 8))
        .and_then(|_| file.read_exact(&mut data))
        .map_err(|e| e.to_string())?;
    let bytes = match kind {
        HIERARCHY_LZ4 => lz4_flex::block::decompress(&data, uncompressed).ok(),
        HIERARCHY_LZ4_DUO => {
            let mut rest = data.as_slice();
            leb128_u64(&mut rest).and_then(|first| {
                // The first stage's size is stated too: no more than LZ4 can expand the rest.
                let first = usize::try_from(first)
                    .ok()
                    .filter(|&n| n as u64 <= (rest.len() as u64).saturating_mul(LZ4_RATIO))?;
                let once = lz4_flex::block::decompress(rest, first).ok()?;
                lz4_flex::block::decompress(&once, uncompressed).ok()
            })
        }
        // A gzip member: a 10-byte header, then raw deflate.
        _ => data.get(10..).and_then(|raw| {
            miniz_oxide::inflate::decompress_to_vec_with_limit(raw, uncompressed).ok()
        }),
    };
    let Some(bytes) = bytes else {
        return Ok(());
    };
    let alias = highest_alias(&bytes);
    if u64::from(alias) > handles {
        return Err(format!(
            "the hierarchy block at byte {at} (type {kind}) names signal {alias} of {handles}: the file is damaged"
        ));
    }
    Ok(())
}

/// The highest alias handle of the variables in a decompressed hierarchy, following the
/// reader's entry grammar (scopes, variables, attributes), up to anything it does not know
/// (the reader fails there, after taking the variables before it).
fn highest_alias(mut b: &[u8]) -> u32 {
    fn byte(b: &mut &[u8]) -> Option<u8> {
        let (&x, rest) = b.split_first()?;
        *b = rest;
        Some(x)
    }
    fn c_str(b: &mut &[u8]) -> Option<()> {
        let n = b.iter().position(|&c| c == 0)?;
        *b = &b[n + 1..];
        Some(())
    }
    let mut highest = 0u32;
    while let Some(tag) = byte(&mut b) {
        let step = match tag {
            // A scope: its type, name and component.
            254 => byte(&mut b)
                .and_then(|_| c_str(&mut b))
                .and_then(|()| c_str(&mut b)),
            255 | 253 => Some(()),
            // A variable: direction, name, length, alias (0: a new handle).
            0..=29 => (|| {
                byte(&mut b)?;
                c_str(&mut b)?;
                leb128_u32(&mut b, 5)?;
                let alias = leb128_u32(&mut b, 5)?;
                highest = highest.max(alias);
                Some(())
            })(),
            // An attribute: misc (source stems carry a number and a NUL instead of a
            // name), array, enum or pack; then a number.
            252 => (|| {
                let attr = byte(&mut b)?;
                let sub = byte(&mut b)?;
                match (attr, sub) {
                    (0, 4 | 5) => {
                        leb128_u64(&mut b)?;
                        byte(&mut b)?;
                    }
                    (0..=3, _) => c_str(&mut b)?,
                    _ => return None,
                }
                leb128_u64(&mut b)?;
                Some(())
            })(),
            _ => None,
        };
        if step.is_none() {
            break;
        }
    }
    highest
}

/// A LEB128 value of at most 10 bytes from the front of `bytes`; `None` when it runs out.
fn leb128_u64(bytes: &mut &[u8]) -> Option<u64> {
    let mut value = 0u64;
    for i in 0..10 {
        let (&b, rest) = bytes.split_first()?;
        *bytes = rest;
        value |= u64::from(b & 0x7f).checked_shl(7 * i).unwrap_or(0);
        if b & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

/// The first `limit` bytes of a file, as a file of that length (what the FST reader sees of a
/// truncated file: its complete blocks).
#[derive(Debug)]
pub struct Prefix<F> {
    inner: F,
    limit: u64,
    pos: u64,
}

impl<F: Read + Seek> Prefix<F> {
    /// The first `limit` bytes of `inner`, read from the start.
    pub fn new(mut inner: F, limit: u64) -> std::io::Result<Prefix<F>> {
        inner.seek(SeekFrom::Start(0))?;
        Ok(Prefix {
            inner,
            limit,
            pos: 0,
        })
    }
}

impl<F: Read> Read for Prefix<F> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = usize::try_from(self.limit.saturating_sub(self.pos)).unwrap_or(usize::MAX);
        let n = buf.len().min(left);
        let got = self.inner.read(&mut buf[..n])?;
        self.pos += got as u64;
        Ok(got)
    }
}

impl<F: Seek> Seek for Prefix<F> {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        let target = match to {
            SeekFrom::Start(n) => Some(n),
            SeekFrom::End(d) => self.limit.checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        }
        .ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "seek before the start")
        })?;
        self.pos = self.inner.seek(SeekFrom::Start(target))?;
        Ok(self.pos)
    }
}

/// An uncompressed size `n` stated for `compressed` bytes: at most `ratio` times as many,
/// and at most [`MAX_UNCOMPRESSED`].
fn bounded(n: u64, compressed: u64, ratio: u64) -> Result<(), String> {
    if n > MAX_UNCOMPRESSED || n > compressed.saturating_mul(ratio).saturating_add(64) {
        Err(format!(
            "states {n} bytes of data from {compressed} compressed bytes"
        ))
    } else {
        Ok(())
    }
}

fn read_u8<F: Read + Seek>(file: &mut F, at: u64) -> Result<u8, String> {
    let mut b = [0u8; 1];
    file.seek(SeekFrom::Start(at)).map_err(|e| e.to_string())?;
    file.read_exact(&mut b).map_err(|e| e.to_string())?;
    Ok(b[0])
}

fn read_u64<F: Read + Seek>(file: &mut F, at: u64) -> Result<u64, String> {
    let mut b = [0u8; 8];
    file.seek(SeekFrom::Start(at)).map_err(|e| e.to_string())?;
    file.read_exact(&mut b).map_err(|e| e.to_string())?;
    Ok(u64::from_be_bytes(b))
}

/// A `u64` at `at` that must lie before `end`; 0 when the block is too short to hold it
/// (the reader then fails on its own, without a large allocation).
fn read_u64_checked<F: Read + Seek>(file: &mut F, at: u64, end: u64) -> Result<u64, String> {
    if at + 8 > end {
        return Ok(0);
    }
    read_u64(file, at)
}

/// A LEB128 varint at `at` (at most 10 bytes, before `end`) and its length in bytes; (0, 0)
/// past `end`.
fn read_varint<F: Read + Seek>(file: &mut F, at: u64, end: u64) -> Result<(u64, u64), String> {
    let mut value = 0u64;
    for i in 0..10u64 {
        if at + i >= end {
            return Ok((value, i));
        }
        let b = read_u8(file, at + i)?;
        value |= u64::from(b & 0x7f).checked_shl(7 * i as u32).unwrap_or(0);
        if b & 0x80 == 0 {
            return Ok((value, i + 1));
        }
    }
    Ok((value, 10))
}

/// How many signals a value-change block's index chain covers, decoded as the reader
/// decodes it (LEB128 entries; a run of signals without changes counts its length). The
/// newer alias format (`alias2`) marks an offset or alias by the low bit of its first byte
/// and a run otherwise; the older one has a 0 before each alias, odd values for offsets and
/// even values for runs. Stops at a truncated entry (the reader fails there itself).
fn chain_signals(mut chain: &[u8], alias2: bool) -> u64 {
    let mut covered = 0u64;
    while let Some(&first) = chain.first() {
        let signed_entry = alias2 && first & 1 == 1;
        let Some(value) = leb128_u32(&mut chain, if signed_entry { 10 } else { 5 }) else {
            break;
        };
        let count = if signed_entry || value & 1 == 1 {
            1
        } else if !alias2 && value == 0 {
            // An alias: its target follows.
            if leb128_u32(&mut chain, 5).is_none() {
                break;
            }
            1
        } else {
            u64::from(value >> 1)
        };
        covered = covered.saturating_add(count);
    }
    covered
}

/// A LEB128 value of at most `max_bytes` bytes taken from the front of `bytes`, its bits
/// above 32 dropped (as the reader's 32-bit decoder drops them); `None` when it runs out.
fn leb128_u32(bytes: &mut &[u8], max_bytes: usize) -> Option<u32> {
    let mut value = 0u32;
    for i in 0..max_bytes {
        let (&b, rest) = bytes.split_first()?;
        *bytes = rest;
        value |= u32::from(b & 0x7f).checked_shl(7 * i as u32).unwrap_or(0);
        if b & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(kind: u8, body: &[u8]) -> Vec<u8> {
        let mut b = vec![kind];
        b.extend_from_slice(&(body.len() as u64 + 8).to_be_bytes());
        b.extend_from_slice(body);
        b
    }

    #[test]
    fn impossible_blocks_are_named() {
        // A geometry block claiming 2^50 signals in 16 bytes.
        let mut body = Vec::new();
        body.extend_from_slice(&16u64.to_be_bytes());
        body.extend_from_slice(&(1u64 << 50).to_be_bytes());
        body.extend_from_slice(&[0u8; 16]);
        let f = block(GEOMETRY, &body);
        let e = check(&mut std::io::Cursor::new(f)).unwrap_err();
        assert!(
            e.contains("block at byte 0 (type 3) declares 1125899906842624 signals"),
            "{e}"
        );
        // A hierarchy block stating 2^40 bytes of data from a few.
        let mut body = (1u64 << 40).to_be_bytes().to_vec();
        body.extend_from_slice(&[1, 2, 3]);
        let e = check(&mut std::io::Cursor::new(block(HIERARCHY_LZ4, &body))).unwrap_err();
        assert!(
            e.contains("states 1099511627776 bytes of data from 19"),
            "{e}"
        );
        // A blackout block with 2^31 entries in 5 bytes.
        let body = [0xff, 0xff, 0xff, 0xff, 0x07];
        let e = check(&mut std::io::Cursor::new(block(BLACKOUT, &body))).unwrap_err();
        assert!(e.contains("2147483647 blackouts"), "{e}");
    }

    /// A value-change block of `handles` signals whose index chain is `chain`, with an
    /// empty frame and a one-byte time table.
    fn value_changes(kind: u8, handles: u8, chain: &[u8]) -> Vec<u8> {
        let mut body = vec![0u8; 24]; // begin and end times, memory hint
        body.extend_from_slice(&[0, 0, 0]); // frame: 0 bytes, 0 compressed, 0 handles
        body.extend_from_slice(&[handles, b'!']); // value changes: handle count, pack type
        body.extend_from_slice(chain);
        body.extend_from_slice(&(chain.len() as u64).to_be_bytes());
        body.push(0); // the time table's one byte
        for field in [1u64, 1, 1] {
            body.extend_from_slice(&field.to_be_bytes());
        }
        block(kind, &body)
    }

    #[test]
    fn an_index_covering_more_signals_than_the_block_has_is_refused() {
        // Found by the `replay_fst` fuzz target: a run of 2^30 signals without changes in
        // a block of 48 made the reader build a 16-byte table entry for each (3.2 GB).
        let run = [0x80, 0x80, 0x80, 0x80, 0x08]; // 2^31, even: a run of 2^30
        for kind in [VC_DATA, VC_DATA_ALIAS, VC_DATA_ALIAS2] {
            let e = check(&mut std::io::Cursor::new(value_changes(kind, 48, &run))).unwrap_err();
            assert!(e.contains("indexes 1073741824 signals of 48"), "{e}");
        }
        // Offsets, aliases and a run that together cover exactly the block's signals.
        let old_style = [0x03, 0x00, 0x01, 0x04]; // an offset, an alias of signal 0, a run of 2
        let new_style = [0x03, 0x7f, 0x04]; // an offset, an alias (signed -1), a run of 2
        for (kind, chain) in [
            (VC_DATA_ALIAS, &old_style[..]),
            (VC_DATA_ALIAS2, &new_style[..]),
        ] {
            let f = value_changes(kind, 4, chain);
            let len = f.len() as u64;
            assert_eq!(
                check(&mut std::io::Cursor::new(f)),
                Ok(Checked { complete: len, len })
            );
            let e = check(&mut std::io::Cursor::new(value_changes(kind, 3, chain))).unwrap_err();
            assert!(e.contains("indexes 4 signals of 3"), "{e}");
        }
        // An index longer than the block.
        let mut f = value_changes(VC_DATA, 1, &[0x03]);
        let at = f.len() - 24 - 1 - 8;
        f[at..at + 8].copy_from_slice(&1000u64.to_be_bytes());
        let e = check(&mut std::io::Cursor::new(f)).unwrap_err();
        assert!(e.contains("has an index of 1000 bytes"), "{e}");
    }

    #[test]
    fn a_variable_aliasing_a_handle_beyond_the_header_is_refused() {
        // Found by the `replay_fst` fuzz target: a hierarchy whose variable names handle
        // ~2^32 made the reader size a table for it (10.8 GB from 1,277 bytes).
        let mut header = vec![0u8; 321];
        header[48..56].copy_from_slice(&70u64.to_be_bytes());
        let file = |alias: &[u8], kind: u8| {
            // A scope, an attribute (a source stem: number and NUL), then a wire.
            let mut entries = vec![254, 0, b't', b'o', b'p', 0, 0];
            entries.extend_from_slice(&[252, 0, 4, 7, 0, 1]);
            entries.extend_from_slice(&[0, 0, b'a', 0, 1]);
            entries.extend_from_slice(alias);
            entries.push(255);
            let mut body = (entries.len() as u64).to_be_bytes().to_vec();
            match kind {
                HIERARCHY_LZ4 => body.extend(lz4_flex::block::compress(&entries)),
                _ => {
                    body.extend_from_slice(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]);
                    body.extend(miniz_oxide::deflate::compress_to_vec(&entries, 6));
                }
            }
            let mut f = block(HEADER, &header);
            f.extend(block(kind, &body));
            f
        };
        for kind in [HIERARCHY_LZ4, HIERARCHY] {
            let e = check(&mut std::io::Cursor::new(file(&[0xe8, 0x07], kind))).unwrap_err();
            assert!(
                e.contains(&format!("(type {kind}) names signal 1000 of 70")),
                "{e}"
            );
            assert!(check(&mut std::io::Cursor::new(file(&[5], kind))).is_ok());
            assert!(check(&mut std::io::Cursor::new(file(&[0], kind))).is_ok());
        }
    }

    #[test]
    fn a_truncated_last_block_leaves_the_complete_ones() {
        let mut f = block(SKIP, &[0u8; 4]);
        let first = f.len() as u64;
        let mut tail = block(BLACKOUT, &[0u8; 20]);
        tail.truncate(10);
        f.extend_from_slice(&tail);
        let c = check(&mut std::io::Cursor::new(f.clone())).unwrap();
        assert_eq!(
            c,
            Checked {
                complete: first,
                len: f.len() as u64
            }
        );
    }

    proptest::proptest! {
        /// A header and a hierarchy block of any contents, whatever its compression:
        /// an answer, never a panic (the guard runs outside the reader's `catch_unwind`).
        #[test]
        fn any_hierarchy_is_checked_without_panicking(
            kind in proptest::sample::select(vec![HIERARCHY, HIERARCHY_LZ4, HIERARCHY_LZ4_DUO]),
            stated in 0u64..5000,
            data in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400),
            compressed in proptest::prelude::any::<bool>(),
        ) {
            let mut header = vec![0u8; 321];
            header[48..56].copy_from_slice(&70u64.to_be_bytes());
            let payload = if compressed { lz4_flex::block::compress(&data) } else { data.clone() };
            let mut body = stated.to_be_bytes().to_vec();
            if kind == HIERARCHY_LZ4_DUO {
                body.push((payload.len() % 128) as u8);
            }
            body.extend(payload);
            let mut f = block(HEADER, &header);
            f.extend(block(kind, &body));
            let _ = check(&mut std::io::Cursor::new(f));
            let _ = highest_alias(&data);
        }

        /// Any bytes: an answer, never a panic or a loop.
        #[test]
        fn any_bytes_are_walked(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300)) {
            if let Ok(c) = check(&mut std::io::Cursor::new(bytes.clone())) {
                proptest::prop_assert!(c.complete <= c.len);
            }
        }
    }
}
