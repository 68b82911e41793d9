//! The messages of the Waveform Control Protocol (version 0) as Handscope speaks them: what a
//! client sends (a greeting, then commands), what the server answers (a greeting, responses,
//! errors) and the events it pushes. `docs/wcp.md` is the reference; the shapes follow the
//! protocol Surfer implements (`type` tags each message, `command` each command and response,
//! `event` each event), and Handscope's own commands are namespaced `handscope.*`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The protocol version Handscope speaks.
pub const VERSION: &str = "0";

/// The standard commands Handscope implements (listed in its greeting).
pub const STANDARD_COMMANDS: &[&str] = &[
    "load",
    "add_variables",
    "add_items",
    "add_markers",
    "set_cursor",
    "set_viewport_to",
    "set_viewport_range",
    "focus_item",
    "zoom_to_fit",
    "get_item_list",
    "get_item_info",
    "remove_items",
    "reload",
    "clear",
    "shutdown",
];

/// Handscope's extensions (listed in its greeting after the standard ones).
pub const EXTENSION_COMMANDS: &[&str] = &[
    "handscope.step",
    "handscope.run_to",
    "handscope.set_breakpoint",
    "handscope.clear_breakpoints",
    "handscope.list_breakpoints",
    "handscope.get_values",
    "handscope.get_cursor",
    "handscope.list_items",
    "handscope.deadlock_report",
    "handscope.run_report",
];

/// The events a server may send; a client receives those it lists in its greeting.
pub const EVENTS: &[&str] = &[
    "waveforms_loaded",
    "cursor_moved",
    "selection_changed",
    "run_finished",
];

/// A message from a client.
#[derive(Clone, Debug, PartialEq)]
pub enum ClientMessage {
    /// The first message of a session: the client's version and the events it wants.
    Greeting {
        /// Protocol version (`"0"`).
        version: String,
        /// Commands and events the client understands (the events it wants to receive).
        commands: Vec<String>,
        /// The server's session token (Handscope's extension: its server serves only
        /// clients that know it, see `docs/wcp.md`).
        token: Option<String>,
    },
    /// A command.
    Command(Command),
}

/// A marker to add: a cycle, an optional name, whether the cursor moves there.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
pub struct MarkerInfo {
    /// The cycle.
    pub time: u64,
    /// A label.
    #[serde(default)]
    pub name: Option<String>,
    /// Moves the cursor to the marker.
    #[serde(default)]
    pub move_focus: bool,
}

/// Which way `handscope.run_to` searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Towards later cycles.
    #[default]
    Forward,
    /// Towards earlier cycles.
    Backward,
}

/// A breakpoint as a client describes it.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum BreakpointSpec {
    /// A channel transfers a token.
    ChannelFires {
        /// The channel's stable name.
        channel: String,
    },
    /// A channel transfers a token whose value compares true (`==`, `!=`, `<`, `>`; signed).
    Value {
        /// The channel's stable name.
        channel: String,
        /// `==`, `!=`, `<` or `>`.
        op: String,
        /// The value compared with.
        value: i64,
    },
    /// Any channel of a node transfers.
    NodeFires {
        /// The node's stable ID.
        node: String,
    },
    /// The first cycle of a deadlock.
    Deadlock,
    /// A cycle.
    Cycle {
        /// The cycle.
        cycle: u64,
    },
}

