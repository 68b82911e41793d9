//! The exported picture: a [`Scene`] under its caption (title and legend), laid out once so
//! the SVG writer ([`super::svg`]) and the PNG rasterizer ([`super::png`]) draw the same thing.

use super::layout::P2;
use super::scene::{Anchor, Item, Scene};
use super::style::Rgba;

/// Extra lines written above the drawing (title, cycle, legend).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Caption {
    /// Title line.
    pub title: String,
    /// Legend entries: colour and name.
    pub legend: Vec<(Rgba, String)>,
    /// Text colour.
    pub color: Option<Rgba>,
}

/// Height of the caption band above the drawing.
const CAPTION_H: f32 = 40.0;
/// Margin around the drawing.
const MARGIN: f32 = 10.0;

/// Horizontal space of one legend entry (swatch, gap, name at 10 px).
pub(crate) fn legend_step(name: &str) -> f32 {
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

/// A whole exported picture in document coordinates: its size, background and items in
/// painting order (the caption's, then the drawing's, moved below the caption).
#[derive(Clone, Debug, PartialEq)]
pub struct Picture {
    /// Width and height in document units (CSS pixels at scale 1).
    pub size: P2,
    /// Background colour, painted over the whole picture.
    pub background: Rgba,
    /// Items in painting order.
    pub items: Vec<Item>,
}

impl Picture {
    /// Lays out `caption` above `scene`. The picture is as wide as the widest of the drawing,
    /// the title and the legend, so a small graph does not cut its caption off.
    pub fn new(scene: &Scene, caption: &Caption) -> Picture {
        let size = [
            (scene.size[0].ceil() + 2.0 * MARGIN)
                .max(caption_width(caption))
                .ceil(),
            scene.size[1].ceil() + 2.0 * MARGIN + CAPTION_H,
        ];
        let text = caption.color.unwrap_or(Rgba::hex(0x111111));
        let mut items = vec![Item::Text {
            pos: [MARGIN, 13.5],
            text: caption.title.clone(),
            size: 13.0,
            color: text,
            anchor: Anchor::Left,
            bg: None,
        }];
        let mut x = MARGIN;
        for (c, name) in &caption.legend {
            items.push(Item::Rect {
                min: [x, 26.0],
                max: [x + 18.0, 32.0],
                fill: *c,
                stroke: *c,
                width: 0.0,
                radius: 0.0,
            });
            items.push(Item::Text {
                pos: [x + 22.0, 29.5],
                text: name.clone(),
                size: 10.0,
                color: text,
                anchor: Anchor::Left,
                bg: None,
            });
            x += legend_step(name);
        }
        let offset = [MARGIN, MARGIN + CAPTION_H];
        items.extend(scene.items.iter().map(|it| moved(it, offset)));
        Picture {
            size,
            background: scene.background,
            items,
        }
    }
}

/// `it` moved by `d`.
fn moved(it: &Item, d: P2) -> Item {
    let p = |q: &P2| [q[0] + d[0], q[1] + d[1]];
    let mut it = it.clone();
    match &mut it {
        Item::Rect { min, max, .. } => {
            *min = p(min);
            *max = p(max);
        }
        Item::Curve { points, .. } | Item::Poly { points, .. } => {
            for q in points.iter_mut() {
                *q = p(q);
            }
        }
        Item::Circle { center, .. } => *center = p(center),
        Item::Text { pos, .. } => *pos = p(pos),
    }
    it
}

/// The box behind a text label with a background: about 0.62 em a character, 1.3 em tall,
/// centred on the text's line.
pub(crate) fn text_box(pos: P2, text: &str, size: f32, anchor: Anchor) -> (P2, P2) {
    let w = text.chars().count() as f32 * size * 0.62 + 4.0;
    let x = match anchor {
        Anchor::Center => pos[0] - w / 2.0,
        Anchor::Left => pos[0] - 2.0,
    };
    let y = pos[1] - size * 0.65;
    ([x, y], [x + w, y + size * 1.3])
}

/// The baseline of a text label whose line is centred on `pos[1]`.
pub(crate) fn baseline(pos: P2, size: f32) -> f32 {
    pos[1] + size * 0.35
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small drawing under a long title and a legend: the picture is wide enough for both
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
        let width = Picture::new(&scene, &caption).size[0];
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
        assert_eq!(Picture::new(&wide, &caption).size[0], 2020.0);
    }

    /// The drawing's items sit below the caption, moved by the margin and the caption band.
    #[test]
    fn the_drawing_sits_below_the_caption() {
        let scene = Scene {
            size: [100.0, 50.0],
            background: Rgba::hex(0xffffff),
            items: vec![Item::Circle {
                center: [5.0, 6.0],
                r: 2.0,
                fill: Rgba::hex(0),
                stroke: Rgba::hex(0),
            }],
        };
        let pic = Picture::new(&scene, &Caption::default());
        assert_eq!(pic.size, [120.0, 110.0]);
        assert_eq!(
            pic.items.last(),
            Some(&Item::Circle {
                center: [15.0, 56.0],
                r: 2.0,
                fill: Rgba::hex(0),
                stroke: Rgba::hex(0),
            })
        );
    }
}
