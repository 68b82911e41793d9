//! Colours, themes and value formatting shared by the window and the SVG export, so both draw
//! the same picture.

use handscope_sim::Type;
use handscope_sim::report::signed_value;

/// An RGBA colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rgba(pub u8, pub u8, pub u8, pub u8);

impl Rgba {
    /// Opaque colour from `0xRRGGBB`.
    pub const fn hex(x: u32) -> Rgba {
        Rgba((x >> 16) as u8, (x >> 8) as u8, x as u8, 255)
    }

    /// `#rrggbb` for SVG.
    pub fn css(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }

    /// Opacity in `0..=1`.
    pub fn alpha(self) -> f32 {
        f32::from(self.3) / 255.0
    }

    /// The same colour with alpha `a`.
    pub fn with_alpha(self, a: u8) -> Rgba {
        Rgba(self.0, self.1, self.2, a)
    }

    /// For egui.
    pub fn egui(self) -> egui::Color32 {
        egui::Color32::from_rgba_unmultiplied(self.0, self.1, self.2, self.3)
    }
}

/// The handshake state of a channel in one cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ChanState {
    /// `valid & ready`: a token moves.
    Transfer,
    /// `valid & !ready`: a token waits.
    Stall,
    /// `!valid & ready`: the consumer waits.
    Accept,
    /// Neither.
    Idle,
}

impl ChanState {
    /// From the two handshake bits.
    pub fn of(valid: bool, ready: bool) -> ChanState {
        match (valid, ready) {
            (true, true) => ChanState::Transfer,
            (true, false) => ChanState::Stall,
            (false, true) => ChanState::Accept,
            (false, false) => ChanState::Idle,
        }
    }

    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            ChanState::Transfer => "transfer",
            ChanState::Stall => "stall",
            ChanState::Accept => "accept",
            ChanState::Idle => "idle",
        }
    }

    /// All states, for legends.
    pub const ALL: [ChanState; 4] = [
        ChanState::Transfer,
        ChanState::Stall,
        ChanState::Accept,
        ChanState::Idle,
    ];
}

/// Light or dark.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Theme {
    /// Dark text on white.
    Light,
    /// Light text on near-black.
    Dark,
}

/// Every colour of a drawing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Palette {
    /// Background.
    pub background: Rgba,
    /// Node fill.
    pub node_fill: Rgba,
    /// Fill of a node that fires this cycle.
    pub node_fired: Rgba,
    /// Node border.
    pub node_stroke: Rgba,
    /// Text.
    pub text: Rgba,
    /// Secondary text.
    pub weak_text: Rgba,
    /// Cluster fill.
    pub cluster: Rgba,
    /// Fill of a loop's box (around its blocks' clusters).
    pub loop_fill: Rgba,
    /// Selection outline.
    pub selected: Rgba,
    /// Deadlock wait-for highlight.
    pub deadlock: Rgba,
    /// Channel colours: transfer, stall, accept, idle.
    pub chan: [Rgba; 4],
    /// Colours of moving tokens by invocation (invocation `k` takes colour `k mod 6`) when
    /// tokens of several invocations move at once.
    pub invocation: [Rgba; 6],
}

impl Palette {
    /// The palette of a theme, optionally colour-blind safe (Okabe-Ito colours).
    pub fn new(theme: Theme, colour_blind: bool) -> Palette {
        let chan = if colour_blind {
            // Okabe-Ito: bluish green, vermillion, blue, grey.
            [
                Rgba::hex(0x009e73),
                Rgba::hex(0xd55e00),
                Rgba::hex(0x0072b2),
                Rgba::hex(0x999999),
            ]
        } else {
            [
                Rgba::hex(0x2ca02c),
                Rgba::hex(0xff7f0e),
                Rgba::hex(0x1f77b4),
                Rgba::hex(0xa0a0a0),
            ]
        };
        let invocation = if colour_blind {
            // The Okabe-Ito colours the channel states do not use, then black and grey-blue.
            [
                Rgba::hex(0xe69f00),
                Rgba::hex(0x56b4e9),
                Rgba::hex(0xcc79a7),
                Rgba::hex(0xf0e442),
                Rgba::hex(0x000000),
                Rgba::hex(0x5d6d7e),
            ]
        } else {
            [
                Rgba::hex(0x9467bd),
                Rgba::hex(0xe377c2),
                Rgba::hex(0x17becf),
                Rgba::hex(0xbcbd22),
                Rgba::hex(0x8c564b),
                Rgba::hex(0xd62728),
            ]
        };
        match theme {
            Theme::Light => Palette {
                background: Rgba::hex(0xffffff),
                node_fill: Rgba::hex(0xf7f7f7),
                node_fired: Rgba::hex(0xd9f2d9),
                node_stroke: Rgba::hex(0x505050),
                text: Rgba::hex(0x111111),
                weak_text: Rgba::hex(0x666666),
                cluster: Rgba::hex(0xeef2fa),
                loop_fill: Rgba::hex(0xfbf7ea),
                selected: Rgba::hex(0x8e44ad),
                deadlock: Rgba::hex(0xcc0000),
                chan,
                invocation,
            },
            Theme::Dark => Palette {
                background: Rgba::hex(0x1b1b1b),
                node_fill: Rgba::hex(0x2b2b2b),
                node_fired: Rgba::hex(0x1f4a2a),
                node_stroke: Rgba::hex(0xb0b0b0),
                text: Rgba::hex(0xeeeeee),
                weak_text: Rgba::hex(0xaaaaaa),
                cluster: Rgba::hex(0x232a36),
                loop_fill: Rgba::hex(0x29271f),
                selected: Rgba::hex(0xd28cff),
                deadlock: Rgba::hex(0xff5555),
                chan: if colour_blind {
                    chan
                } else {
                    [chan[0], chan[1], Rgba::hex(0x4fa3e0), Rgba::hex(0x6a6a6a)]
                },
                invocation,
            },
        }
    }