/// A command from a client (`"type": "command"`).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(tag = "command", deny_unknown_fields)]
pub enum Command {
    /// Opens a circuit (`.mlir`, `.c`) or replays a waveform (`.vcd`, `.fst`) of the open one.
    #[serde(rename = "load")]
    Load {
        /// A path on the server's machine.
        source: String,
    },
    /// Shows channels (by stable name) or nodes (by stable ID) in the waveform list.
    #[serde(rename = "add_variables")]
    AddVariables {
        /// Stable names.
        variables: Vec<String>,
    },
    /// Like `add_variables`; a node with `recursive` adds all its channels.
    #[serde(rename = "add_items")]
    AddItems {
        /// Stable names.
        items: Vec<String>,
        /// A node adds its input and output channels.
        #[serde(default)]
        recursive: bool,
    },
    /// Adds markers at cycles.
    #[serde(rename = "add_markers")]
    AddMarkers {
        /// The markers.
        markers: Vec<MarkerInfo>,
    },
    /// Moves the cursor to a cycle.
    #[serde(rename = "set_cursor")]
    SetCursor {
        /// The cycle.
        timestamp: u64,
    },
    /// Centers the waveform view on a cycle.
    #[serde(rename = "set_viewport_to")]
    SetViewportTo {
        /// The cycle.
        timestamp: u64,
    },
    /// Shows cycles `start..=end` in the waveform view.
    #[serde(rename = "set_viewport_range")]
    SetViewportRange {
        /// First cycle.
        start: u64,
        /// Last cycle.
        end: u64,
    },
    /// Selects an item (and centers the graph on a node).
    #[serde(rename = "focus_item")]
    FocusItem {
        /// A stable name.
        id: String,
    },
    /// Fits the waveform view to the whole run.
    #[serde(rename = "zoom_to_fit")]
    ZoomToFit {
        /// Surfer's viewport index (Handscope has one view; ignored).
        #[serde(default)]
        viewport_idx: usize,
    },
    /// The displayed items.
    #[serde(rename = "get_item_list")]
    GetItemList,
    /// Name and kind of items.
    #[serde(rename = "get_item_info")]
    GetItemInfo {
        /// Item IDs.
        ids: Vec<String>,
    },
    /// Removes items from the displayed list (unknown IDs are ignored).
    #[serde(rename = "remove_items")]
    RemoveItems {
        /// Item IDs.
        ids: Vec<String>,
    },
    /// Re-reads the open file.
    #[serde(rename = "reload")]
    Reload,
    /// Removes every displayed item and marker.
    #[serde(rename = "clear")]
    Clear,
    /// Ends the session (and `handscope serve`).
    #[serde(rename = "shutdown")]
    Shutdown,
    /// Moves the cursor by `cycles` (default 1; negative goes back).
    #[serde(rename = "handscope.step")]
    Step {
        /// Cycles to move.
        #[serde(default = "one")]
        cycles: i64,
    },
    /// Runs to the next breakpoint in a direction.
    #[serde(rename = "handscope.run_to")]
    RunTo {
        /// `forward` (default) or `backward`.
        #[serde(default)]
        direction: Direction,
    },
    /// Adds a breakpoint.
    #[serde(rename = "handscope.set_breakpoint")]
    SetBreakpoint {
        /// The breakpoint.
        breakpoint: BreakpointSpec,
    },
    /// Removes the breakpoints with these IDs, or all of them when `ids` is absent.
    #[serde(rename = "handscope.clear_breakpoints")]
    ClearBreakpoints {
        /// Breakpoint IDs (their descriptions).
        #[serde(default)]
        ids: Option<Vec<String>>,
    },
    /// The breakpoints.
    #[serde(rename = "handscope.list_breakpoints")]
    ListBreakpoints,
    /// Channel handshakes and data, node firing and registers, at a cycle.
    #[serde(rename = "handscope.get_values")]
    GetValues {
        /// Channel names and node IDs.
        ids: Vec<String>,
        /// The cycle (default: the cursor).
        #[serde(default)]
        cycle: Option<u64>,
    },
    /// The cursor, the cycles simulated and whether the run ended.
    #[serde(rename = "handscope.get_cursor")]
    GetCursor,
    /// Every channel and node of the open function (not only the displayed ones).
    #[serde(rename = "handscope.list_items")]
    ListItems,
    /// The deadlock analysis (waits for the run to end).
    #[serde(rename = "handscope.deadlock_report")]
    DeadlockReport,
    /// The run report of `handscope sim --json` (waits for the run to end).
    #[serde(rename = "handscope.run_report")]
    RunReport,
}

fn one() -> i64 {
    1
}

