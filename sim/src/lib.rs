//! Handscope's graph model and simulation engine.
//!
//! A [`Module`] holds [`Function`]s; a function is a graph of [`Node`]s connected by
//! [`Channel`]s stored in typed arenas. Every node has a stable string ID and every channel a
//! stable name (`<producer id>.<port>`); these are the names every other part of Handscope
//! (DOT, SystemVerilog, VCD, the debugger) uses.

pub mod analysis;
#[cfg(any(test, feature = "bench-support"))]
pub mod bench_support;
pub mod deadlock;
pub mod engine;
pub mod float;
pub mod fuzzing;
pub mod graph;
pub mod input;
pub mod invocation;
pub mod island;
pub mod limits;
pub mod location;
pub mod math_fn;
pub mod ops;
pub mod quote;
pub mod report;
pub mod rtl_names;
pub mod scc;
pub mod schedule;
pub mod session;
pub mod spec;
pub mod stimulus;
pub mod stream;
pub mod throughput;
pub mod trace;
pub mod transform;
pub mod types;
pub mod verify;
pub mod wide;

pub use graph::{
    ArgType, Channel, ChannelId, DuplicateId, FuncArg, FuncResult, Function, Module, NameHint,
    Node, NodeId, PortRef,
};
pub use location::SourceLoc;
pub use ops::{
    ArithClass, ArithOp, ArrayPorts, BufferKind, CmpPredicate, Dialect, DynBufferKind,
    FloatPredicate, LsqAccess, LsqShape, Op, OpKind,
};
pub use types::{FloatKind, MemRefType, Type};
