//! SVG export of a [`Scene`] and PNG rasterization of that SVG (`resvg`), for `handscope
//! render`, the app's export button and snapshot tests.

use std::fmt::Write as _;

use super::scene::{Anchor, Item, Scene};
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

/// Extra lines written under the drawing (title, cycle, legend).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Caption {
    /// Title line.
    pub title: String,
    /// Legend entries: colour and name.
    pub legend: Vec<(Rgba, String)>,
    /// Text colour.
    pub color: Option<Rgba>,
}

const CAPTION_H: f32 = 40.0;

/// Horizontal space of one legend entry (swatch, gap, name at 10 px).
fn legend_step(name: &str) -> f32 {
    30.0 + name.chars().count() as f32 * 6.5
}

/// The width the caption needs: the title at 13 px (about 7.5 px a character, generous for
/// proportional fonts) or the legend's entries, whichever is wider, with the margins.
fn caption_width(caption: &Caption) -> f32 {
    let title = 20.0 + caption.title.chars().count() as f32 * 7.5;
    let legend = 20.0
        + caption
            .legend
            .iter()
            .map(|(_, n)| legend_step(n))
            .sum::<f32>();
    title.max(legend)
}

/// Writes `scene` as a standalone SVG document.
pub fn to_svg(scene: &Scene, caption: &Caption) -> String {
    // The document is as wide as the widest of the drawing, the title and the legend, so a
    // small graph does not cut its caption off.
    let (w, h) = (
        (scene.size[0].ceil() + 20.0)
            .max(caption_width(caption))
            .ceil(),
        scene.size[1].ceil() + 20.0 + CAPTION_H,
    );
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">"
    );
    let _ = writeln!(
        s,
        "<rect x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\" fill=\"{}\"/>",
        paint(scene.background)
    );
    let tc = caption.color.unwrap_or(Rgba::hex(0x111111));
    let _ = writeln!(
        s,
        "<text x=\"10\" y=\"18\" font-size=\"13\" fill=\"{}\">{}</text>",
        paint(tc),
        esc(&caption.title)
    );
    let mut x = 10.0;
    for (c, name) in &caption.legend {
        let _ = writeln!(
            s,
            "<rect x=\"{x}\" y=\"26\" width=\"18\" height=\"6\" fill=\"{}\"/>",
            paint(*c)
        );
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"33\" font-size=\"10\" fill=\"{}\">{}</text>",
            x + 22.0,
            paint(tc),
            esc(name)
        );
        x += legend_step(name);
    }
    let _ = writeln!(s, "<g transform=\"translate(10,{})\">", 10.0 + CAPTION_H);
    for it in &scene.items {
        item(&mut s, it);
    }
    s.push_str("</g>\n</svg>\n");
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
                let w = text.chars().count() as f32 * size * 0.62 + 4.0;
                let x = match anchor {
                    Anchor::Center => pos[0] - w / 2.0,
                    Anchor::Left => pos[0] - 2.0,
                };
                let _ = writeln!(
                    s,
                    "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"{:.1}\" rx=\"2\" fill=\"{}\"/>",
                    pos[1] - size * 0.65,
                    size * 1.3,
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
                pos[1] + size * 0.35,
                paint(*color),
                esc(text)
            );
        }
    }
}

/// Most pixels of a PNG export: 2^26 (8192 x 8192, 256 MiB of RGBA); `render --scale 100` of
/// a graph asked for 27 GB and aborted.
pub const MAX_PNG_PIXELS: u64 = 1 << 26;

/// Rasterizes an SVG document to PNG bytes at `scale` (system fonts are used for text).
/// Fails, before allocating, for a scale that is not a positive number or an image over
/// [`MAX_PNG_PIXELS`].
pub fn svg_to_png(svg: &str, scale: f32) -> anyhow::Result<Vec<u8>> {
    if !(scale.is_finite() && scale > 0.0) {
        anyhow::bail!("--scale {scale}: the PNG scale must be a positive number");
    }
    let mut opt = resvg::usvg::Options::default();
    opt.fontdb_mut().load_system_fonts();
    let tree = resvg::usvg::Tree::from_str(svg, &opt)?;
    let (w, h) = (tree.size().width(), tree.size().height());
    let pixels = f64::from(w) * f64::from(scale) * f64::from(h) * f64::from(scale);
    if pixels > MAX_PNG_PIXELS as f64 {
        let fit = (MAX_PNG_PIXELS as f64 / (f64::from(w) * f64::from(h))).sqrt();
        anyhow::bail!(
            "--scale {scale}: the PNG would be {:.0} x {:.0} pixels, over the limit of {} pixels; \
             use --scale {:.2} or less, or write an SVG",
            f64::from(w) * f64::from(scale),
            f64::from(h) * f64::from(scale),
            MAX_PNG_PIXELS,
            (fit * 100.0).floor() / 100.0
        );
    }
    let size = tree
        .size()
        .to_int_size()
        .scale_by(scale)
        .ok_or_else(|| anyhow::anyhow!("image too large"))?;
    let mut pm = resvg::tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or_else(|| anyhow::anyhow!("image too large"))?;
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::from_scale(scale, scale),
        &mut pm.as_mut(),
    );
    Ok(pm.encode_png()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small drawing under a long title and a legend: the document is wide enough for both
    /// (a rendered deadlock example cut its title and the legend's `idle` off).
    #[test]
    fn caption_is_never_cut_off() {
        let scene = Scene {
            size: [180.0, 120.0],
            background: Rgba::hex(0xffffff),
            items: Vec::new(),
        };
        let title =
            "deadlock_join.mlir @deadlock_join — cycle 3 — 0 transfers — deadlocked since cycle 1";
        let legend: Vec<(Rgba, String)> = ["transfer", "stall", "accept", "idle"]
            .iter()
            .map(|n| (Rgba::hex(0x888888), n.to_string()))
            .collect();
        let caption = Caption {
            title: title.into(),
            legend,
            color: None,
        };
        let svg = to_svg(&scene, &caption);
        let width: f32 = svg
            .split("width=\"")
            .nth(1)
            .and_then(|r| r.split('"').next())
            .and_then(|w| w.parse().ok())
            .unwrap();
        assert!(
            width >= 10.0 + title.chars().count() as f32 * 7.0,
            "{width}"
        );
        let legend_end: f32 = 10.0
            + caption
                .legend
                .iter()
                .map(|(_, n)| legend_step(n))
                .sum::<f32>();
        assert!(width >= legend_end, "{width} < {legend_end}");
        // A wide drawing keeps its own width.
        let wide = Scene {
            size: [2000.0, 100.0],
            ..scene
        };
        assert!(to_svg(&wide, &caption).contains("width=\"2020\""));
    }
}