impl Command {
    /// The command's name on the wire.
    pub fn name(&self) -> &'static str {
        match self {
            Command::Load { .. } => "load",
            Command::AddVariables { .. } => "add_variables",
            Command::AddItems { .. } => "add_items",
            Command::AddMarkers { .. } => "add_markers",
            Command::SetCursor { .. } => "set_cursor",
            Command::SetViewportTo { .. } => "set_viewport_to",
            Command::SetViewportRange { .. } => "set_viewport_range",
            Command::FocusItem { .. } => "focus_item",
            Command::ZoomToFit { .. } => "zoom_to_fit",
            Command::GetItemList => "get_item_list",
            Command::GetItemInfo { .. } => "get_item_info",
            Command::RemoveItems { .. } => "remove_items",
            Command::Reload => "reload",
            Command::Clear => "clear",
            Command::Shutdown => "shutdown",
            Command::Step { .. } => "handscope.step",
            Command::RunTo { .. } => "handscope.run_to",
            Command::SetBreakpoint { .. } => "handscope.set_breakpoint",
            Command::ClearBreakpoints { .. } => "handscope.clear_breakpoints",
            Command::ListBreakpoints => "handscope.list_breakpoints",
            Command::GetValues { .. } => "handscope.get_values",
            Command::GetCursor => "handscope.get_cursor",
            Command::ListItems => "handscope.list_items",
            Command::DeadlockReport => "handscope.deadlock_report",
            Command::RunReport => "handscope.run_report",
        }
    }
}

/// A message from the server.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage {
    /// The answer to a client's greeting: version and the commands the server implements.
    Greeting {
        /// Protocol version.
        version: String,
        /// Commands.
        commands: Vec<String>,
    },
    /// The answer to a command: `command` names the response (`ack`, or the command's name
    /// with its results as further fields).
    Response {
        /// `ack` or the command's name.
        command: String,
        /// The results, flattened into the message.
        #[serde(flatten)]
        fields: serde_json::Map<String, Value>,
    },
    /// A command failed; nothing changed.
    Error {
        /// A machine-readable kind (`unknown_command`, `unknown_item`, ...).
        error: String,
        /// What it concerns: the command, then offending IDs.
        arguments: Vec<String>,
        /// A sentence for people.
        message: String,
    },
    /// Something happened that no command asked for.
    Event {
        /// The event's name.
        event: String,
        /// Its data, flattened into the message.
        #[serde(flatten)]
        fields: serde_json::Map<String, Value>,
    },
}

impl ServerMessage {
    /// The server's greeting.
    pub fn greeting() -> ServerMessage {
        ServerMessage::Greeting {
            version: VERSION.into(),
            commands: STANDARD_COMMANDS
                .iter()
                .chain(EXTENSION_COMMANDS)
                .map(|s| s.to_string())
                .collect(),
        }
    }

    /// `{"type":"response","command":"ack"}`.
    pub fn ack() -> ServerMessage {
        ServerMessage::Response {
            command: "ack".into(),
            fields: serde_json::Map::new(),
        }
    }

    /// A response named `command` carrying `fields` (a JSON object; anything else is put
    /// under `value`).
    pub fn response(command: &str, fields: Value) -> ServerMessage {
        ServerMessage::Response {
            command: command.into(),
            fields: into_map(fields),
        }
    }

    /// An error of kind `error` about `arguments`. The message is for people: control
    /// characters that it quotes from a client's input (an ID, a file name) are escaped and
    /// overlong lines cut, as on the terminal, so a client that prints it prints no escape
    /// sequence; the arguments stay exactly as the client sent them.
    pub fn error(error: &str, arguments: Vec<String>, message: impl Into<String>) -> ServerMessage {
        let message = message.into();
        ServerMessage::Error {
            error: error.into(),
            arguments,
            message: handscope_sim::quote::message(&message).into_owned(),
        }
    }

    /// An event named `event` carrying `fields`.
    pub fn event(event: &str, fields: Value) -> ServerMessage {
        ServerMessage::Event {
            event: event.into(),
            fields: into_map(fields),
        }
    }
}

fn into_map(v: Value) -> serde_json::Map<String, Value> {
    match v {
        Value::Object(m) => m,
        Value::Null => serde_json::Map::new(),
        other => {
            let mut m = serde_json::Map::new();
            m.insert("value".into(), other);
            m
        }
    }
}

