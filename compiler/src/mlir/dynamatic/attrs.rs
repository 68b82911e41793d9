//! Attributes parsed into typed fields: names, basic blocks, latencies, constant values,
//! memory-interface parameters and both buffer syntaxes.

use handscope_sim::{FloatKind, Type};

use super::ast::{BufferForm, BufferParams, BufferType, ConstValue, DynType, MemInterfaceRef};
use super::era::Era;
use super::reader::Reader;
use crate::mlir::Span;
use crate::mlir::ast::{Attr, AttrValue, PType};
use crate::mlir::diag::ErrExt;
use crate::mlir::parser::{PResult, take_attr};

impl Reader<'_> {
    /// A string attribute's value.
    pub(crate) fn attr_str(&self, a: &Attr) -> PResult<String> {
        match &a.value {
            AttrValue::Str(s) => Ok(s.clone()),
            _ => Err(self
                .p
                .err(a.value_span, format!("`{}` must be a string", a.name))),
        }
    }

    /// A non-negative integer attribute's value that fits in a `u32`.
    pub(crate) fn attr_u32(&self, a: &Attr) -> PResult<u32> {
        match &a.value {
            AttrValue::Int { value, .. } => u32::try_from(*value).map_err(|_| {
                self.p.err(
                    a.value_span,
                    format!("`{}` must be between 0 and {}", a.name, u32::MAX),
                )
            }),
            _ => Err(self
                .p
                .err(a.value_span, format!("`{}` must be an integer", a.name))),
        }
    }

    /// An array of integers, each fitting in a `u32`.
    pub(crate) fn attr_u32_array(&self, a: &Attr) -> PResult<Vec<u32>> {
        let AttrValue::Array(items) = &a.value else {
            return Err(self.p.err(
                a.value_span,
                format!("`{}` must be an array of integers", a.name),
            ));
        };
        items
            .iter()
            .map(|(v, s)| match v {
                AttrValue::Int { value, .. } => u32::try_from(*value).map_err(|_| {
                    self.p
                        .err(*s, format!("`{}` holds a negative or huge item", a.name))
                }),
                _ => Err(self.p.err(*s, format!("`{}` must hold integers", a.name))),
            })
            .collect()
    }

    /// Removes `key` and reads it as a `u32`.
    pub(crate) fn take_u32(&self, attrs: &mut Vec<Attr>, key: &str) -> PResult<Option<u32>> {
        take_attr(attrs, key).map(|a| self.attr_u32(&a)).transpose()
    }

    /// Removes `key` and reads it as a string.
    pub(crate) fn take_str(&self, attrs: &mut Vec<Attr>, key: &str) -> PResult<Option<String>> {
        take_attr(attrs, key).map(|a| self.attr_str(&a)).transpose()
    }

    /// Removes `latency` (`latency = N : i64`), recording the E5 form.
    pub(crate) fn take_latency(&mut self, attrs: &mut Vec<Attr>) -> PResult<Option<u32>> {
        let Some(a) = take_attr(attrs, "latency") else {
            return Ok(None);
        };
        let v = self.attr_u32(&a)?;
        self.p.within_limit(
            u64::from(v),
            u64::from(handscope_sim::limits::MAX_LATENCY),
            ("a latency of", "cycles"),
            a.value_span,
        )?;
        self.mark(
            Era::E5,
            Era::E5,
            "a `latency = N : i64` attribute",
            a.name_span,
        );
        Ok(Some(v))
    }

    /// Removes `handshake.mem_interface` (`#handshake.mem_interface<MC>` or `<LSQ: g>`).
    pub(crate) fn take_mem_interface(
        &self,
        attrs: &mut Vec<Attr>,
    ) -> PResult<Option<MemInterfaceRef>> {
        let Some(a) = take_attr(attrs, "handshake.mem_interface") else {
            return Ok(None);
        };
        let inner = bracket_body(&a.raw).unwrap_or("");
        let words: Vec<&str> = inner
            .split(|c: char| c.is_whitespace() || c == ':')
            .filter(|w| !w.is_empty())
            .collect();
        match words.as_slice() {
            ["MC"] => Ok(Some(MemInterfaceRef::Mc)),
            ["LSQ", g] => match g.parse::<u32>() {
                Ok(g) => Ok(Some(MemInterfaceRef::Lsq(g))),
                Err(_) => Err(self.p.err(a.value_span, "malformed LSQ group number")),
            },
            // Without a group (some lit tests): group 0.
            ["LSQ"] => Ok(Some(MemInterfaceRef::Lsq(0))),
            _ => Err(self
                .p
                .err(a.value_span, "malformed `handshake.mem_interface`")
                .with_help(
                    "expected `#handshake.mem_interface<MC>` or `#handshake.mem_interface<LSQ: 0>`",
                )),
        }
    }

    /// Removes `handshake.lsqDepth` (`#handshake<lsqDepth[L, S]>`).
    pub(crate) fn take_lsq_depth(&self, attrs: &mut Vec<Attr>) -> PResult<Option<(u32, u32)>> {
        let Some(a) = take_attr(attrs, "handshake.lsqDepth") else {
            return Ok(None);
        };
        let nums: Vec<u32> = a
            .raw
            .split(|c: char| !c.is_ascii_digit())
            .filter(|w| !w.is_empty())
            .filter_map(|w| w.parse().ok())
            .collect();
        match nums.as_slice() {
            [l, s] => Ok(Some((*l, *s))),
            _ => Err(self
                .p
                .err(a.value_span, "malformed `handshake.lsqDepth`")
                .with_help("expected `#handshake<lsqDepth[LOADS, STORES]>`")),
        }
    }

    /// A constant's `value`, checked against the result type `ty` (written at `ty_span`).
    pub(crate) fn const_value(&self, a: &Attr, ty: Option<&DynType>) -> PResult<ConstValue> {
        let attr_ty = |t: &Option<crate::mlir::ast::SType>| -> Option<Type> {
            match t.as_ref().map(|s| &s.ty) {
                Some(PType::Chan(c)) => Some(c.clone()),
                _ => None,
            }
        };
        let result_ty = ty.and_then(DynType::data).cloned();
        match &a.value {
            AttrValue::Bool(b) => Ok(ConstValue::Bool(*b)),
            AttrValue::Int { value, ty: t } => {
                let t = attr_ty(t).or(result_ty).ok_or_else(|| {
                    self.p.err(
                        a.value_span,
                        "an integer constant needs a type (`42 : i32`)",
                    )
                })?;
                match t {
                    Type::Int(w) => self.int_bits(*value, w, a.value_span),
                    Type::Index => self.int_bits(*value, 64, a.value_span),
                    // MLIR allows a float written as its bit pattern.
                    Type::Float(k) => {
                        let max = if k == FloatKind::F32 {
                            u128::from(u32::MAX)
                        } else {
                            u128::from(u64::MAX)
                        };
                        match u128::try_from(*value) {
                            Ok(v) if v <= max => Ok(ConstValue::Float {
                                bits: v as u64,
                                kind: k,
                            }),
                            _ => Err(self
                                .p
                                .err(a.value_span, "float bit pattern is out of range")),
                        }
                    }
                    Type::None | Type::Tuple(_) => Err(self
                        .p
                        .err(a.value_span, "a constant must be an integer or a float")),
                }
            }
            AttrValue::Float { text, ty: t } => {
                let k = match attr_ty(t).or(result_ty) {
                    Some(Type::Float(k)) => k,
                    _ => {
                        return Err(self.p.err(
                            a.value_span,
                            "a float constant needs a float type (`1.0e+00 : f32`)",
                        ));
                    }
                };
                let bits = match k {
                    FloatKind::F32 => text.parse::<f32>().map(|f| u64::from(f.to_bits())),
                    FloatKind::F64 => text.parse::<f64>().map(f64::to_bits),
                };
                bits.map(|bits| ConstValue::Float { bits, kind: k })
                    .map_err(|_| {
                        self.p
                            .err(a.value_span, format!("malformed float `{text}`"))
                    })
            }
            AttrValue::BigInt { .. } => Err(self.p.err(
                a.value_span,
                "constants wider than 64 bits are not supported",
            )),
            _ => Err(self.p.err(
                a.value_span,
                "a constant's `value` must be a number, `true` or `false`",
            )),
        }
    }

    fn int_bits(&self, v: i128, width: u16, span: Span) -> PResult<ConstValue> {
        if width > 64 {
            return Err(self
                .p
                .err(span, "constants wider than 64 bits are not supported"));
        }
        let w = u32::from(width);
        let (lo, hi) = if w == 0 {
            (0i128, 0i128)
        } else {
            (-(1i128 << (w - 1)), (1i128 << w) - 1)
        };
        if v < lo || v > hi {
            return Err(self
                .p
                .err(span, format!("{v} does not fit in {width} bits")));
        }
        let mask: u128 = if w == 0 { 0 } else { (1u128 << w) - 1 };
        Ok(ConstValue::Int {
            bits: ((v as u128) & mask) as u64,
            width,
        })
    }

    /// A buffer's parameters from `hw.parameters = {...}` (E2/E3 syntax).
    pub(crate) fn hw_buffer_params(&mut self, a: &Attr) -> PResult<BufferParams> {
        let AttrValue::Dict(items) = &a.value else {
            return Err(self.p.err(
                a.value_span,
                "malformed buffer parameters: `hw.parameters` must be a dictionary",
            ));
        };
        let find = |k: &str| items.iter().find(|i| i.name == k);
        let slots_attr = find("NUM_SLOTS").ok_or_else(|| {
            self.p
                .err(a.value_span, "malformed buffer parameters: `NUM_SLOTS` is missing")
                .with_help("write `hw.parameters = {NUM_SLOTS = 1 : ui32, TIMING = #handshake<timing {D: 1, V: 1, R: 0}>}`")
        })?;
        let slots = self.attr_u32(slots_attr)?;
        self.check_slots(slots, slots_attr.value_span)?;
        let kind = if let Some(bt) = find("BUFFER_TYPE") {
            let s = self.attr_str(bt)?;
            self.mark(
                Era::E3,
                Era::E3,
                "`hw.parameters` with `BUFFER_TYPE`",
                bt.name_span,
            );
            BufferType::from_keyword(&s).ok_or_else(|| {
                self.p
                    .err(
                        bt.value_span,
                        format!("malformed buffer parameters: unknown buffer type `{s}`"),
                    )
                    .with_help(kind_help())
            })?
        } else if let Some(t) = find("TIMING") {
            self.mark(
                Era::E2,
                Era::E3,
                "`hw.parameters` with `TIMING`",
                t.name_span,
            );
            let (d, v, r) = self.timing(t)?;
            match (d || v, r, slots) {
                (true, false, 1) => BufferType::OneSlotBreakDv,
                (true, false, _) => BufferType::FifoBreakDv,
                (false, true, 1) => BufferType::OneSlotBreakR,
                (false, _, _) => BufferType::FifoBreakNone,
                (true, true, 1) => BufferType::OneSlotBreakDvr,
                (true, true, _) => {
                    return Err(self.p.err(
                        t.value_span,
                        format!("malformed buffer parameters: no buffer kind cuts D, V and R with {slots} slots"),
                    ));
                }
            }
        } else {
            return Err(self.p.err(
                a.value_span,
                "malformed buffer parameters: neither `BUFFER_TYPE` nor `TIMING` is given",
            ));
        };
        let form = if find("BUFFER_TYPE").is_some() {
            BufferForm::HwParametersWithType
        } else {
            BufferForm::HwParametersTiming
        };
        Ok(BufferParams {
            kind,
            slots,
            dv_latency: None,
            form,
        })
    }

    /// Reads `#handshake<timing {D: 1, V: 1, R: 0}>` (absent letters are 0).
    fn timing(&self, t: &Attr) -> PResult<(bool, bool, bool)> {
        let bad = || {
            self.p
                .err(
                    t.value_span,
                    "malformed buffer parameters: malformed `TIMING`",
                )
                .with_help("expected `#handshake<timing {D: 1, V: 1, R: 0}>`")
        };
        let raw = t.raw.as_str();
        let open = raw.find('{').ok_or_else(bad)?;
        let close = raw.rfind('}').filter(|&c| c > open).ok_or_else(bad)?;
        let (mut d, mut v, mut r) = (false, false, false);
        for part in raw[open + 1..close].split(',') {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            let (k, n) = part.split_once(':').ok_or_else(bad)?;
            let on = match n.trim() {
                "0" => false,
                "1" => true,
                _ => return Err(bad()),
            };
            match k.trim() {
                "D" => d = on,
                "V" => v = on,
                "R" => r = on,
                _ => return Err(bad()),
            }
        }
        Ok((d, v, r))
    }

    /// Slot counts must be in 1..=MAX_BUFFER_SLOTS.
    pub(crate) fn check_slots(&self, slots: u32, span: Span) -> PResult<()> {
        if slots == 0 {
            return Err(self.p.err(
                span,
                "malformed buffer parameters: a buffer needs at least one slot",
            ));
        }
        self.p.within_limit(
            u64::from(slots),
            handscope_sim::limits::MAX_BUFFER_SLOTS,
            ("a buffer of", "slots"),
            span,
        )
    }
}

/// The help text listing the buffer kinds.
pub(crate) fn kind_help() -> String {
    let names: Vec<&str> = BufferType::ALL.iter().map(|k| k.keyword()).collect();
    format!("buffer types are {}", names.join(", "))
}

/// The text between the first `<` and the last `>`.
fn bracket_body(raw: &str) -> Option<&str> {
    let open = raw.find('<')?;
    let close = raw.rfind('>')?;
    (close > open).then(|| &raw[open + 1..close])
}
