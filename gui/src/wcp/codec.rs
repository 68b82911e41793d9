//! WCP framing: every message is JSON text followed by one NUL byte. The decoder takes bytes
//! as they arrive and hands out whole frames; a frame longer than the limit is dropped (up to
//! its NUL) and reported once, so a client can never make the server buffer without bound.

/// Default largest message (bytes, without its NUL).
pub const DEFAULT_MAX_MESSAGE: usize = 1 << 20;

/// What the decoder found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Frame {
    /// A whole message's bytes (without the NUL).
    Message(Vec<u8>),
    /// A message longer than the limit was dropped; `len` bytes were seen when it was cut.
    TooLarge {
        /// Bytes of the dropped message seen so far (at least the limit + 1).
        len: usize,
    },
}

/// Splits a byte stream into NUL-terminated frames of at most `max` bytes.
#[derive(Debug)]
pub struct FrameDecoder {
    buf: Vec<u8>,
    max: usize,
    /// Inside an oversized frame: its bytes are skipped until the next NUL.
    skipping: bool,
}

impl FrameDecoder {
    /// A decoder for frames of at most `max` bytes.
    pub fn new(max: usize) -> FrameDecoder {
        FrameDecoder {
            buf: Vec::new(),
            max,
            skipping: false,
        }
    }

    /// Takes `bytes` in and returns the frames they complete, in order.
    pub fn push(&mut self, mut bytes: &[u8]) -> Vec<Frame> {
        let mut out = Vec::new();
        while !bytes.is_empty() {
            let nul = bytes.iter().position(|&b| b == 0);
            let (chunk, rest, ends) = match nul {
                Some(i) => (&bytes[..i], &bytes[i + 1..], true),
                None => (bytes, &[][..], false),
            };
            bytes = rest;
            if self.skipping {
                if ends {
                    self.skipping = false;
                }
                continue;
            }
            if self.buf.len() + chunk.len() > self.max {
                out.push(Frame::TooLarge {
                    len: self.buf.len() + chunk.len(),
                });
                self.buf.clear();
                self.skipping = !ends;
                continue;
            }
            self.buf.extend_from_slice(chunk);
            if ends {
                out.push(Frame::Message(std::mem::take(&mut self.buf)));
            }
        }
        out
    }

    /// Bytes of an unfinished frame held now (at most the limit).
    #[cfg(test)]
    pub fn pending(&self) -> usize {
        self.buf.len()
    }
}

/// A message as it goes on the wire: its JSON and the NUL.
pub fn encode(msg: &impl serde::Serialize) -> Vec<u8> {
    let mut v = serde_json::to_vec(msg).unwrap_or_else(|e| {
        // Our message types always serialize; say so on the wire if one ever does not.
        serde_json::to_vec(&super::proto::ServerMessage::error(
            "internal",
            vec![],
            format!("cannot encode a message: {e}"),
        ))
        .unwrap_or_default()
    });
    v.push(0);
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn splits_at_nul_across_chunks() {
        let mut d = FrameDecoder::new(100);
        assert!(d.push(b"{\"a\":").is_empty());
        let f = d.push(b"1}\0{}\0{");
        assert_eq!(
            f,
            vec![
                Frame::Message(b"{\"a\":1}".to_vec()),
                Frame::Message(b"{}".to_vec())
            ]
        );
        assert_eq!(d.pending(), 1);
    }

    #[test]
    fn oversized_frames_are_dropped_and_the_stream_resyncs() {
        let mut d = FrameDecoder::new(4);
        let f = d.push(b"123456");
        assert_eq!(f, vec![Frame::TooLarge { len: 6 }]);
        // The rest of the big frame is skipped, the next one comes through.
        let f = d.push(b"789\0ok\0");
        assert_eq!(f, vec![Frame::Message(b"ok".to_vec())]);
        // Exactly the limit is fine.
        assert_eq!(d.push(b"1234\0"), vec![Frame::Message(b"1234".to_vec())]);
    }

    proptest! {
        /// Any bytes in any chunking: no panic, the buffer never exceeds the limit, and
        /// every frame decoded parses or gives an error reply (never a panic).
        #[test]
        fn decoder_and_parser_never_panic(
            data in proptest::collection::vec(any::<u8>(), 0..2048),
            cuts in proptest::collection::vec(0usize..2048, 0..8),
            max in 1usize..256,
        ) {
            let mut d = FrameDecoder::new(max);
            let mut cuts = cuts;
            cuts.push(data.len());
            cuts.sort_unstable();
            let mut at = 0;
            for c in cuts {
                let c = c.min(data.len());
                if c < at { continue; }
                for f in d.push(&data[at..c]) {
                    if let Frame::Message(m) = f {
                        prop_assert!(m.len() <= max);
                        let _ = super::super::proto::parse_client(&m).map_err(|e| e.reply());
                    }
                }
                prop_assert!(d.pending() <= max);
                at = c;
            }
        }

        /// Well-formed messages split anywhere come back whole and in order.
        #[test]
        fn messages_survive_any_split(
            n in 1usize..20,
            split in 0usize..4000,
        ) {
            let msgs: Vec<Vec<u8>> = (0..n)
                .map(|i| format!(r#"{{"type":"command","command":"set_cursor","timestamp":{i}}}"#).into_bytes())
                .collect();
            let mut wire = Vec::new();
            for m in &msgs { wire.extend_from_slice(m); wire.push(0); }
            let split = split.min(wire.len());
            let mut d = FrameDecoder::new(DEFAULT_MAX_MESSAGE);
            let mut got = d.push(&wire[..split]);
            got.extend(d.push(&wire[split..]));
            let got: Vec<Vec<u8>> = got.into_iter().map(|f| match f {
                Frame::Message(m) => m,
                Frame::TooLarge { .. } => Vec::new(),
            }).collect();
            prop_assert_eq!(got, msgs);
        }

        /// JSON-shaped fuzz: random objects with WCP-like keys never panic the parser.
        #[test]
        fn parser_never_panics_on_json(
            ty in prop_oneof![Just("greeting"), Just("command"), Just("x"), Just("")],
            cmd in proptest::sample::select(vec![
                "load", "add_variables", "add_items", "set_cursor", "handscope.step",
                "handscope.set_breakpoint", "handscope.get_values", "zzz",
            ]),
            key in "[a-z_]{0,10}",
            val in prop_oneof![
                any::<i64>().prop_map(|v| v.to_string()),
                "\"[ -~]{0,12}\"",
                Just("[1,\"a\",null]".to_string()),
                Just("{\"kind\":\"value\"}".to_string()),
                Just("-1.5e300".to_string()),
            ],
        ) {
            let text = format!(r#"{{"type":"{ty}","command":"{cmd}","{key}":{val}}}"#);
            let _ = super::super::proto::parse_client(text.as_bytes()).map_err(|e| e.reply());
        }
    }
}