    /// Colour of a channel state.
    pub fn chan(&self, s: ChanState) -> Rgba {
        self.chan[s as usize]
    }
}

/// How data values are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Radix {
    /// Two's complement decimal up to 64 bits, hexadecimal above (the default: a 4096-bit
    /// value is 1,234 decimal digits but 1,024 hex ones, and wide data is usually bits).
    Auto,
    /// Unsigned decimal.
    Dec,
    /// Two's complement decimal.
    Signed,
    /// `0x...`.
    Hex,
    /// `0b...`.
    Bin,
}

impl Radix {
    /// All radices, for menus.
    pub const ALL: [Radix; 5] = [
        Radix::Auto,
        Radix::Signed,
        Radix::Dec,
        Radix::Hex,
        Radix::Bin,
    ];

    /// Menu name.
    pub fn name(self) -> &'static str {
        match self {
            Radix::Auto => "auto",
            Radix::Dec => "unsigned",
            Radix::Signed => "signed",
            Radix::Hex => "hex",
            Radix::Bin => "binary",
        }
    }
}

/// Writes `bits` of type `ty` in `radix`; `none` tokens are written as `token`. Floats are
/// written as numbers (shortest round-trip form, `nan`, `inf`) in the signed and unsigned
/// radices and as their bit pattern in hex and binary. A type wider than 64 bits carries a
/// wide word (`handscope_sim::wide`), written in full: hex in [`Radix::Auto`].
pub fn format_value(bits: u64, ty: &Type, radix: Radix) -> String {
    let w = ty.bit_width();
    if ty.is_none() || w == 0 {
        return "token".into();
    }
    if let (Type::Tuple(fields), Radix::Auto) = (ty, radix) {
        // A tuple as its fields (a stream token: element, end bit), field 0 first.
        let mut shift = w;
        let parts: Vec<String> = fields
            .iter()
            .map(|t| {
                shift -= t.bit_width();
                let v = handscope_sim::wide::extract(bits, w, shift, t.bit_width());
                format_value(v, t, radix)
            })
            .collect();
        return format!("({})", parts.join(", "));
    }
    if handscope_sim::wide::is_wide(w) {
        use handscope_sim::wide;
        return match radix {
            Radix::Auto | Radix::Hex => format!("0x{}", wide::to_hex(bits, w)),
            Radix::Dec => wide::to_decimal(bits, w, false),
            Radix::Signed => wide::to_decimal(bits, w, ty.is_integer()),
            Radix::Bin => format!(
                "0b{:0>width$}",
                wide::to_binary(bits, w),
                width = w as usize
            ),
        };
    }
    let bits = bits & ty.mask();
    if let (Some(kind), Radix::Dec | Radix::Signed | Radix::Auto) = (ty.float_kind(), radix) {
        return handscope_sim::float::format_float(bits, kind);
    }
    match radix {
        Radix::Dec => bits.to_string(),
        // An `i1` is a truth value: 1, not the -1 of its two's-complement reading.
        Radix::Signed | Radix::Auto if w == 1 => bits.to_string(),
        Radix::Signed | Radix::Auto => signed_value(bits, w).to_string(),
        Radix::Hex => format!("0x{bits:x}"),
        Radix::Bin => format!("0b{bits:0width$b}", width = (w as usize).min(64)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_values() {
        let t = Type::Int(8);
        assert_eq!(format_value(0xff, &t, Radix::Signed), "-1");
        let tup = Type::Tuple(vec![
            Type::Int(8),
            Type::Tuple(vec![Type::Int(4), Type::Int(1)]),
        ]);
        assert_eq!(format_value(0x1feb, &tup, Radix::Auto), "(-1, (5, 1))");
        let none = Type::Tuple(vec![Type::None, Type::Int(2)]);
        assert_eq!(format_value(1, &none, Radix::Auto), "(token, 1)");
        assert_eq!(format_value(0xff, &t, Radix::Dec), "255");
        assert_eq!(format_value(1, &Type::Int(1), Radix::Signed), "1");
        assert_eq!(format_value(0xff, &t, Radix::Hex), "0xff");
        assert_eq!(format_value(5, &Type::Int(4), Radix::Bin), "0b0101");
        assert_eq!(format_value(0, &Type::None, Radix::Hex), "token");
        let f = Type::Float(handscope_sim::FloatKind::F32);
        assert_eq!(format_value(0x3fc0_0000, &f, Radix::Signed), "1.5");
        assert_eq!(format_value(0xffc0_0000, &f, Radix::Dec), "-nan");
        assert_eq!(format_value(0x3fc0_0000, &f, Radix::Hex), "0x3fc00000");
        assert_eq!(ChanState::of(true, false), ChanState::Stall);
        assert_eq!(format_value(0xff, &t, Radix::Auto), "-1");
        let w = Type::Int(128);
        let m1 = handscope_sim::wide::parse("-1", 128).unwrap();
        assert_eq!(
            format_value(m1, &w, Radix::Auto),
            format!("0x{}", "f".repeat(32))
        );
        assert_eq!(format_value(m1, &w, Radix::Signed), "-1");
        assert_eq!(
            format_value(m1, &w, Radix::Dec),
            "340282366920938463463374607431768211455"
        );
        assert_eq!(format_value(5, &w, Radix::Bin).len(), 130);
        let t96 = Type::Tuple(vec![Type::Int(32), Type::Int(64)]);
        let m96 = handscope_sim::wide::parse("-1", 96).unwrap();
        assert_eq!(
            format_value(m96, &t96, Radix::Hex),
            format!("0x{}", "f".repeat(24))
        );
    }
}
