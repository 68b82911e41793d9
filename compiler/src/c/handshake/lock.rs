//! The function lock: without task pipelining, one invocation at a time.
//!
//! The start token is joined with a token held by a one-slot buffer preloaded with one token
//! (`buffer [1] seq {initValues = [0]}` of type `none`); the `done` result refills the buffer.
//! So invocation `k + 1` enters only once invocation `k` has finished.

use handscope_sim::{BufferKind, Op, Type};

use super::build::Built;
use super::hgraph::Port;

/// Inserts the lock. Returns the new nodes (join, buffer).
pub(crate) fn insert_lock(b: &mut Built) -> [usize; 2] {
    let g = &mut b.g;
    let span = g.nodes[b.ret].span;
    let join = g.add(Op::Join, vec![], vec![Type::None], Some("bb0"), span);
    g.replace_uses(b.start, Port::new(join, 0));
    let done = g.nodes[b.ret].ins[b.done_pos];
    let buf = g.add(
        Op::Buffer {
            slots: 1,
            kind: BufferKind::Seq,
            init: Some(vec![0]),
        },
        vec![done],
        vec![Type::None],
        Some("bb0"),
        span,
    );
    g.nodes[join].ins = vec![b.start, Port::new(buf, 0)];
    g.nodes[join].name = Some("lock.join".into());
    g.nodes[buf].name = Some("lock.buffer".into());
    b.start = Port::new(join, 0);
    [join, buf]
}