/// Why a frame is not a usable client message; each becomes an error reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// Not UTF-8, not JSON, not an object, or no string `type`.
    Malformed(String),
    /// `type` is neither `greeting` nor `command`.
    UnknownType(String),
    /// A command this server does not implement.
    UnknownCommand(String),
    /// A known command with missing, extra or mistyped fields.
    InvalidArguments {
        /// The command.
        command: String,
        /// What is wrong.
        detail: String,
    },
}

impl ParseError {
    /// The error reply for this problem.
    pub fn reply(&self) -> ServerMessage {
        match self {
            ParseError::Malformed(m) => ServerMessage::error(
                "malformed_message",
                vec![],
                format!("malformed message: {m}"),
            ),
            ParseError::UnknownType(t) => ServerMessage::error(
                "malformed_message",
                vec![t.clone()],
                format!("unknown message type `{t}` (expected `greeting` or `command`)"),
            ),
            ParseError::UnknownCommand(c) => ServerMessage::error(
                "unknown_command",
                vec![c.clone()],
                format!(
                    "unknown command `{c}`; the greeting lists the commands this server implements"
                ),
            ),
            ParseError::InvalidArguments { command, detail } => ServerMessage::error(
                "invalid_arguments",
                vec![command.clone()],
                format!("`{command}`: {detail}"),
            ),
        }
    }
}

/// Reads one frame's bytes as a client message.
pub fn parse_client(frame: &[u8]) -> Result<ClientMessage, ParseError> {
    let text = std::str::from_utf8(frame)
        .map_err(|e| ParseError::Malformed(format!("not UTF-8 ({e})")))?;
    let mut v: Value =
        serde_json::from_str(text).map_err(|e| ParseError::Malformed(format!("not JSON ({e})")))?;
    let Value::Object(obj) = &mut v else {
        return Err(ParseError::Malformed("not a JSON object".into()));
    };
    let Some(Value::String(ty)) = obj.remove("type") else {
        return Err(ParseError::Malformed("no string field `type`".into()));
    };
    match ty.as_str() {
        "greeting" => {
            let version = match obj.get("version") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Number(n)) => n.to_string(),
                _ => {
                    return Err(ParseError::InvalidArguments {
                        command: "greeting".into(),
                        detail: "no `version`".into(),
                    });
                }
            };
            let commands = match obj.get("commands") {
                None => Vec::new(),
                Some(c) => {
                    serde_json::from_value(c.clone()).map_err(|e| ParseError::InvalidArguments {
                        command: "greeting".into(),
                        detail: format!("`commands` must be a list of strings ({e})"),
                    })?
                }
            };
            let token = match obj.get("token") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(s.clone()),
                Some(_) => {
                    return Err(ParseError::InvalidArguments {
                        command: "greeting".into(),
                        detail: "`token` must be a string".into(),
                    });
                }
            };
            Ok(ClientMessage::Greeting {
                version,
                commands,
                token,
            })
        }
        "command" => {
            let name = match obj.get("command") {
                Some(Value::String(s)) => s.clone(),
                _ => return Err(ParseError::Malformed("no string field `command`".into())),
            };
            if !STANDARD_COMMANDS.contains(&name.as_str())
                && !EXTENSION_COMMANDS.contains(&name.as_str())
            {
                return Err(ParseError::UnknownCommand(name));
            }
            serde_json::from_value::<Command>(v)
                .map(ClientMessage::Command)
                .map_err(|e| ParseError::InvalidArguments {
                    command: name,
                    detail: e.to_string(),
                })
        }
        _ => Err(ParseError::UnknownType(ty)),
    }
}

