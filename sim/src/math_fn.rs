//! The `<math.h>` functions Handscope has as units: MLIR's `math` dialect ops beyond
//! `math.sqrt`, `math.absf` and `math.copysign` (which are ops of their own), described once
//! here: the op's mnemonic, its arity, the C function it is, whether IEEE-754 defines its
//! result exactly, and its `fpga` latency.
//!
//! The engine computes them with the host's C library (`docs/semantics.md`, "Math
//! functions"), so a circuit gives what the same C compiled natively gives on that host.

/// Defines [`MathFn`] from one line per function: variant, MLIR mnemonic (without `math.`),
/// arity, C name (the `double` form; the `float` form adds `f`), exactness, and the `fpga`
/// latencies in `f32` and `f64`.
macro_rules! math_fns {
    ($($(#[doc = $doc:literal])* $variant:ident = $mnemonic:literal, $arity:literal, $c:literal, $exact:ident, $lat32:literal, $lat64:literal;)*) => {
        /// A `<math.h>` function computed by a unit of its own (a `math` dialect op).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum MathFn {
            $($(#[doc = $doc])* $variant,)*
        }

        impl MathFn {
            /// Every function, in declaration order.
            pub const ALL: &'static [MathFn] = &[$(MathFn::$variant,)*];

            /// The `math` dialect mnemonic (`exp`, `powf`).
            pub const fn mnemonic(self) -> &'static str {
                match self {
                    $(MathFn::$variant => $mnemonic,)*
                }
            }

            /// Number of operands (1, or 2 for `powf` and `atan2`).
            pub const fn arity(self) -> usize {
                match self {
                    $(MathFn::$variant => $arity,)*
                }
            }

            /// The C function's name for `double` (`exp`; `expf` is the `float` form).
            pub const fn c_name(self) -> &'static str {
                match self {
                    $(MathFn::$variant => $c,)*
                }
            }

            /// True when IEEE-754 defines the result exactly (the rounding functions), so
            /// every conforming library gives the same bits; the others are as accurate as
            /// the host's C library.
            pub const fn exact(self) -> bool {
                match self {
                    $(MathFn::$variant => math_fns!(@exact $exact),)*
                }
            }

            /// Latency in cycles of the `fpga` profile's pipelined unit (`double`: `f64`).
            pub const fn fpga_latency(self, double: bool) -> u32 {
                match self {
                    $(MathFn::$variant => if double { $lat64 } else { $lat32 },)*
                }
            }
        }
    };
    (@exact exact) => { true };
    (@exact libm) => { false };
}

// Latencies: the rounding functions are an exponent compare and a masked add (2 stages);
// the transcendental ones follow the depth of pipelined FPGA floating-point cores (range
// reduction, a table or polynomial evaluation, reconstruction): roughly two to three
// multiply-add depths in `f32` and four to five in `f64` (`docs/timing.md`).
math_fns! {
    /// `floor`: largest integer not above the operand (exact).
    Floor = "floor", 1, "floor", exact, 2, 2;
    /// `ceil`: smallest integer not below the operand (exact).
    Ceil = "ceil", 1, "ceil", exact, 2, 2;
    /// `round`: nearest integer, halfway cases away from zero (exact).
    Round = "round", 1, "round", exact, 2, 2;
    /// `roundeven`: nearest integer, halfway cases to even (C's `rint`/`nearbyint` in the
    /// default rounding mode; exact).
    RoundEven = "roundeven", 1, "rint", exact, 2, 2;
    /// `trunc`: integer part, rounding toward zero (exact).
    Trunc = "trunc", 1, "trunc", exact, 2, 2;
    /// `exp`: e to the power of the operand.
    Exp = "exp", 1, "exp", libm, 20, 30;
    /// `exp2`: 2 to the power of the operand.
    Exp2 = "exp2", 1, "exp2", libm, 20, 30;
    /// `expm1`: `exp(x) - 1`, accurate near 0.
    Expm1 = "expm1", 1, "expm1", libm, 22, 34;
    /// `log`: natural logarithm.
    Log = "log", 1, "log", libm, 22, 40;
    /// `log2`: base-2 logarithm.
    Log2 = "log2", 1, "log2", libm, 22, 40;
    /// `log10`: base-10 logarithm.
    Log10 = "log10", 1, "log10", libm, 24, 42;
    /// `log1p`: `log(1 + x)`, accurate near 0.
    Log1p = "log1p", 1, "log1p", libm, 24, 42;
    /// `sin`: sine (radians).
    Sin = "sin", 1, "sin", libm, 30, 50;
    /// `cos`: cosine (radians).
    Cos = "cos", 1, "cos", libm, 30, 50;
    /// `tan`: tangent (radians).
    Tan = "tan", 1, "tan", libm, 40, 64;
    /// `asin`: arc sine.
    Asin = "asin", 1, "asin", libm, 36, 60;
    /// `acos`: arc cosine.
    Acos = "acos", 1, "acos", libm, 36, 60;
    /// `atan`: arc tangent.
    Atan = "atan", 1, "atan", libm, 30, 54;
    /// `sinh`: hyperbolic sine.
    Sinh = "sinh", 1, "sinh", libm, 28, 42;
    /// `cosh`: hyperbolic cosine.
    Cosh = "cosh", 1, "cosh", libm, 28, 42;
    /// `tanh`: hyperbolic tangent.
    Tanh = "tanh", 1, "tanh", libm, 30, 45;
    /// `asinh`: inverse hyperbolic sine.
    Asinh = "asinh", 1, "asinh", libm, 40, 60;
    /// `acosh`: inverse hyperbolic cosine.
    Acosh = "acosh", 1, "acosh", libm, 40, 60;
    /// `atanh`: inverse hyperbolic tangent.
    Atanh = "atanh", 1, "atanh", libm, 40, 60;
    /// `cbrt`: cube root.
    Cbrt = "cbrt", 1, "cbrt", libm, 30, 50;
    /// `erf`: error function.
    Erf = "erf", 1, "erf", libm, 30, 50;
    /// `erfc`: complementary error function.
    Erfc = "erfc", 1, "erfc", libm, 30, 50;
    /// `powf`: the first operand to the power of the second (C's `pow`).
    Pow = "powf", 2, "pow", libm, 46, 74;
    /// `atan2`: arc tangent of `y / x` in the quadrant of `(x, y)`.
    Atan2 = "atan2", 2, "atan2", libm, 34, 58;
}

impl MathFn {
    /// The function whose MLIR mnemonic is `m`.
    pub fn from_mnemonic(m: &str) -> Option<MathFn> {
        MathFn::ALL.iter().copied().find(|f| f.mnemonic() == m)
    }

    /// The function a C name calls, with `true` for the `float` form (`expf`); `rint` and
    /// `nearbyint` are [`MathFn::RoundEven`] (they round to even in C's default mode).
    pub fn from_c_name(name: &str) -> Option<(MathFn, bool)> {
        let find = |base: &str| match base {
            "nearbyint" => Some(MathFn::RoundEven),
            _ => MathFn::ALL.iter().copied().find(|f| f.c_name() == base),
        };
        if let Some(f) = find(name) {
            return Some((f, false));
        }
        name.strip_suffix('f').and_then(find).map(|f| (f, true))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found_again() {
        for &f in MathFn::ALL {
            assert_eq!(MathFn::from_mnemonic(f.mnemonic()), Some(f));
            assert_eq!(MathFn::from_c_name(f.c_name()), Some((f, false)));
            let single = format!("{}f", f.c_name());
            assert_eq!(MathFn::from_c_name(&single), Some((f, true)));
            assert!(f.arity() == 1 || f.arity() == 2);
            assert!(f.fpga_latency(true) >= f.fpga_latency(false));
        }
        assert_eq!(
            MathFn::from_c_name("nearbyintf"),
            Some((MathFn::RoundEven, true))
        );
        assert_eq!(MathFn::from_c_name("sqrt"), None);
    }
}
