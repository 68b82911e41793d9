//! PNG export of a [`Picture`]: drawn with `vello_cpu`, the rasterizer egui already builds
//! for the window's glyphs, in egui's default fonts (Ubuntu Light, then Hack for what it
//! lacks), so a PNG looks like the window and does not depend on the fonts
//! installed on the machine that draws it.

use std::sync::Arc;

use anyhow::{Result, bail};
use skrifa::instance::{LocationRef, Size};
use skrifa::{FontRef, GlyphId, MetadataProvider};
use vello_cpu::color::{AlphaColor, Srgb};
use vello_cpu::kurbo::{Affine, BezPath, Circle, Rect, RoundedRect, Shape, Stroke};
use vello_cpu::peniko::{Blob, FontData};
use vello_cpu::{Glyph, Pixmap, RenderContext, Resources};

use super::picture::{Picture, baseline, text_box};
use super::scene::{Anchor, Item};
use super::style::Rgba;

/// Most pixels of a PNG export: 2^26 (8192 x 8192, 256 MiB of RGBA); `render --scale 100` of
/// a graph asked for 27 GB and aborted.
pub const MAX_PNG_PIXELS: u64 = 1 << 26;

/// Longest side of a PNG export, in pixels (the rasterizer's limit).
pub const MAX_PNG_SIDE: u32 = u16::MAX as u32;

/// Accuracy of curves flattened for drawing, in document units.
const TOLERANCE: f64 = 0.05;

/// Draws `pic` at `scale` pixels a document unit and encodes it as PNG. Fails, before
/// allocating, for a scale that is not a positive number or an image over
/// [`MAX_PNG_PIXELS`] or [`MAX_PNG_SIDE`].
pub fn to_png(pic: &Picture, scale: f32) -> Result<Vec<u8>> {
    let (w, h) = pixel_size(pic.size, scale)?;
    let mut ctx = RenderContext::new(w, h);
    ctx.set_transform(Affine::scale(f64::from(scale)));
    let mut resources = Resources::new();
    let fonts = Fonts::default_fonts();
    ctx.set_paint(color(pic.background));
    ctx.fill_rect(&Rect::new(
        0.0,
        0.0,
        f64::from(pic.size[0]),
        f64::from(pic.size[1]),
    ));
    for it in &pic.items {
        draw(&mut ctx, &mut resources, &fonts, it);
    }
    ctx.flush();
    let mut pixmap = Pixmap::new(w, h);
    ctx.render(&mut pixmap, &mut resources);
    Ok(pixmap.into_png()?)
}

/// The pixel size of a picture of `size` document units at `scale`, or why it cannot be drawn.
fn pixel_size(size: [f32; 2], scale: f32) -> Result<(u16, u16)> {
    if !(scale.is_finite() && scale > 0.0) {
        bail!("--scale {scale}: the PNG scale must be a positive number");
    }
    let (w, h) = (
        (f64::from(size[0]) * f64::from(scale)).ceil().max(1.0),
        (f64::from(size[1]) * f64::from(scale)).ceil().max(1.0),
    );
    let area = f64::from(size[0]) * f64::from(size[1]);
    if w * h > MAX_PNG_PIXELS as f64 {
        let fit = (MAX_PNG_PIXELS as f64 / area).sqrt();
        bail!(
            "--scale {scale}: the PNG would be {w:.0} x {h:.0} pixels, over the limit of \
             {MAX_PNG_PIXELS} pixels; use --scale {:.2} or less, or write an SVG",
            (fit * 100.0).floor() / 100.0
        );
    }
    let side = w.max(h);
    if side > f64::from(MAX_PNG_SIDE) {
        let fit = f64::from(MAX_PNG_SIDE) / f64::from(size[0].max(size[1]));
        bail!(
            "--scale {scale}: the PNG would be {w:.0} x {h:.0} pixels, over the limit of \
             {MAX_PNG_SIDE} pixels a side; use --scale {:.2} or less, or write an SVG",
            (fit * 100.0).floor() / 100.0
        );
    }
    Ok((w as u16, h as u16))
}

fn color(c: Rgba) -> AlphaColor<Srgb> {
    AlphaColor::from_rgba8(c.0, c.1, c.2, c.3)
}

fn point(p: [f32; 2]) -> (f64, f64) {
    (f64::from(p[0]), f64::from(p[1]))
}

