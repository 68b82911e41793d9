//! The op kinds of Dynamatic's mainline dialect and the assembly form each is printed in.

/// Declares [`DynOpKind`] with its mnemonics and forms in one table.
macro_rules! op_kinds {
    ($( $(#[$doc:meta])* $var:ident = [$($mn:literal),+] => $form:ident ),+ $(,)?) => {
        /// What an op is: one variant per mainline mnemonic, [`DynOpKind::Unsupported`]
        /// for speculation, tagging, sharing and other branch-only ops.
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        pub enum DynOpKind {
            $( $(#[$doc])* $var, )+
            /// A mnemonic outside the mainline set the reader models (`speculator`,
            /// `spec_*`, `passer`, `gate`, `tagger`, `untagger`, `unbundle`, `demux`, ...);
            /// its operands, results and types are kept as printed.
            Unsupported(String),
        }

        impl DynOpKind {
            /// The kind of mnemonic `m` (an unknown one is [`DynOpKind::Unsupported`]).
            pub fn from_mnemonic(m: &str) -> DynOpKind {
                match m {
                    $( $($mn)|+ => DynOpKind::$var, )+
                    _ => DynOpKind::Unsupported(m.to_string()),
                }
            }

            /// The mnemonic printed at HEAD (the unsupported op's own).
            pub fn mnemonic(&self) -> &str {
                match self {
                    $( DynOpKind::$var => first(&[$($mn),+]), )+
                    DynOpKind::Unsupported(m) => m,
                }
            }

            /// The assembly form of this kind.
            pub(crate) fn form(&self) -> Form {
                match self {
                    $( DynOpKind::$var => Form::$form, )+
                    DynOpKind::Unsupported(_) => Form::Generic,
                }
            }
        }
    };
}

fn first(names: &[&'static str]) -> &'static str {
    names.first().copied().unwrap_or("")
}

/// The families of printed forms; each has one parser in `ops.rs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// `fork [N] %x : <T>`
    Fork,
    /// `buffer %x[, bufferType = K, numSlots = N[, dvLatency = L]] : <T>`
    Buffer,
    /// `mux %sel [%a, ...] : <i1>, [<T>, ...] to <T>` (E2: `: <i1>, <T>`)
    Mux,
    /// `control_merge [%a, ...] : [<>, ...] to <>, <iK>` (E2: `%a, ... : <>, <iK>`)
    ControlMerge,
    /// `cond_br %c, %d : <i1>, <T>`
    CondBr,
    /// `select %c[%t, %f] : <i1>, <T>`
    Select,
    /// `constant %ctrl {value = V} : <>, <T>`
    Constant,
    /// `source : <>`
    Source,
    /// `sink %x : <T>`
    Sink,
    /// `%a, %b : <T>`, one result of the same type.
    Binary,
    /// `pred, %a, %b : <T>`, an `i1` result.
    Compare,
    /// `%x : <T>` (or `: <T> to <U>`), one result.
    Unary,
    /// `%x : <T> to <U>`
    Cast,
    /// `%a, %b, ... : <T>`, one result.
    Variadic,
    /// `%a, ... : <>`, one control result.
    Join,
    /// `load[%addr] %data : <A>, <D>, <A>, <D>` (E2: two types)
    Load,
    /// `store[%addr] %data : <A>, <D>, <A>, <D>` (E2: two types)
    Store,
    /// `mem_controller[%m : memref<..>] %start (%ins) %end : (..) -> ..`
    MemController,
    /// `lsq[%m : memref<..>] (%ins) : (..) -> (..)` or `lsq[MC] (%ins) : ...`
    Lsq,
    /// `end {attrs} %a, ... : <T>, ...`
    End,
    /// Anything else: operands, attributes and types kept as printed.
    Generic,
}

op_kinds! {
    /// `fork [N]`: copies each token to N outputs (eager).
    Fork = ["fork"] => Fork,
    /// `lazy_fork [N]`: copies a token when every output is ready.
    LazyFork = ["lazy_fork"] => Fork,
    /// `merge`: passes whichever input has a token.
    Merge = ["merge"] => Variadic,
    /// `mux`: passes the input the selector picks.
    Mux = ["mux"] => Mux,
    /// `control_merge`: a merge that also outputs the chosen input's index.
    ControlMerge = ["control_merge"] => ControlMerge,
    /// `br`: passes its input.
    Br = ["br"] => Unary,
    /// `cond_br`: routes data to the true or false output.
    CondBr = ["cond_br"] => CondBr,
    /// `sink`: consumes tokens.
    Sink = ["sink"] => Sink,
    /// `source`: produces control tokens forever.
    Source = ["source"] => Source,
    /// `join`: one control token when every input has one.
    Join = ["join"] => Join,
    /// `buffer`: a slot, FIFO or shift register of the kind its parameters give.
    Buffer = ["buffer"] => Buffer,
    /// `constant`: its value each time the control input fires.
    Constant = ["constant"] => Constant,
    /// `select`: an eager select (with antitokens).
    Select = ["select"] => Select,
    /// `noti` (HEAD) / `not` (before 2026-02): bitwise not.
    Not = ["noti", "not"] => Unary,
    /// `init`: emits its initial token, then passes its input.
    Init = ["init"] => Unary,
    /// `blocker`: passes its first input when all inputs have tokens.
    Blocker = ["blocker"] => Variadic,
    /// `load`: a load port.
    Load = ["load"] => Load,
    /// `store`: a store port.
    Store = ["store"] => Store,
    /// `mem_controller`: a memory controller.
    MemController = ["mem_controller"] => MemController,
    /// `lsq`: a load-store queue.
    Lsq = ["lsq"] => Lsq,
    /// `end`: the function's return.
    End = ["end"] => End,
    /// `addf`
    AddF = ["addf"] => Binary,
    /// `addi`
    AddI = ["addi"] => Binary,
    /// `andi`
    AndI = ["andi"] => Binary,
    /// `cmpf`
    CmpF = ["cmpf"] => Compare,
    /// `cmpi`
    CmpI = ["cmpi"] => Compare,
    /// `divf`
    DivF = ["divf"] => Binary,
    /// `divsi`
    DivSI = ["divsi"] => Binary,
    /// `divui`
    DivUI = ["divui"] => Binary,
    /// `remsi`
    RemSI = ["remsi"] => Binary,
    /// `maxsi`
    MaxSI = ["maxsi"] => Binary,
    /// `maxui`
    MaxUI = ["maxui"] => Binary,
    /// `minsi`
    MinSI = ["minsi"] => Binary,
    /// `minui`
    MinUI = ["minui"] => Binary,
    /// `maximumf`
    MaximumF = ["maximumf"] => Binary,
    /// `minimumf`
    MinimumF = ["minimumf"] => Binary,
    /// `mulf`
    MulF = ["mulf"] => Binary,
    /// `muli`
    MulI = ["muli"] => Binary,
    /// `ori`
    OrI = ["ori"] => Binary,
    /// `shli`
    ShLI = ["shli"] => Binary,
    /// `shrsi`
    ShRSI = ["shrsi"] => Binary,
    /// `shrui`
    ShRUI = ["shrui"] => Binary,
    /// `subf`
    SubF = ["subf"] => Binary,
    /// `subi`
    SubI = ["subi"] => Binary,
    /// `xori`
    XorI = ["xori"] => Binary,
    /// `negf`
    NegF = ["negf"] => Unary,
    /// `absf`
    AbsF = ["absf"] => Unary,
    /// `absi`
    AbsI = ["absi"] => Unary,
    /// `extsi`
    ExtSI = ["extsi"] => Cast,
    /// `extui`
    ExtUI = ["extui"] => Cast,
    /// `trunci`
    TruncI = ["trunci"] => Cast,
    /// `extf`
    ExtF = ["extf"] => Cast,
    /// `truncf`
    TruncF = ["truncf"] => Cast,
    /// `sitofp`
    SIToFP = ["sitofp"] => Cast,
    /// `uitofp`
    UIToFP = ["uitofp"] => Cast,
    /// `fptosi`
    FPToSI = ["fptosi"] => Cast,
}

impl DynOpKind {
    /// True for [`DynOpKind::Unsupported`].
    pub fn is_unsupported(&self) -> bool {
        matches!(self, DynOpKind::Unsupported(_))
    }
}
