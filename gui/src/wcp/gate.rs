//! The door of a WCP connection: which of a client's messages reach the debugging session.
//!
//! A connection's first message must be a greeting that carries the server's session token;
//! anything else closes the connection and nothing the client sent reaches the session. After
//! the greeting every message goes through (commands, later greetings, errors for malformed
//! frames). What the transcript records of a greeting never holds the token.
//!
//! Kept free of the network and of the session so that the server, a property test and the
//! `wcp` fuzz target (which compiles this file with `codec.rs` and `proto.rs`) drive the same
//! rules with any sequence of frames.

use super::proto::{ClientMessage, ServerMessage};

/// A client message as it came off the wire: parsed, or the error reply it earned.
pub type Received = Result<ClientMessage, ServerMessage>;

/// What becomes of one message.
#[derive(Debug, PartialEq)]
pub enum Admission {
    /// It goes to the session; the first admitted message of a connection is its greeting.
    Forward,
    /// The connection closes with this error, and the message goes nowhere.
    Close(ServerMessage),
}

/// The state of one connection's door.
#[derive(Debug)]
pub struct Gate {
    token: String,
    greeted: bool,
    closed: bool,
}

impl Gate {
    /// A door that opens for the greeting carrying `token`.
    pub fn new(token: impl Into<String>) -> Gate {
        Gate {
            token: token.into(),
            greeted: false,
            closed: false,
        }
    }

    /// Whether the client has greeted with the token.
    pub fn greeted(&self) -> bool {
        self.greeted
    }

    /// Decides on the next message. Once a message has closed the door, every later one is
    /// refused the same way (the server stops reading, but the rule does not depend on it).
    pub fn admit(&mut self, msg: &Received) -> Admission {
        if self.closed {
            return Admission::Close(unauthorized());
        }
        if !self.greeted {
            let ok = matches!(msg, Ok(ClientMessage::Greeting { token: Some(t), .. }) if token_matches(t, &self.token));
            if !ok {
                self.closed = true;
                return Admission::Close(unauthorized());
            }
            self.greeted = true;
        }
        Admission::Forward
    }
}

/// The error that closes a connection whose first message is not the greeting with the token.
pub fn unauthorized() -> ServerMessage {
    ServerMessage::error(
        "unauthorized",
        vec!["greeting".into()],
        "the first message must be a greeting with the session's `token` (printed by the server when it starts, or in its --wcp-token-file); the connection is closed".to_owned(),
    )
}

/// What the transcript records of a message: the frame's text (at most 2,000 characters), or
/// for a greeting its fields with the token hidden.
pub fn transcript_text(frame_text: String, msg: &Received) -> String {
    match msg {
        Ok(ClientMessage::Greeting {
            version, commands, ..
        }) => serde_json::json!({
            "type": "greeting",
            "version": version,
            "commands": commands,
            "token": "(hidden)",
        })
        .to_string(),
        _ => frame_text,
    }
}

/// Whether `given` is `token`, comparing every byte whatever the first difference.
pub fn token_matches(given: &str, token: &str) -> bool {
    given.len() == token.len()
        && given
            .bytes()
            .zip(token.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wcp::codec::{Frame, FrameDecoder};
    use crate::wcp::proto::parse_client;
    use proptest::prelude::*;

    const TOKEN: &str = "0123456789abcdef0123456789abcdef";

    fn greeting(token: Option<&str>) -> String {
        match token {
            Some(t) => {
                format!(r#"{{"type":"greeting","version":"0","commands":[],"token":"{t}"}}"#)
            }
            None => r#"{"type":"greeting","version":"0","commands":[]}"#.into(),
        }
    }

    /// One frame of a session: a greeting with the right, a wrong or no token, a command,
    /// malformed JSON, or bytes.
    fn frame() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            Just(greeting(Some(TOKEN)).into_bytes()),
            "[0-9a-f]{0,40}".prop_map(|t| greeting(Some(&t)).into_bytes()),
            Just(greeting(None).into_bytes()),
            Just(br#"{"type":"command","command":"get_cursor"}"#.to_vec()),
            Just(br#"{"type":"command","command":"shutdown"}"#.to_vec()),
            Just(br#"{"type":"greeting""#.to_vec()),
            proptest::collection::vec(1u8..=255, 0..64),
        ]
    }

    /// Runs `frames` (NUL-ended, split into reads at `cut`) through decoding, parsing and the
    /// gate, as the server does; returns what was forwarded and whether the door closed.
    fn session(frames: &[Vec<u8>], cut: usize) -> (Vec<Received>, Option<ServerMessage>) {
        let mut wire = Vec::new();
        for f in frames {
            wire.extend_from_slice(f);
            wire.push(0);
        }
        let cut = cut.min(wire.len());
        let mut dec = FrameDecoder::new(4096);
        let mut gate = Gate::new(TOKEN);
        let mut forwarded = Vec::new();
        for part in [&wire[..cut], &wire[cut..]] {
            for f in dec.push(part) {
                let msg: Received = match f {
                    Frame::Message(b) => parse_client(&b).map_err(|e| e.reply()),
                    Frame::TooLarge { .. } => continue,
                };
                match gate.admit(&msg) {
                    Admission::Forward => forwarded.push(msg),
                    Admission::Close(m) => return (forwarded, Some(m)),
                }
            }
        }
        (forwarded, None)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        /// Whatever a client sends, in whatever reads: nothing reaches the session unless the
        /// first frame is the greeting with the token, which is then the first thing it gets;
        /// a session that starts so forwards every later frame.
        #[test]
        fn only_a_session_opened_with_the_token_reaches_the_debugger(
            frames in proptest::collection::vec(frame(), 1..12),
            cut in 0usize..2048,
        ) {
            let (forwarded, closed) = session(&frames, cut);
            let first_ok = frames[0] == greeting(Some(TOKEN)).into_bytes();
            if first_ok {
                prop_assert!(closed.is_none());
                prop_assert_eq!(forwarded.len(), frames.len());
                let first_is_greeting = matches!(&forwarded[0], Ok(ClientMessage::Greeting { token: Some(t), .. }) if t == TOKEN);
                prop_assert!(first_is_greeting);
            } else {
                prop_assert!(forwarded.is_empty(), "forwarded before the greeting: {forwarded:?}");
                prop_assert!(closed.is_some());
            }
            for m in &forwarded {
                let text = transcript_text(String::new(), m);
                prop_assert!(!text.contains(TOKEN), "the transcript holds the token: {text}");
            }
        }
    }

    #[test]
    fn a_closed_door_stays_closed() {
        let mut g = Gate::new(TOKEN);
        let bad: Received =
            parse_client(br#"{"type":"command","command":"get_cursor"}"#).map_err(|e| e.reply());
        assert!(matches!(g.admit(&bad), Admission::Close(_)));
        let good: Received = parse_client(greeting(Some(TOKEN)).as_bytes()).map_err(|e| e.reply());
        assert!(matches!(g.admit(&good), Admission::Close(_)));
        assert!(!g.greeted());
    }

    #[test]
    fn tokens_compare_whole() {
        assert!(token_matches(TOKEN, TOKEN));
        assert!(!token_matches(&TOKEN[..31], TOKEN));
        assert!(!token_matches("", TOKEN));
        assert!(!token_matches(&TOKEN.replace('0', "1"), TOKEN));
    }
}
