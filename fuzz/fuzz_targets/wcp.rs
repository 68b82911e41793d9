//! Fuzz target: the WCP wire side of `handscope serve` and `gui --wcp` — the NUL framing
//! with its size limit and the parsing of client messages, compiled from the debugger's own
//! `gui/src/wcp/{codec,proto}.rs` (the binary crate has no library to link). The first input
//! byte picks the frame limit, the second where the bytes are split in two reads; every
//! frame must parse or give an error reply, every reply must encode as JSON ended by one NUL,
//! no frame may exceed the limit, and a well-formed command must survive a round trip.
//! The frames then go, as one session, through the connection's gate (`gate.rs`): nothing
//! passes before a greeting with the session token (`t0k3n`), a closed gate stays closed, and
//! no transcript line holds the token.
//! What the commands then do to a debugging session is covered by the property test in
//! `gui/src/wcp/dispatch.rs`. Run in `fuzz/` with `cargo fuzz run wcp -s none`
//! (seeds: `fuzz/seeds/wcp`).
#![no_main]

use libfuzzer_sys::fuzz_target;

// Siblings at the crate root, as in the debugger's `wcp` module (`codec` names `super::proto`).
#[allow(dead_code)]
#[path = "../../gui/src/wcp/codec.rs"]
mod codec;
#[allow(dead_code)]
#[path = "../../gui/src/wcp/proto.rs"]
mod proto;
#[allow(dead_code)]
#[path = "../../gui/src/wcp/gate.rs"]
mod gate;

use codec::{Frame, FrameDecoder, encode};
use gate::{Admission, Gate, Received, transcript_text};
use proto::{ClientMessage, parse_client};

const TOKEN: &str = "t0k3n";

fn check_reply(reply: &impl serde::Serialize) {
    let wire = encode(reply);
    assert_eq!(wire.last(), Some(&0), "a reply ends with NUL");
    assert!(!wire[..wire.len() - 1].contains(&0), "one NUL per reply");
    serde_json::from_slice::<serde_json::Value>(&wire[..wire.len() - 1])
        .expect("a reply is JSON");
}

fuzz_target!(|data: &[u8]| {
    let (max, split, bytes) = match data {
        [a, b, rest @ ..] => (1 + usize::from(*a) * 16, usize::from(*b), rest),
        _ => return,
    };
    let split = split.min(bytes.len());
    let mut d = FrameDecoder::new(max);
    let frames: Vec<Frame> = [&bytes[..split], &bytes[split..]]
        .into_iter()
        .flat_map(|part| d.push(part))
        .collect();
    let mut gate = Gate::new(TOKEN);
    let mut closed = false;
    for f in &frames {
        let msg: Received = match f {
            Frame::Message(m) => parse_client(m).map_err(|e| e.reply()),
            Frame::TooLarge { .. } => continue,
        };
        let first = !gate.greeted();
        match gate.admit(&msg) {
            Admission::Forward => {
                assert!(!closed, "a closed gate let a message through");
                if first {
                    assert!(
                        matches!(&msg, Ok(ClientMessage::Greeting { token: Some(t), .. }) if t == TOKEN),
                        "the first message through is the greeting with the token"
                    );
                }
                if let Ok(ClientMessage::Greeting { .. }) = &msg {
                    let line = transcript_text(String::new(), &msg);
                    let v: serde_json::Value =
                        serde_json::from_str(&line).expect("a greeting's line is JSON");
                    assert_eq!(v["token"], "(hidden)", "a transcript line holds the token");
                }
            }
            Admission::Close(reply) => {
                closed = true;
                check_reply(&reply);
            }
        }
    }
    for f in frames {
        match f {
            Frame::Message(m) => {
                assert!(m.len() <= max, "a frame over the limit");
                match parse_client(&m) {
                    Ok(ClientMessage::Command(c)) => {
                        // What parsed is sent back as it was understood.
                        let mut v = serde_json::to_value(&c).expect("a command serializes");
                        v.as_object_mut()
                            .expect("a command is an object")
                            .insert("type".into(), "command".into());
                        let again = parse_client(v.to_string().as_bytes());
                        assert_eq!(again, Ok(ClientMessage::Command(c)));
                    }
                    Ok(ClientMessage::Greeting { .. }) => {}
                    Err(e) => check_reply(&e.reply()),
                }
            }
            Frame::TooLarge { len } => assert!(len > max),
        }
    }
});
