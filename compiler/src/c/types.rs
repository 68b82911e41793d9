//! C arithmetic types of the subset (integers, `float`, `double`) and the conversion rules
//! between them.

use handscope_sim::FloatKind;
use std::fmt;

/// Widest `_BitInt(N)` the front end accepts.
pub const MAX_BITINT_WIDTH: u32 = 4096;

/// Integer type kind (determines width and conversion rank). `long` is 64-bit (LP64).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IntKind {
    /// `_Bool`.
    Bool,
    /// `char` (plain `char` is signed).
    Char,
    /// `short`.
    Short,
    /// `int`.
    Int,
    /// `long` (64 bits).
    Long,
    /// `long long`.
    LongLong,
    /// `_BitInt(N)` (C23), `1 <= N <= `[`MAX_BITINT_WIDTH`]: exactly `N` bits, never
    /// promoted. Values wider than 64 bits are carried as wide words
    /// ([`handscope_sim::wide`]).
    BitInt(u16),
}

/// A C integer type: kind plus signedness.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct IntTy {
    /// Kind (width and rank).
    pub kind: IntKind,
    /// Signedness (`false` for `_Bool`).
    pub signed: bool,
}

impl IntTy {
    /// `int`.
    pub const INT: IntTy = IntTy {
        kind: IntKind::Int,
        signed: true,
    };
    /// `unsigned int`.
    pub const UINT: IntTy = IntTy {
        kind: IntKind::Int,
        signed: false,
    };
    /// `_Bool`.
    pub const BOOL: IntTy = IntTy {
        kind: IntKind::Bool,
        signed: false,
    };
    /// `long`.
    pub const LONG: IntTy = IntTy {
        kind: IntKind::Long,
        signed: true,
    };
    /// `unsigned long`.
    pub const ULONG: IntTy = IntTy {
        kind: IntKind::Long,
        signed: false,
    };
    /// `long long`.
    pub const LLONG: IntTy = IntTy {
        kind: IntKind::LongLong,
        signed: true,
    };
    /// `unsigned long long`.
    pub const ULLONG: IntTy = IntTy {
        kind: IntKind::LongLong,
        signed: false,
    };

    /// Creates a type.
    pub fn new(kind: IntKind, signed: bool) -> Self {
        IntTy {
            kind,
            signed: signed && kind != IntKind::Bool,
        }
    }

    /// Width in bits of values of this type in the IR (`_Bool` is 1 bit).
    pub fn bits(self) -> u32 {
        match self.kind {
            IntKind::Bool => 1,
            IntKind::Char => 8,
            IntKind::Short => 16,
            IntKind::Int => 32,
            IntKind::Long | IntKind::LongLong => 64,
            IntKind::BitInt(n) => u32::from(n),
        }
    }

    /// Integer conversion rank (C23 6.3.1.1): by width; a standard type ranks above a
    /// bit-precise one of the same width, `long long` above `long`, `_Bool` lowest.
    fn rank(self) -> u32 {
        match self.kind {
            IntKind::Bool => 0,
            IntKind::BitInt(n) => 4 * u32::from(n),
            IntKind::Char => 4 * 8 + 1,
            IntKind::Short => 4 * 16 + 1,
            IntKind::Int => 4 * 32 + 1,
            IntKind::Long => 4 * 64 + 1,
            IntKind::LongLong => 4 * 64 + 2,
        }
    }

    /// Integer promotion (C11 6.3.1.1p2); bit-precise types are not promoted (C23).
    pub fn promote(self) -> IntTy {
        if matches!(self.kind, IntKind::BitInt(_)) {
            return self;
        }
        if self.rank() < IntTy::INT.rank() {
            IntTy::INT
        } else {
            self
        }
    }

    /// Usual arithmetic conversions (C11 6.3.1.8) of two operand types.
    pub fn usual(a: IntTy, b: IntTy) -> IntTy {
        let (a, b) = (a.promote(), b.promote());
        if a == b {
            return a;
        }
        if a.signed == b.signed {
            return if a.rank() >= b.rank() { a } else { b };
        }
        let (s, u) = if a.signed { (a, b) } else { (b, a) };
        if u.rank() >= s.rank() {
            u
        } else if s.bits() > u.bits() {
            s
        } else {
            IntTy::new(s.kind, false)
        }
    }

