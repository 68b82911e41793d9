//! Evaluation of `#if` / `#elif` expressions (C11 6.10.1), after `defined` has been replaced
//! and macros expanded: integer and character constants, identifiers (which are 0), and every
//! C operator an integer constant expression may use (`?:`, `||`, `&&`, `|`, `^`, `&`,
//! equality, relational, shifts, `+ - * / %`, unary `+ - ~ !`, parentheses). Arithmetic is
//! done in `intmax_t` (64 bits, wrapping) or `uintmax_t` when an operand is unsigned, as the
//! standard says; `&&`, `||` and `?:` do not evaluate the operand they skip (a division by zero
//! there is no error).

use super::error::{CResult, RawError};
use super::lexer::{TokKind, Token};
use super::span::Span;

/// A value of an `#if` expression: 64 bits, signed or unsigned.
#[derive(Clone, Copy, Debug)]
struct Val {
    bits: u64,
    unsigned: bool,
}

impl Val {
    fn int(v: i64) -> Val {
        Val {
            bits: v as u64,
            unsigned: false,
        }
    }

    fn truth(self) -> bool {
        self.bits != 0
    }
}

struct Eval<'a> {
    toks: &'a [Token],
    pos: usize,
    /// Where errors point when the expression ends early.
    end: Span,
    /// Depth of operands not evaluated (`0 && x`): no errors for division by zero there.
    skipping: u32,
    /// Nesting of unary operands now being parsed.
    depth: usize,
}

/// Evaluates a preprocessed `#if` expression; `at` is the directive's location.
pub(super) fn evaluate(toks: &[Token], at: Span) -> CResult<bool> {
    let end = toks.last().map_or(at, |t| t.span);
    if toks.is_empty() {
        return Err(RawError::new(at, "#if with no expression"));
    }
    let mut e = Eval {
        toks,
        pos: 0,
        end,
        skipping: 0,
        depth: 0,
    };
    let v = e.conditional()?;
    if let Some(t) = e.toks.get(e.pos) {
        return Err(RawError::new(t.span, "unexpected token in #if expression"));
    }
    Ok(v.truth())
}

/// Binary operators by precedence level, lowest first (below `?:`).
const LEVELS: &[&[&str]] = &[
    &["||"],
    &["&&"],
    &["|"],
    &["^"],
    &["&"],
    &["==", "!="],
    &["<", ">", "<=", ">="],
    &["<<", ">>"],
    &["+", "-"],
    &["*", "/", "%"],
];