fn draw(ctx: &mut RenderContext, resources: &mut Resources, fonts: &Fonts, it: &Item) {
    match it {
        Item::Rect {
            min,
            max,
            fill,
            stroke,
            width,
            radius,
        } => {
            let r = RoundedRect::from_points(point(*min), point(*max), f64::from(*radius));
            let path = r.to_path(TOLERANCE);
            ctx.set_paint(color(*fill));
            ctx.fill_path(&path);
            if *width > 0.0 {
                ctx.set_stroke(Stroke::new(f64::from(*width)));
                ctx.set_paint(color(*stroke));
                ctx.stroke_path(&path);
            }
        }
        Item::Curve {
            points,
            color: c,
            width,
            dashed,
        } => {
            let Some(first) = points.first() else { return };
            let mut path = BezPath::new();
            path.move_to(point(*first));
            for seg in points[1..].chunks_exact(3) {
                path.curve_to(point(seg[0]), point(seg[1]), point(seg[2]));
            }
            let mut st = Stroke::new(f64::from(*width));
            if *dashed {
                st = st.with_dashes(0.0, [6.0, 4.0]);
            }
            ctx.set_stroke(st);
            ctx.set_paint(color(*c));
            ctx.stroke_path(&path);
        }
        Item::Poly { points, fill } => {
            let Some(first) = points.first() else { return };
            let mut path = BezPath::new();
            path.move_to(point(*first));
            for p in &points[1..] {
                path.line_to(point(*p));
            }
            path.close_path();
            ctx.set_paint(color(*fill));
            ctx.fill_path(&path);
        }
        Item::Circle {
            center,
            r,
            fill,
            stroke,
        } => {
            let path = Circle::new(point(*center), f64::from(*r)).to_path(TOLERANCE);
            ctx.set_paint(color(*fill));
            ctx.fill_path(&path);
            ctx.set_stroke(Stroke::new(0.8));
            ctx.set_paint(color(*stroke));
            ctx.stroke_path(&path);
        }
        Item::Text {
            pos,
            text,
            size,
            color: c,
            anchor,
            bg,
        } => {
            if let Some(bg) = bg {
                let (lo, hi) = text_box(*pos, text, *size, *anchor);
                let r = RoundedRect::from_points(point(lo), point(hi), 2.0);
                ctx.set_paint(color(*bg));
                ctx.fill_path(&r.to_path(TOLERANCE));
            }
            let runs = fonts.shape(text, *size);
            let width: f32 = runs.iter().map(|r| r.advance).sum();
            let mut x = match anchor {
                Anchor::Center => pos[0] - width / 2.0,
                Anchor::Left => pos[0],
            };
            let y = baseline(*pos, *size);
            ctx.set_paint(color(*c));
            for run in runs {
                let face = &fonts.faces[run.face];
                let glyphs: Vec<Glyph> = run
                    .glyphs
                    .iter()
                    .map(|&(id, dx)| Glyph {
                        id: id.to_u32(),
                        x: x + dx,
                        y,
                    })
                    .collect();
                ctx.glyph_run(resources, &face.data)
                    .font_size(*size)
                    .hint(false)
                    .fill_glyphs(glyphs.into_iter());
                x += run.advance;
            }
        }
    }
}

/// One font: its tables for mapping characters, and its bytes for the rasterizer.
struct Face {
    font: FontRef<'static>,
    data: FontData,
}

/// The fonts text is set in, first choice first.
struct Fonts {
    faces: Vec<Face>,
}

/// Glyphs of one face in a line of text: the glyphs with their offsets from the run's start,
/// and the run's advance.
struct Run {
    face: usize,
    glyphs: Vec<(GlyphId, f32)>,
    advance: f32,
}

