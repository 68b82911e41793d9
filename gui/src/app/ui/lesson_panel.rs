//! The lesson panel: the step's text, its question and answer, and the way to the previous and
//! next steps.

use crate::app::model::Model;

/// Draws the panel of the open lesson (nothing without one).
pub fn show(ui: &mut egui::Ui, m: &mut Model) {
    let Some(l) = m.lesson.clone() else {
        return;
    };
    let step = l.current();
    ui.heading(format!("Lesson: {}", l.named.lesson.title));
    let mut go = None;
    ui.horizontal(|ui| {
        if ui
            .add_enabled(l.step > 0, egui::Button::new("< Previous step"))
            .on_hover_text("N")
            .clicked()
        {
            go = Some(-1);
        }
        ui.label(format!("step {} of {}", l.step + 1, l.len()));
        if ui
            .add_enabled(l.step + 1 < l.len(), egui::Button::new("Next step >"))
            .on_hover_text("n")
            .clicked()
        {
            go = Some(1);
        }
        if ui.small_button("close").clicked() {
            go = Some(0);
        }
    });
    ui.strong(format!(
        "{} (cycle {}, {})",
        step.title, step.cycle, step.file
    ));
    for para in step.text.trim().split("\n\n") {
        let para = para.split_whitespace().collect::<Vec<_>>().join(" ");
        ui.add(egui::Label::new(para).wrap());
    }
    if m.cycle != step.cycle
        && ui
            .small_button(format!("back to cycle {}", step.cycle))
            .clicked()
    {
        m.goto(step.cycle);
    }
    if let Some(q) = &step.question {
        ui.add_space(4.0);
        ui.add(egui::Label::new(egui::RichText::new(format!("Question: {q}")).italics()).wrap());
        if let Some(a) = &step.answer {
            if l.show_answer {
                ui.add(
                    egui::Label::new(
                        egui::RichText::new(format!("Answer: {}", a.sentence(step.cycle)))
                            .color(m.look.palette().chan[0].egui()),
                    )
                    .wrap(),
                );
            } else if ui.button("Show the answer").clicked()
                && let Some(v) = &mut m.lesson
            {
                v.show_answer = true;
            }
        }
    }
    match go {
        Some(0) => m.close_lesson(),
        Some(d) => m.lesson_move(d),
        None => {}
    }
    ui.separator();
}
