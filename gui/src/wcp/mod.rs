//! The Waveform Control Protocol (WCP): JSON messages over TCP, each ended by a NUL byte, as
//! Surfer speaks it. Handscope is a WCP server (`handscope serve`, `handscope gui --wcp`):
//! items are channels and nodes by stable ID, the cursor and markers are cycles, and
//! `handscope.*` commands step, run to breakpoints and read values and reports. It is also a
//! WCP client of Surfer ([`surfer`]). The protocol subset and the extensions are described in
//! `docs/wcp.md`.
//!
//! One job per module: [`proto`] the messages, [`codec`] the framing, [`server`] the sockets
//! (tokio, in a thread), [`hub`] the meeting point with the debugger's model, [`dispatch`]
//! what each command does to the model, [`surfer`] the client side.

pub mod codec;
pub mod dispatch;
pub mod gate;
pub mod hub;
pub mod proto;
pub mod server;
pub mod surfer;