    /// Largest value representable (saturated to `i128::MAX` for types wider than 127 bits).
    pub fn max_value(self) -> i128 {
        if self.bits() >= 128 {
            return i128::MAX;
        }
        if self.signed {
            (1i128 << (self.bits() - 1)) - 1
        } else {
            (1i128 << self.bits()) - 1
        }
    }

    /// Converts the mathematical value `v` to this type (modular for integers, `!= 0` for bool).
    /// The result is the value sign- or zero-extended to `i64` for types of at most 64 bits,
    /// and the wide word ([`handscope_sim::wide`]) reinterpreted as `i64` for wider ones.
    pub fn wrap(self, v: i128) -> i64 {
        if self.kind == IntKind::Bool {
            return (v != 0) as i64;
        }
        let bits = self.bits();
        if bits > 64 {
            return super::arith::word_of_i128(v, bits) as i64;
        }
        let m = (v as u128) & (u128::MAX >> (128 - bits));
        if self.signed && bits < 128 && (m >> (bits - 1)) & 1 == 1 {
            (m as i128 - (1i128 << bits)) as i64
        } else {
            m as i64
        }
    }

    /// C spelling of the type.
    pub fn c_name(self) -> std::borrow::Cow<'static, str> {
        if let IntKind::BitInt(n) = self.kind {
            return if self.signed {
                format!("_BitInt({n})").into()
            } else {
                format!("unsigned _BitInt({n})").into()
            };
        }
        let name: &'static str = match (self.kind, self.signed) {
            (IntKind::Bool, _) => "_Bool",
            (IntKind::Char, true) => "char",
            (IntKind::Char, false) => "unsigned char",
            (IntKind::Short, true) => "short",
            (IntKind::Short, false) => "unsigned short",
            (IntKind::Int, true) => "int",
            (IntKind::Int, false) => "unsigned int",
            (IntKind::Long, true) => "long",
            (IntKind::Long, false) => "unsigned long",
            (IntKind::LongLong, true) => "long long",
            (IntKind::LongLong, false) => "unsigned long long",
            (IntKind::BitInt(_), _) => unreachable!("returned above"),
        };
        name.into()
    }
}

impl fmt::Display for IntTy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.c_name())
    }
}

/// A C real floating type: `float` (IEEE-754 binary32) or `double` (binary64). The subset
/// has no `long double`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FloatTy {
    /// `float`.
    Float,
    /// `double`.
    Double,
}

impl FloatTy {
    /// The IEEE format of the type.
    pub fn kind(self) -> FloatKind {
        match self {
            FloatTy::Float => FloatKind::F32,
            FloatTy::Double => FloatKind::F64,
        }
    }

    /// Width in bits.
    pub fn bits(self) -> u32 {
        self.kind().bits()
    }

    /// C spelling of the type.
    pub fn c_name(self) -> &'static str {
        match self {
            FloatTy::Float => "float",
            FloatTy::Double => "double",
        }
    }
}

/// A C arithmetic type of the subset: an integer type or a real floating type. Values of it
/// are bit patterns in the IR (floats as their IEEE-754 encodings).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scalar {
    /// An integer type.
    Int(IntTy),
    /// `float` or `double`.
    Float(FloatTy),
}

impl Scalar {
    /// `int`.
    pub const INT: Scalar = Scalar::Int(IntTy::INT);

    /// Width in bits of values of this type in the IR.
    pub fn bits(self) -> u32 {
        match self {
            Scalar::Int(t) => t.bits(),
            Scalar::Float(t) => t.bits(),
        }
    }

    /// True for a signed integer type (false for floats: their bit patterns are read as they
    /// are, never sign-extended).
    pub fn signed(self) -> bool {
        matches!(self, Scalar::Int(t) if t.signed)
    }

    /// The integer type, if this is one.
    pub fn int(self) -> Option<IntTy> {
        match self {
            Scalar::Int(t) => Some(t),
            Scalar::Float(_) => None,
        }
    }

    /// The floating type, if this is one.
    pub fn float(self) -> Option<FloatTy> {
        match self {
            Scalar::Float(t) => Some(t),
            Scalar::Int(_) => None,
        }
    }

