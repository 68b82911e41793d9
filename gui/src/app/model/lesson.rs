//! Following a lesson in the debugger: the lesson, the step on screen, and moving between
//! steps (loading the step's circuit when it differs, going to its cycle, highlighting).

use std::sync::Arc;

use handscope_sim::{ChannelId, NodeId};

use super::Model;
use crate::app::describe::Selection;
use crate::lessons::{self, Named, Step};

/// The lesson on screen.
#[derive(Clone, Debug)]
pub struct LessonView {
    /// The lesson.
    pub named: Arc<Named>,
    /// The step shown (0-based).
    pub step: usize,
    /// The reader asked for the answer of this step.
    pub show_answer: bool,
    /// Nodes the step highlights.
    pub nodes: Vec<NodeId>,
    /// Channels the step highlights.
    pub channels: Vec<ChannelId>,
    /// The circuit key ([`lessons::circuit_key`]) of the loaded circuit.
    key: Option<String>,
}

impl LessonView {
    /// The step shown.
    pub fn current(&self) -> &Step {
        &self.named.lesson.steps[self.step]
    }

    /// Number of steps.
    pub fn len(&self) -> usize {
        self.named.lesson.steps.len()
    }
}

impl Model {
    /// Opens lesson `named` at step `step` (0-based).
    pub fn open_lesson(&mut self, named: Named, step: usize) {
        self.watcher = None;
        self.vcd = None;
        self.lesson = Some(LessonView {
            named: Arc::new(named),
            step: 0,
            show_answer: false,
            nodes: Vec::new(),
            channels: Vec::new(),
            key: None,
        });
        self.lesson_step(step);
    }

    /// Closes the lesson panel (the circuit stays).
    pub fn close_lesson(&mut self) {
        self.lesson = None;
        self.scene = None;
    }

    /// Moves by `delta` steps in the open lesson (clamped to its steps).
    pub fn lesson_move(&mut self, delta: i64) {
        if let Some(l) = &self.lesson {
            let to = (l.step as i64 + delta).clamp(0, l.len() as i64 - 1) as usize;
            if to != l.step {
                self.lesson_step(to);
            }
        }
    }

    /// Shows step `i` of the open lesson: loads its circuit when it differs from the one on
    /// screen, goes to its cycle, highlights and selects what it names.
    pub fn lesson_step(&mut self, i: usize) {
        let Some(mut l) = self.lesson.take() else {
            return;
        };
        l.step = i.min(l.len() - 1);
        l.show_answer = false;
        let step = l.current().clone();
        let key = lessons::circuit_key(&step);
        if l.key.as_deref() != Some(key.as_str()) {
            match lessons::step_circuit(&step) {
                Ok(c) => {
                    self.install(c, false);
                    l.key = Some(key);
                }
                Err(e) => {
                    self.error = Some(format!("{}: step {}: {e:#}", l.named.origin, l.step + 1));
                    l.key = None;
                }
            }
        }
        l.nodes.clear();
        l.channels.clear();
        if let Some(c) = &self.circuit {
            for h in &step.highlight {
                if let Some(n) = c.func.node_by_id(h) {
                    l.nodes.push(n);
                } else if let Some(ch) = c.func.channel_by_name(h) {
                    l.channels.push(ch);
                }
            }
        }
        let sel = l
            .nodes
            .first()
            .map(|&n| Selection::Node(n))
            .or(l.channels.first().map(|&c| Selection::Channel(c)));
        self.playing = false;
        self.goto(step.cycle);
        self.status = format!("lesson step {} of {}", l.step + 1, l.len());
        for &c in &l.channels {
            if !self.waves.contains(&c) {
                self.waves.push(c);
            }
        }
        self.lesson = Some(l);
        self.select(sel);
        if let Some(Selection::Node(n)) = sel {
            self.focus = Some(n);
        }
        self.scene = None;
    }
}