impl Fonts {
    /// egui's default fonts: Ubuntu Light, then Hack (arrows, box drawing, more symbols).
    fn default_fonts() -> Fonts {
        let faces = [
            epaint_default_fonts::UBUNTU_LIGHT,
            epaint_default_fonts::HACK_REGULAR,
        ]
        .into_iter()
        .filter_map(|bytes: &'static [u8]| {
            Some(Face {
                font: FontRef::new(bytes).ok()?,
                data: FontData::new(Blob::new(Arc::new(bytes)), 0),
            })
        })
        .collect();
        Fonts { faces }
    }

    /// Sets `text` at `size`: each character in the first face that has it (the first face's
    /// missing-glyph box when none has), advancing by the face's advance width.
    fn shape(&self, text: &str, size: f32) -> Vec<Run> {
        let mut runs: Vec<Run> = Vec::new();
        for ch in text.chars() {
            let (face, id) = self
                .faces
                .iter()
                .enumerate()
                .find_map(|(i, f)| f.font.charmap().map(ch).map(|g| (i, g)))
                .unwrap_or((0, GlyphId::NOTDEF));
            let Some(f) = self.faces.get(face) else {
                continue;
            };
            let advance = f
                .font
                .glyph_metrics(Size::new(size), LocationRef::default())
                .advance_width(id)
                .unwrap_or(size * 0.5);
            match runs.last_mut() {
                Some(run) if run.face == face => {
                    run.glyphs.push((id, run.advance));
                    run.advance += advance;
                }
                _ => runs.push(Run {
                    face,
                    glyphs: vec![(id, 0.0)],
                    advance,
                }),
            }
        }
        runs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::picture::Caption;
    use crate::app::scene::Scene;

    fn decode(png: &[u8]) -> (u32, u32, Vec<u8>) {
        let pm = Pixmap::from_png(std::io::Cursor::new(png)).unwrap();
        let data = pm
            .take_unpremultiplied()
            .into_iter()
            .flat_map(|p| [p.r, p.g, p.b, p.a])
            .collect();
        let pm = Pixmap::from_png(std::io::Cursor::new(png)).unwrap();
        (u32::from(pm.width()), u32::from(pm.height()), data)
    }

    fn pixel(img: &(u32, u32, Vec<u8>), x: u32, y: u32) -> [u8; 4] {
        let i = 4 * (y * img.0 + x) as usize;
        img.2[i..i + 4].try_into().unwrap()
    }

    /// Shapes land where the picture puts them, in their colours, at the asked scale; text is
    /// drawn (dark pixels under the title) in a font that needs nothing from the system.
    #[test]
    fn shapes_and_text_are_drawn_where_the_picture_puts_them() {
        let scene = Scene {
            size: [100.0, 60.0],
            background: Rgba::hex(0xffffff),
            items: vec![
                Item::Rect {
                    min: [0.0, 0.0],
                    max: [40.0, 20.0],
                    fill: Rgba::hex(0x2ca02c),
                    stroke: Rgba::hex(0),
                    width: 0.0,
                    radius: 0.0,
                },
                Item::Circle {
                    center: [80.0, 40.0],
                    r: 8.0,
                    fill: Rgba::hex(0x1f77b4),
                    stroke: Rgba::hex(0x1f77b4),
                },
            ],
        };
        let caption = Caption {
            title: "HHHHHHHHHH".into(),
            legend: Vec::new(),
            color: Some(Rgba::hex(0)),
        };
        let pic = Picture::new(&scene, &caption);
        let img = decode(&to_png(&pic, 2.0).unwrap());
        assert_eq!((img.0, img.1), (240, 240));
        // The rectangle: document (10..50, 50..70), pixels doubled.
        assert_eq!(pixel(&img, 60, 120), [0x2c, 0xa0, 0x2c, 255]);
        // The circle's centre: document (90, 90).
        assert_eq!(pixel(&img, 180, 180), [0x1f, 0x77, 0xb4, 255]);
        // The background.
        assert_eq!(pixel(&img, 230, 110), [255, 255, 255, 255]);
        // The title: a row of Hs from x = 10 at 13 units; some pixels on its line are dark.
        let dark = (20..200)
            .flat_map(|x| (12..30).map(move |y| (x, y)))
            .filter(|&(x, y)| pixel(&img, x, y)[0] < 96)
            .count();
        assert!(dark > 100, "{dark} dark pixels under the title");
    }

    /// Centred text is centred on its anchor by the font's own advances.
    #[test]
    fn centred_text_is_centred_by_the_fonts_advances() {
        let fonts = Fonts::default_fonts();
        let runs = fonts.shape("join0", 10.0);
        let width: f32 = runs.iter().map(|r| r.advance).sum();
        assert!((15.0..35.0).contains(&width), "{width}");
        assert_eq!(runs.len(), 1, "Ubuntu has every letter");
        assert!(runs[0].glyphs.iter().all(|(g, _)| *g != GlyphId::NOTDEF));
    }

    /// Scales that are not positive numbers, or that would make an enormous image, are refused
    /// with the scale that fits.
    #[test]
    fn unusable_scales_are_refused_before_drawing() {
        for bad in [0.0, -1.0, f32::NAN, f32::INFINITY] {
            let e = pixel_size([100.0, 100.0], bad).unwrap_err().to_string();
            assert!(e.contains("positive number"), "{e}");
        }
        let e = pixel_size([1000.0, 1000.0], 100.0).unwrap_err().to_string();
        assert!(e.contains("use --scale 8.19 or less"), "{e}");
        let e = pixel_size([70000.0, 10.0], 1.0).unwrap_err().to_string();
        assert!(e.contains("pixels a side"), "{e}");
        assert_eq!(pixel_size([100.5, 20.0], 1.0).unwrap(), (101, 20));
    }
}