    /// Integer promotion; floats stay as they are (C has no default promotion of `float`
    /// outside variadic calls, which the subset does not have).
    pub fn promote(self) -> Scalar {
        match self {
            Scalar::Int(t) => Scalar::Int(t.promote()),
            f @ Scalar::Float(_) => f,
        }
    }

    /// Usual arithmetic conversions (C11 6.3.1.8): `double` if either operand is `double`,
    /// else `float` if either is `float`, else the integer rules.
    pub fn usual(a: Scalar, b: Scalar) -> Scalar {
        match (a, b) {
            (Scalar::Int(x), Scalar::Int(y)) => Scalar::Int(IntTy::usual(x, y)),
            (Scalar::Float(x), Scalar::Float(y)) => Scalar::Float(x.max(y)),
            (f @ Scalar::Float(_), Scalar::Int(_)) | (Scalar::Int(_), f @ Scalar::Float(_)) => f,
        }
    }

    /// C spelling of the type.
    pub fn c_name(self) -> std::borrow::Cow<'static, str> {
        match self {
            Scalar::Int(t) => t.c_name(),
            Scalar::Float(t) => t.c_name().into(),
        }
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.c_name())
    }
}

/// A struct type: its index in the translation unit's table of structs
/// ([`super::ast::TranslationUnit::structs`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StructId(pub u32);

/// Type of a C object or expression in the subset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CType {
    /// `void` (function results only).
    Void,
    /// An arithmetic type.
    Scalar(Scalar),
    /// An array: element type and dimensions (first may be `None` for parameters `a[]`).
    Array(Scalar, Vec<Option<u64>>),
    /// A struct (the front end replaces struct objects by one object per member before
    /// lowering: `docs/c-subset.md`, "Structs").
    Struct(StructId),
    /// An array of structs: struct and dimensions (first may be `None` for parameters).
    StructArray(StructId, Vec<Option<u64>>),
    /// A pointer to an arithmetic type or a struct (pointers into arrays:
    /// `docs/c-subset.md`, "Pointers").
    Pointer(Box<CType>),
}

impl CType {
    /// The integer type `t`.
    pub fn int(t: IntTy) -> CType {
        CType::Scalar(Scalar::Int(t))
    }
}

impl fmt::Display for CType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CType::Void => f.write_str("void"),
            CType::Scalar(t) => write!(f, "{t}"),
            CType::Array(t, dims) => {
                write!(f, "{t}")?;
                write_dims(f, dims)
            }
            CType::Struct(_) => f.write_str("struct"),
            CType::StructArray(_, dims) => {
                f.write_str("struct")?;
                write_dims(f, dims)
            }
            CType::Pointer(t) => write!(f, "{t} *"),
        }
    }
}

fn write_dims(f: &mut fmt::Formatter<'_>, dims: &[Option<u64>]) -> fmt::Result {
    for d in dims {
        match d {
            Some(n) => write!(f, "[{n}]")?,
            None => f.write_str("[]")?,
        }
    }
    Ok(())
}

/// Type of an integer constant with the given value and suffix (C11 6.4.4.1).
pub fn literal_type(value: u64, unsigned: bool, longs: u8, decimal: bool) -> Option<IntTy> {
    let cands: &[IntTy] = match (unsigned, longs, decimal) {
        (false, 0, true) => &[IntTy::INT, IntTy::LONG, IntTy::LLONG],
        (false, 0, false) => &[
            IntTy::INT,
            IntTy::UINT,
            IntTy::LONG,
            IntTy::ULONG,
            IntTy::LLONG,
            IntTy::ULLONG,
        ],
        (true, 0, _) => &[IntTy::UINT, IntTy::ULONG, IntTy::ULLONG],
        (false, 1, true) => &[IntTy::LONG, IntTy::LLONG],
        (false, 1, false) => &[IntTy::LONG, IntTy::ULONG, IntTy::LLONG, IntTy::ULLONG],
        (true, 1, _) => &[IntTy::ULONG, IntTy::ULLONG],
        (false, _, true) => &[IntTy::LLONG],
        (false, _, false) => &[IntTy::LLONG, IntTy::ULLONG],
        (true, _, _) => &[IntTy::ULLONG],
    };
    cands
        .iter()
        .copied()
        .find(|t| (value as i128) <= t.max_value())
}
