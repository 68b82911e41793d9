//! `handscope lesson`: open the debugger on a guided lesson, list the lessons, or check them.

use std::process::ExitCode;

use crate::app::model::Start;
use crate::lessons;

/// Arguments of `handscope lesson`.
#[derive(clap::Args, Debug)]
pub struct LessonArgs {
    /// The lesson: a built-in one by name (`handshake`, `01-handshake`) or a `.toml` file.
    pub name: Option<String>,
    /// Check instead of opening: every step's circuit compiles, its cycle and highlighted IDs
    /// exist, and its expected answer holds when simulated (all built-in lessons unless NAME).
    #[arg(long)]
    pub check: bool,
    /// List the built-in lessons.
    #[arg(long, conflicts_with = "check")]
    pub list: bool,
    /// The step to open (1-based).
    #[arg(long, default_value_t = 1)]
    pub step: usize,
}

/// Runs `handscope lesson`.
pub fn run(a: &LessonArgs) -> anyhow::Result<ExitCode> {
    if a.list {
        for b in lessons::BUILTIN {
            let l = lessons::find(b.name)?;
            outln!(
                "{:<28} {} ({} steps)",
                b.name,
                l.lesson.title,
                l.lesson.steps.len()
            )?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    if a.check {
        let set = match &a.name {
            Some(n) => vec![lessons::find(n)?],
            None => lessons::all()?,
        };
        let mut problems = Vec::new();
        let (mut steps, mut answers) = (0, 0);
        for l in &set {
            steps += l.lesson.steps.len();
            answers += l.lesson.steps.iter().filter(|s| s.answer.is_some()).count();
            problems.extend(lessons::check::check_lesson(l));
        }
        for p in &problems {
            eprintln!("error: {p}");
        }
        if !problems.is_empty() {
            eprintln!("{} problem(s) in {} lesson(s)", problems.len(), set.len());
            return Ok(ExitCode::from(crate::exit::ERROR));
        }
        outln!(
            "ok: {} lessons, {steps} steps, {answers} expected answers hold",
            set.len()
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    let Some(name) = &a.name else {
        anyhow::bail!(
            "name a lesson (`handscope lesson --list` lists them), or give --check or --list"
        );
    };
    let l = lessons::find(name)?;
    let n = l.lesson.steps.len();
    if a.step == 0 || a.step > n {
        anyhow::bail!(
            "{}: --step {} is not one of its steps 1 to {n}",
            l.origin,
            a.step
        );
    }
    Ok(crate::app::run(
        Start::Lesson(Box::new(l), a.step - 1),
        None,
        None,
        None,
    ))
}
