//! SVG export of a [`Picture`], for `handscope render`, the app's export button and snapshot
//! tests.

use std::fmt::Write as _;

use super::picture::{Picture, baseline, text_box};
use super::scene::{Anchor, Item};
use super::style::Rgba;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn paint(c: Rgba) -> String {
    if c.3 == 255 {
        c.css()
    } else {
        format!("{}\" fill-opacity=\"{:.3}", c.css(), c.alpha())
    }
}

fn stroke(c: Rgba) -> String {
    if c.3 == 255 {
        c.css()
    } else {
        format!("{}\" stroke-opacity=\"{:.3}", c.css(), c.alpha())
    }
}

/// Writes `pic` as a standalone SVG document.
pub fn to_svg(pic: &Picture) -> String {
    let [w, h] = pic.size;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"Ubuntu, DejaVu Sans, Helvetica, Arial, sans-serif\">"
    );
    let _ = writeln!(
        s,
        "<rect x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\" fill=\"{}\"/>",
        paint(pic.background)
    );
    for it in &pic.items {
        item(&mut s, it);
    }
    s.push_str("</svg>\n");
    s
}

fn item(s: &mut String, it: &Item) {
    match it {
        Item::Rect {
            min,
            max,
            fill,
            stroke: st,
            width,
            radius,
        } => {
            let _ = writeln!(
                s,
                "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"{radius}\" fill=\"{}\" stroke=\"{}\" stroke-width=\"{width}\"/>",
                min[0],
                min[1],
                max[0] - min[0],
                max[1] - min[1],
                paint(*fill),
                if *width > 0.0 {
                    stroke(*st)
                } else {
                    "none".into()
                }
            );
        }
        Item::Curve {
            points,
            color,
            width,
            dashed,
        } => {
            let mut d = format!("M{:.1},{:.1}", points[0][0], points[0][1]);
            for c in points[1..].chunks(3) {
                if c.len() == 3 {
                    let _ = write!(
                        d,
                        " C{:.1},{:.1} {:.1},{:.1} {:.1},{:.1}",
                        c[0][0], c[0][1], c[1][0], c[1][1], c[2][0], c[2][1]
                    );
                }
            }
            let dash = if *dashed {
                " stroke-dasharray=\"6,4\""
            } else {
                ""
            };
            let _ = writeln!(
                s,
                "<path d=\"{d}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{width:.1}\"{dash}/>",
                stroke(*color)
            );
        }
        Item::Poly { points, fill } => {
            let pts: Vec<String> = points
                .iter()
                .map(|p| format!("{:.1},{:.1}", p[0], p[1]))
                .collect();
            let _ = writeln!(
                s,
                "<polygon points=\"{}\" fill=\"{}\"/>",
                pts.join(" "),
                paint(*fill)
            );
        }
        Item::Circle {
            center,
            r,
            fill,
            stroke: st,
        } => {
            let _ = writeln!(
                s,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"{r}\" fill=\"{}\" stroke=\"{}\" stroke-width=\"0.8\"/>",
                center[0],
                center[1],
                paint(*fill),
                stroke(*st)
            );
        }
        Item::Text {
            pos,
            text,
            size,
            color,
            anchor,
            bg,
        } => {
            if let Some(bg) = bg {
                let (lo, hi) = text_box(*pos, text, *size, *anchor);
                let _ = writeln!(
                    s,
                    "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"2\" fill=\"{}\"/>",
                    lo[0],
                    lo[1],
                    hi[0] - lo[0],
                    hi[1] - lo[1],
                    paint(*bg)
                );
            }
            let a = match anchor {
                Anchor::Center => "middle",
                Anchor::Left => "start",
            };
            let _ = writeln!(
                s,
                "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"{size}\" text-anchor=\"{a}\" fill=\"{}\">{}</text>",
                pos[0],
                baseline(*pos, *size),
                paint(*color),
                esc(text)
            );
        }
    }
}