impl Eval<'_> {
    fn peek_punct(&self) -> Option<&'static str> {
        match self.toks.get(self.pos).map(|t| &t.kind) {
            Some(TokKind::Punct(p)) => Some(p),
            _ => None,
        }
    }

    fn span(&self) -> Span {
        self.toks.get(self.pos).map_or(self.end, |t| t.span)
    }

    fn expect(&mut self, p: &str) -> CResult<()> {
        if self.peek_punct() == Some(p) {
            self.pos += 1;
            Ok(())
        } else {
            Err(RawError::new(
                self.span(),
                format!("expected `{p}` in #if expression"),
            ))
        }
    }

    fn conditional(&mut self) -> CResult<Val> {
        let c = self.binary(0)?;
        if self.peek_punct() != Some("?") {
            return Ok(c);
        }
        self.pos += 1;
        let take = c.truth();
        let a = self.skip_unless(take, |e| e.conditional())?;
        self.expect(":")?;
        let b = self.skip_unless(!take, |e| e.conditional())?;
        let unsigned = a.unsigned || b.unsigned;
        let v = if take { a } else { b };
        Ok(Val {
            bits: v.bits,
            unsigned,
        })
    }

    /// Parses with `f`, not evaluating (no errors for division by zero) unless `eval`.
    fn skip_unless(
        &mut self,
        eval: bool,
        f: impl FnOnce(&mut Self) -> CResult<Val>,
    ) -> CResult<Val> {
        if !eval {
            self.skipping += 1;
        }
        let r = f(self);
        if !eval {
            self.skipping -= 1;
        }
        r
    }

    /// Operators of `level` and tighter, by precedence climbing: one frame per operator
    /// taken, not one per precedence level, so that each parenthesis costs a few frames
    /// (deeply nested `#if` lines stay well inside a thread's stack).
    fn binary(&mut self, min_level: usize) -> CResult<Val> {
        let mut lhs = self.unary()?;
        while let Some((op, level)) = self
            .peek_punct()
            .and_then(|p| {
                LEVELS
                    .iter()
                    .position(|ops| ops.contains(&p))
                    .map(|l| (p, l))
            })
            .filter(|&(_, l)| l >= min_level)
        {
            let at = self.span();
            self.pos += 1;
            lhs = match op {
                "||" => {
                    let r = self.skip_unless(!lhs.truth(), |e| e.binary(level + 1))?;
                    Val::int(i64::from(lhs.truth() || r.truth()))
                }
                "&&" => {
                    let r = self.skip_unless(lhs.truth(), |e| e.binary(level + 1))?;
                    Val::int(i64::from(lhs.truth() && r.truth()))
                }
                _ => {
                    let rhs = self.binary(level + 1)?;
                    self.apply(op, lhs, rhs, at)?
                }
            };
        }
        Ok(lhs)
    }

    fn apply(&self, op: &str, a: Val, b: Val, at: Span) -> CResult<Val> {
        let unsigned = a.unsigned || b.unsigned;
        let (x, y) = (a.bits, b.bits);
        let (sx, sy) = (x as i64, y as i64);
        let cmp = |r: bool| Ok(Val::int(i64::from(r)));
        let arith = |bits: u64| Ok(Val { bits, unsigned });
        match op {
            "|" => arith(x | y),
            "^" => arith(x ^ y),
            "&" => arith(x & y),
            "==" => cmp(x == y),
            "!=" => cmp(x != y),
            "<" => cmp(if unsigned { x < y } else { sx < sy }),
            ">" => cmp(if unsigned { x > y } else { sx > sy }),
            "<=" => cmp(if unsigned { x <= y } else { sx <= sy }),
            ">=" => cmp(if unsigned { x >= y } else { sx >= sy }),
            // Shifts take the left operand's type; amounts outside 0..64 give 0 (or the sign).
            "<<" => Ok(Val {
                bits: if y >= 64 { 0 } else { x << y },
                unsigned: a.unsigned,
            }),
            ">>" => Ok(Val {
                bits: match (y >= 64, a.unsigned) {
                    (true, true) => 0,
                    (true, false) => (sx >> 63) as u64,
                    (false, true) => x >> y,
                    (false, false) => (sx >> y) as u64,
                },
                unsigned: a.unsigned,
            }),
            "+" => arith(x.wrapping_add(y)),
            "-" => arith(x.wrapping_sub(y)),
            "*" => arith(x.wrapping_mul(y)),
            "/" | "%" => {
                if y == 0 {
                    return if self.skipping > 0 {
                        arith(0)
                    } else {
                        Err(RawError::new(at, "division by zero in #if expression"))
                    };
                }
                let bits = match (op, unsigned) {
                    ("/", true) => x / y,
                    ("/", false) => sx.wrapping_div(sy) as u64,
                    (_, true) => x % y,
                    (_, false) => sx.wrapping_rem(sy) as u64,
                };
                arith(bits)
            }
            _ => Err(RawError::new(
                at,
                format!("operator `{op}` in #if expression"),
            )),
        }
    }

    /// A unary operand, its nesting (parentheses, `!`, `~`, `-`, `+`) bounded like the
    /// parser's so that no `#if` line can exhaust the stack.
    fn unary(&mut self) -> CResult<Val> {
        self.depth += 1;
        let v = if self.depth > super::parser::MAX_NESTING {
            Err(RawError::new(
                self.span(),
                "nesting too deep in #if expression",
            ))
        } else {
            self.unary_operand()
        };
        self.depth -= 1;
        v
    }

    fn unary_operand(&mut self) -> CResult<Val> {
        let at = self.span();
        let Some(t) = self.toks.get(self.pos) else {
            return Err(RawError::new(self.end, "#if expression ends too early"));
        };
        self.pos += 1;
        match &super::lexer::literal(&t.kind, at)? {
            TokKind::Int {
                value, unsigned, ..
            } => Ok(Val {
                bits: *value,
                // A literal too large for a signed 64-bit value is unsigned.
                unsigned: *unsigned || *value > i64::MAX as u64,
            }),
            TokKind::Char(c) => Ok(Val::int(*c)),
            // Identifiers left after macro expansion evaluate to 0 (C11 6.10.1p4).
            TokKind::Ident(_) => Ok(Val::int(0)),
            TokKind::Punct("(") => {
                let v = self.conditional()?;
                self.expect(")")?;
                Ok(v)
            }
            TokKind::Punct("!") => Ok(Val::int(i64::from(!self.unary()?.truth()))),
            TokKind::Punct("~") => {
                let v = self.unary()?;
                Ok(Val { bits: !v.bits, ..v })
            }
            TokKind::Punct("-") => {
                let v = self.unary()?;
                Ok(Val {
                    bits: v.bits.wrapping_neg(),
                    ..v
                })
            }
            TokKind::Punct("+") => self.unary(),
            TokKind::Float { .. } => Err(RawError::new(
                at,
                "a floating-point constant in #if expression",
            )),
            _ => Err(RawError::new(at, "unexpected token in #if expression")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::preproc::preprocess;

    /// True when `#if cond` takes its branch, with `defs` defined first.
    fn takes(defs: &str, cond: &str) -> bool {
        let src = format!("{defs}\n#if {cond}\nint yes;\n#else\nint no;\n#endif\n");
        let p = preprocess(&src).unwrap_or_else(|e| panic!("{cond}: {e:?}"));
        p.tokens.iter().any(|t| t.ident() == Some("yes"))
    }

    #[test]
    fn whole_expressions_are_evaluated() {
        let defs = "#define A\n#define N 8\n#define M (N * 2)\n#define Z 0";
        assert!(!takes(defs, "defined(A) && defined(B)"));
        assert!(takes(defs, "defined(A) || defined(B)"));
        assert!(takes(defs, "!defined(B) && !defined C && defined A"));
        assert!(!takes(
            defs,
            "!defined(MINI) && !defined(SMALL) && defined(LARGE)"
        ));
        assert!(takes(defs, "N > 4"));
        assert!(takes(defs, "M == 16 && N % 3 == 2"));
        assert!(takes(defs, "(N << 2) == 32 && -1 < 0"));
        assert!(!takes(defs, "-1 < 0u"), "-1 converts to unsigned");
        assert!(
            takes(defs, "N == 8 ? 1 : 1 / Z"),
            "the skipped branch is not evaluated"
        );
        assert!(takes(defs, "Z || 1 / 1"));
        assert!(!takes(defs, "Z && 1 / Z"));
        assert!(!takes(defs, "UNDEFINED_NAME"), "identifiers are 0");
        assert!(takes(
            defs,
            "'a' == 97 && ~0 == -1 && (7 & 3) == 3 && (5 ^ 1) == 4"
        ));
        assert!(takes(defs, "0x10 / 4 >= 4 && 10 - 3 * 2 == 4"));
        // Left associativity and every level against its neighbours.
        assert!(takes(
            defs,
            "10 - 2 - 3 == 5 && 64 / 4 / 2 == 8 && 1 << 2 << 1 == 8"
        ));
        assert!(
            takes(defs, "1 | 2 ^ 3 & 4 == 4 - 1"),
            "== binds tighter than &"
        );
        assert!(takes(defs, "1 || 0 && 0"), "&& binds tighter than ||");
        assert!(takes(
            defs,
            "(1 + 2) * 3 == 9 && 1 + 2 * 3 == 7 && 2 * 3 % 4 == 2"
        ));
        assert!(!takes(defs, "1 < 2 == 0"), "(1 < 2) == 0");
    }

    #[test]
    fn bad_expressions_are_located_errors() {
        for (cond, msg) in [
            ("1 / 0", "division by zero"),
            ("(1", "expected `)`"),
            ("1 +", "ends too early"),
            ("defined", "macro name"),
            ("1.5 > 1", "floating-point"),
            ("1 2", "unexpected token"),
        ] {
            let src = format!("#if {cond}\nint x;\n#endif\n");
            let e = preprocess(&src).expect_err(cond);
            let text = format!("{e:?}");
            assert!(text.contains(msg), "{cond}: {text}");
        }
        // Deep nesting is an error, not a stack overflow (30,000 parentheses overflowed the
        // stack of `handscope compile`).
        let deep = [
            format!("{}1{}", "(".repeat(30_000), ")".repeat(30_000)),
            format!("{}1", "!".repeat(30_000)),
            format!("{}1", "~ ".repeat(30_000)),
        ];
        for cond in &deep {
            let src = format!("#if {cond}\nint x;\n#endif\n");
            let e = preprocess(&src).expect_err("too deep");
            let text = format!("{e:?}");
            assert!(
                text.contains("nesting too deep in #if expression"),
                "{text}"
            );
        }
        // Nesting up to the parser's limit is fine.
        assert!(takes("", &format!("{}1{}", "(".repeat(90), ")".repeat(90))));
        for (cond, msg) in [("!", "ends too early"), ("((1)", "expected `)`")] {
            let src = format!("#if {cond}\nint x;\n#endif\n");
            let e = preprocess(&src).expect_err(cond);
            let text = format!("{e:?}");
            assert!(text.contains(msg), "{cond}: {text}");
        }
    }
}
