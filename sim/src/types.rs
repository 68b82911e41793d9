//! Channel data types: the types a handshake channel can carry.
//!
//! Every value travels as a bit pattern in a `u64` data word, bits above the type's width 0;
//! `f32`/`f64` values are their IEEE-754 encodings (`f32::to_bits`, `f64::to_bits`). Types
//! wider than 64 bits (up to [`MAX_DATA_WIDTH`]) carry a wide word instead: see
//! [`crate::wide`].

use std::fmt;

/// The data type carried by a handshake channel.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// `none`: a control-only token with no data.
    None,
    /// `iN`: a signless integer of `N` bits, `0 <= N <= MAX_INT_WIDTH`.
    Int(u16),
    /// `index`: 64 bits wide in CIRCT's RTL.
    Index,
    /// `tuple<...>`: the concatenation of its members.
    Tuple(Vec<Type>),
    /// `f32` / `f64`: an IEEE-754 binary32 / binary64 value, carried as its bit pattern (like
    /// an integer of the same width). Not an integer: [`Type::is_integer`] is false.
    Float(FloatKind),
}

/// The floating-point formats a channel can carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FloatKind {
    /// `f32`: IEEE-754 binary32.
    F32,
    /// `f64`: IEEE-754 binary64.
    F64,
}

impl FloatKind {
    /// Both formats, narrower first.
    pub const ALL: [FloatKind; 2] = [FloatKind::F32, FloatKind::F64];

    /// Number of bits (32 or 64).
    pub fn bits(self) -> u32 {
        match self {
            FloatKind::F32 => 32,
            FloatKind::F64 => 64,
        }
    }

    /// The MLIR spelling (`f32`, `f64`).
    pub fn name(self) -> &'static str {
        match self {
            FloatKind::F32 => "f32",
            FloatKind::F64 => "f64",
        }
    }

    /// The format `bits` wide, if any (32 or 64).
    pub fn from_bits(bits: u32) -> Option<FloatKind> {
        match bits {
            32 => Some(FloatKind::F32),
            64 => Some(FloatKind::F64),
            _ => None,
        }
    }

    /// Parses `f32` / `f64`.
    pub fn from_name(s: &str) -> Option<FloatKind> {
        Self::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// Largest integer width the model supports (`iN`).
pub const MAX_INT_WIDTH: u32 = 16_384;

/// Largest channel width (a tuple's fields together) the engine simulates.
pub const MAX_DATA_WIDTH: u32 = 16_384;

impl Type {
    /// Number of data bits on the wire (0 for `none`).
    pub fn bit_width(&self) -> u32 {
        match self {
            Type::None => 0,
            Type::Int(w) => u32::from(*w),
            Type::Index => 64,
            Type::Tuple(ts) => ts.iter().map(Type::bit_width).sum(),
            Type::Float(k) => k.bits(),
        }
    }

    /// True for `none`, whose channels carry only control.
    pub fn is_none(&self) -> bool {
        matches!(self, Type::None)
    }

    /// True for `iN` and `index`.
    pub fn is_integer(&self) -> bool {
        matches!(self, Type::Int(_) | Type::Index)
    }

    /// True for `f32` and `f64`.
    pub fn is_float(&self) -> bool {
        matches!(self, Type::Float(_))
    }

    /// The float format of an `f32`/`f64` type.
    pub fn float_kind(&self) -> Option<FloatKind> {
        match self {
            Type::Float(k) => Some(*k),
            _ => None,
        }
    }

    /// Mask that keeps the low `bit_width()` bits of a `u64` (all ones for 64 and more).
    pub fn mask(&self) -> u64 {
        width_mask(self.bit_width())
    }
}

/// Mask that keeps the low `width` bits of a `u64`.
pub fn width_mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::None => write!(f, "none"),
            Type::Int(w) => write!(f, "i{w}"),
            Type::Index => write!(f, "index"),
            Type::Float(k) => write!(f, "{}", k.name()),
            Type::Tuple(ts) => {
                write!(f, "tuple<")?;
                for (i, t) in ts.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{t}")?;
                }
                write!(f, ">")
            }
        }
    }
}

/// A `memref<D0xD1x...xT>` type, as used by `memory` and `extmemory`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MemRefType {
    /// Dimensions, outermost first. Simulation treats the memory as flat.
    pub dims: Vec<u64>,
    /// Element type.
    pub elem: Type,
}

impl MemRefType {
    /// Total number of elements.
    pub fn len(&self) -> u64 {
        self.dims.iter().product()
    }

    /// True when the memory has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl fmt::Display for MemRefType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "memref<")?;
        for d in &self.dims {
            write!(f, "{d}x")?;
        }
        write!(f, "{}>", self.elem)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_and_display() {
        let t = Type::Tuple(vec![Type::Int(8), Type::Index, Type::None]);
        assert_eq!(t.bit_width(), 72);
        assert_eq!(t.to_string(), "tuple<i8, index, none>");
        assert_eq!(Type::Int(1).mask(), 1);
        assert_eq!(Type::Index.mask(), u64::MAX);
        assert_eq!(Type::Int(0).mask(), 0);
        let m = MemRefType {
            dims: vec![4, 8],
            elem: Type::Int(32),
        };
        assert_eq!(m.to_string(), "memref<4x8xi32>");
        assert_eq!(m.len(), 32);
        let f = Type::Float(FloatKind::F32);
        assert_eq!((f.bit_width(), f.to_string()), (32, "f32".to_string()));
        assert!(f.is_float() && !f.is_integer());
        assert_eq!(Type::Float(FloatKind::F64).mask(), u64::MAX);
        let m = MemRefType {
            dims: vec![8],
            elem: Type::Float(FloatKind::F64),
        };
        assert_eq!(m.to_string(), "memref<8xf64>");
        assert_eq!(FloatKind::from_name("f64"), Some(FloatKind::F64));
        assert_eq!(FloatKind::from_bits(32), Some(FloatKind::F32));
    }
}