/// A command as a client sends it (JSON text; for tests).
#[cfg(test)]
pub fn command_json(c: &Command) -> String {
    let mut v = serde_json::to_value(c).unwrap_or(Value::Null);
    if let Value::Object(m) = &mut v {
        m.insert("type".into(), Value::String("command".into()));
    }
    v.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_messages_escape_control_characters() {
        let e = ServerMessage::error(
            "no_item",
            vec!["a\x1b[2Jb".into()],
            "no item `a\x1b[2Jb`\nsee the list",
        );
        let ServerMessage::Error {
            arguments, message, ..
        } = e
        else {
            panic!("an error");
        };
        assert_eq!(arguments, ["a\x1b[2Jb"]);
        assert!(!message.contains('\x1b'), "{message:?}");
        assert!(message.contains("a\\x1b[2Jb"), "{message:?}");
        assert!(message.contains('\n'), "line breaks stay: {message:?}");
    }

    #[test]
    fn greeting_and_commands_parse() {
        let g = parse_client(br#"{"type":"greeting","version":"0","commands":["cursor_moved"]}"#);
        assert_eq!(
            g,
            Ok(ClientMessage::Greeting {
                version: "0".into(),
                commands: vec!["cursor_moved".into()],
                token: None,
            })
        );
        let c = parse_client(br#"{"type":"command","command":"set_cursor","timestamp":12}"#);
        assert_eq!(
            c,
            Ok(ClientMessage::Command(Command::SetCursor { timestamp: 12 }))
        );
        let s = parse_client(br#"{"type":"command","command":"handscope.step"}"#);
        assert_eq!(s, Ok(ClientMessage::Command(Command::Step { cycles: 1 })));
        let b = parse_client(
            br#"{"type":"command","command":"handscope.set_breakpoint","breakpoint":{"kind":"value","channel":"a","op":">","value":3}}"#,
        );
        assert!(matches!(
            b,
            Ok(ClientMessage::Command(Command::SetBreakpoint { .. }))
        ));
    }

    #[test]
    fn every_listed_command_has_a_variant_and_back() {
        // `name()` covers every variant (exhaustive match); every listed name parses to one.
        for name in STANDARD_COMMANDS.iter().chain(EXTENSION_COMMANDS) {
            let r = parse_client(format!(r#"{{"type":"command","command":"{name}"}}"#).as_bytes());
            match r {
                Ok(ClientMessage::Command(c)) => assert_eq!(c.name(), *name),
                Err(ParseError::InvalidArguments { command, .. }) => assert_eq!(command, *name),
                other => panic!("{name}: {other:?}"),
            }
        }
    }

    #[test]
    fn bad_messages_are_classified() {
        assert!(matches!(parse_client(b"{"), Err(ParseError::Malformed(_))));
        assert!(matches!(
            parse_client(b"[1]"),
            Err(ParseError::Malformed(_))
        ));
        assert!(matches!(
            parse_client(&[0xff, 0xfe]),
            Err(ParseError::Malformed(_))
        ));
        assert_eq!(
            parse_client(br#"{"type":"command","command":"fly"}"#),
            Err(ParseError::UnknownCommand("fly".into()))
        );
        assert!(matches!(
            parse_client(br#"{"type":"command","command":"set_cursor","timestamp":"x"}"#),
            Err(ParseError::InvalidArguments { .. })
        ));
        assert!(matches!(
            parse_client(br#"{"type":"command","command":"set_cursor","timestamp":1,"extra":2}"#),
            Err(ParseError::InvalidArguments { .. })
        ));
        assert!(matches!(
            parse_client(br#"{"type":"hello"}"#),
            Err(ParseError::UnknownType(_))
        ));
    }

    #[test]
    fn server_messages_have_the_wire_shape() {
        let ack = serde_json::to_string(&ServerMessage::ack()).unwrap();
        assert_eq!(ack, r#"{"type":"response","command":"ack"}"#);
        let r = ServerMessage::response("get_item_list", serde_json::json!({"ids": ["a"]}));
        assert_eq!(
            serde_json::to_string(&r).unwrap(),
            r#"{"type":"response","command":"get_item_list","ids":["a"]}"#
        );
        let e = ServerMessage::event("cursor_moved", serde_json::json!({"cycle": 3}));
        assert_eq!(
            serde_json::to_string(&e).unwrap(),
            r#"{"type":"event","event":"cursor_moved","cycle":3}"#
        );
        let cmd = command_json(&Command::AddVariables {
            variables: vec!["x".into()],
        });
        assert_eq!(
            parse_client(cmd.as_bytes()),
            Ok(ClientMessage::Command(Command::AddVariables {
                variables: vec!["x".into()]
            }))
        );
    }
}
