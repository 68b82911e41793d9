//! Registers: which named fields a component holds, in which order the engine stores them, and
//! typed views of their values.
//!
//! The engine keeps a node's registers as consecutive 64-bit words ([`StateLayout::fields`]
//! gives their order); nothing outside this module computes an offset or compares a field name.
//! Field names (`emitted_0`, `won`, `slot1.skid_valid`, ...) are what traces, VCD files and the
//! SystemVerilog library call them.

use std::fmt;

/// Word offsets of a `control_merge`'s registers.
pub mod cmerge_regs {
    /// The input held as winner, one-hot (0 = none held).
    pub const WON: u32 = 0;
    /// `dataOut` was sent while `index` was not.
    pub const RESULT_EMITTED: u32 = 1;
    /// `index` was sent while `dataOut` was not.
    pub const INDEX_EMITTED: u32 = 2;
    /// Number of words.
    pub const WORDS: u32 = 3;
}

/// Word offsets inside one buffer slot (slot `k` starts at `k * WORDS`).
pub mod slot_regs {
    /// The main register holds a token.
    pub const VALID: u32 = 0;
    /// The main register's token.
    pub const DATA: u32 = 1;
    /// The skid register holds a token.
    pub const SKID_VALID: u32 = 2;
    /// The skid register's token.
    pub const SKID_DATA: u32 = 3;
    /// Number of words per slot.
    pub const WORDS: u32 = 4;
}

/// Word offsets inside a pipeline: stage `k` holds `valid` at `2k` and `data` at `2k + 1`;
/// the cooldown counter (only with an initiation interval above 1) follows the stages.
pub mod stage_regs {
    /// The stage holds a token.
    pub const VALID: u32 = 0;
    /// The stage's token.
    pub const DATA: u32 = 1;
    /// Number of words per stage.
    pub const WORDS: u32 = 2;
}

/// Word offsets inside a static island (`docs/static-islands.md`): its phase, the cycles
/// its schedule spends on the edges walked so far, the iterations begun, the cycles since it
/// took its inputs, the next cone's head, whether the walk has left, one `emitted` flag per
/// output, one word per result, then one word per slot.
pub mod island_regs {
    /// [`super::RegField::IslandPhase`].
    pub const PHASE: u32 = 0;
    /// [`super::RegField::IslandSched`].
    pub const SCHED: u32 = 1;
    /// [`super::RegField::IslandIterations`].
    pub const ITERATIONS: u32 = 2;
    /// [`super::RegField::IslandElapsed`].
    pub const ELAPSED: u32 = 3;
    /// [`super::RegField::IslandHead`].
    pub const HEAD: u32 = 4;
    /// [`super::RegField::IslandWalked`].
    pub const WALKED: u32 = 5;
    /// The first output's `emitted` flag.
    pub const EMITTED: u32 = 6;
    /// Phase: waiting for inputs.
    pub const IDLE: u64 = 0;
    /// Phase: running its cones and waiting for its schedule.
    pub const RUNNING: u64 = 1;
    /// Phase: offering the results.
    pub const OFFERING: u64 = 2;
    /// Word of result `i` of an island with `outputs` outputs (control token included).
    pub fn result(outputs: u32, i: u32) -> u32 {
        EMITTED + outputs + i
    }
    /// Word of slot `k`.
    pub fn slot(outputs: u32, k: u32) -> u32 {
        EMITTED + 2 * outputs - 1 + k
    }
}

/// Word offsets of a Dynamatic buffer's FIFO: the number of tokens held, the head's entry,
/// then one word per entry.
pub mod fifo_regs {
    /// Tokens held.
    pub const COUNT: u32 = 0;
    /// The entry holding the oldest token.
    pub const HEAD: u32 = 1;
    /// Entry 0; entry `k` is at `ENTRIES + k`.
    pub const ENTRIES: u32 = 2;
}

/// Word offsets of Dynamatic's `control_merge`: its skid register (full, winner's index,
/// winner's data), then its fork's two `emitted` flags (`outs`, `index`).
pub mod skid_merge_regs {
    /// The skid register holds the winner.
    pub const FULL: u32 = 0;
    /// The held winner's index.
    pub const INDEX: u32 = 1;
    /// The held winner's data.
    pub const DATA: u32 = 2;
    /// `emitted_0` (`outs`) and `emitted_1` (`index`).
    pub const EMITTED: u32 = 3;
    /// Number of words.
    pub const WORDS: u32 = 5;
}

/// Word offsets of Dynamatic's memory controller: its control registers, then two words per
/// load port (`valid`, `data`) from [`mc_regs::LOADS`].
pub mod mc_regs {
    /// `memStart` was taken (its ready is low until `memEnd` is taken).
    pub const START_TAKEN: u32 = 0;
    /// `memEnd` is offered.
    pub const END_VALID: u32 = 1;
    /// `ctrlEnd` is ready.
    pub const CTRL_END_READY: u32 = 2;
    /// Stores announced by the block controls and not done yet (32-bit, wrapping).
    pub const REMAINING_STORES: u32 = 3;
    /// Load port 0's `valid`; port `i`'s is at `LOADS + 2 i`, its data next to it.
    pub const LOADS: u32 = 4;
}

/// Word offsets of a load-store queue: its pointers and control registers, then
/// [`lsq_regs::LOAD_WORDS`] words per load entry from [`lsq_regs::LOADS`], then
/// [`lsq_regs::STORE_WORDS`] per store entry.
pub mod lsq_regs {
    use super::{LsqCtl, LsqLoadPart, LsqStorePart};

    /// Words before the first load entry (one per [`LsqCtl`]).
    pub const LOADS: u32 = LsqCtl::ALL.len() as u32;
    /// Words per load entry (one per [`LsqLoadPart`]).
    pub const LOAD_WORDS: u32 = LsqLoadPart::ALL.len() as u32;
    /// Words per store entry (one per [`LsqStorePart`]).
    pub const STORE_WORDS: u32 = LsqStorePart::ALL.len() as u32;

    /// Offset of control register `c`.
    pub const fn ctl(c: LsqCtl) -> u32 {
        c as u32
    }

    /// Offset of load entry `i`'s `part`.
    pub const fn load(i: u32, part: LsqLoadPart) -> u32 {
        LOADS + i * LOAD_WORDS + part as u32
    }

    /// Offset of store entry `j`'s `part` in a queue of `loads` load entries.
    pub const fn store(loads: u32, j: u32, part: LsqStorePart) -> u32 {
        LOADS + loads * LOAD_WORDS + j * STORE_WORDS + part as u32
    }
}

/// Word offsets of an address queue's registers ([`StateLayout::AddrQueue`]): the number of
/// queued store addresses, one `stOrderOut<j>`-pending flag per store port, one
/// `ldAddrOut<i>`-offered flag per load port, then per entry (entry 0 the oldest) its
/// address and its store port.
pub mod addr_queue_regs {
    /// Queued store addresses.
    pub const COUNT: u32 = 0;
    /// Store port `j`'s `stOrderOut<j>` is offered.
    pub const fn pending(j: u32) -> u32 {
        1 + j
    }
    /// Load port `i` offered its address and it was not taken: it stays offered whatever
    /// enters the queue.
    pub const fn offered(stores: u32, i: u32) -> u32 {
        1 + stores + i
    }
    /// Entry `k`'s address in a queue of `loads` load and `stores` store ports.
    pub const fn addr(loads: u32, stores: u32, k: u32) -> u32 {
        1 + stores + loads + 2 * k
    }
    /// Entry `k`'s store port in a queue of `loads` load and `stores` store ports.
    pub const fn port(loads: u32, stores: u32, k: u32) -> u32 {
        2 + stores + loads + 2 * k
    }
}

/// A load-store queue's pointer and control registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LsqCtl {
    /// Load queue tail: the entry the next group's first load takes.
    LoadTail = 0,
    /// Load queue head: the oldest allocated load entry.
    LoadHead,
    /// Store queue tail.
    StoreTail,
    /// Store queue head: the oldest allocated store entry.
    StoreHead,
    /// Store queue issue pointer: the next store to write memory.
    StoreIssue,
    /// Master: `memStart` was taken (its ready is low until `memEnd` is taken).
    StartTaken,
    /// Master: `memEnd` is offered (once raised, it stays).
    EndValid,
    /// Master: `ctrlEnd` is ready.
    CtrlEndReady,
    /// A read answer arrives this cycle (master; a slave's comes on `ldDataFromMC`).
    ReadValid,
    /// The load entry the read answers.
    ReadId,
    /// The word read (master).
    ReadData,
    /// A write is acknowledged this cycle: the store at the head leaves.
    WriteAck,
}

impl LsqCtl {
    /// Every control register, in word order.
    pub const ALL: [LsqCtl; 12] = [
        LsqCtl::LoadTail,
        LsqCtl::LoadHead,
        LsqCtl::StoreTail,
        LsqCtl::StoreHead,
        LsqCtl::StoreIssue,
        LsqCtl::StartTaken,
        LsqCtl::EndValid,
        LsqCtl::CtrlEndReady,
        LsqCtl::ReadValid,
        LsqCtl::ReadId,
        LsqCtl::ReadData,
        LsqCtl::WriteAck,
    ];

    fn name(self) -> &'static str {
        match self {
            LsqCtl::LoadTail => "ldq_tail",
            LsqCtl::LoadHead => "ldq_head",
            LsqCtl::StoreTail => "stq_tail",
            LsqCtl::StoreHead => "stq_head",
            LsqCtl::StoreIssue => "stq_issue",
            LsqCtl::StartTaken => "mem_start_taken",
            LsqCtl::EndValid => "mem_end_valid",
            LsqCtl::CtrlEndReady => "end_ctrl_ready",
            LsqCtl::ReadValid => "read_valid",
            LsqCtl::ReadId => "read_id",
            LsqCtl::ReadData => "read_data",
            LsqCtl::WriteAck => "write_ack",
        }
    }
}

/// One register of a load queue entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LsqLoadPart {
    /// The entry belongs to a load of an allocated group.
    Alloc = 0,
    /// The load was sent to memory or answered by a store.
    Issued,
    /// Its address arrived.
    AddrValid,
    /// Its address.
    Addr,
    /// Its data arrived.
    DataValid,
    /// Its data.
    Data,
    /// Its load port.
    Port,
    /// Bit `j`: store entry `j` is older than this load (and not yet done).
    OlderStores,
}

impl LsqLoadPart {
    /// Every part, in word order.
    pub const ALL: [LsqLoadPart; 8] = [
        LsqLoadPart::Alloc,
        LsqLoadPart::Issued,
        LsqLoadPart::AddrValid,
        LsqLoadPart::Addr,
        LsqLoadPart::DataValid,
        LsqLoadPart::Data,
        LsqLoadPart::Port,
        LsqLoadPart::OlderStores,
    ];

    fn name(self) -> &'static str {
        match self {
            LsqLoadPart::Alloc => "alloc",
            LsqLoadPart::Issued => "issued",
            LsqLoadPart::AddrValid => "addr_valid",
            LsqLoadPart::Addr => "addr",
            LsqLoadPart::DataValid => "data_valid",
            LsqLoadPart::Data => "data",
            LsqLoadPart::Port => "port",
            LsqLoadPart::OlderStores => "older_stores",
        }
    }
}

/// One register of a store queue entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LsqStorePart {
    /// The entry belongs to a store of an allocated group.
    Alloc = 0,
    /// Its address arrived.
    AddrValid,
    /// Its address.
    Addr,
    /// Its data arrived.
    DataValid,
    /// Its data.
    Data,
    /// Its store port.
    Port,
}

impl LsqStorePart {
    /// Every part, in word order.
    pub const ALL: [LsqStorePart; 6] = [
        LsqStorePart::Alloc,
        LsqStorePart::AddrValid,
        LsqStorePart::Addr,
        LsqStorePart::DataValid,
        LsqStorePart::Data,
        LsqStorePart::Port,
    ];

    fn name(self) -> &'static str {
        match self {
            LsqStorePart::Alloc => "alloc",
            LsqStorePart::AddrValid => "addr_valid",
            LsqStorePart::Addr => "addr",
            LsqStorePart::DataValid => "data_valid",
            LsqStorePart::Data => "data",
            LsqStorePart::Port => "port",
        }
    }
}

/// One of a buffer slot's four registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SlotPart {
    /// Main register full.
    Valid,
    /// Main register data.
    Data,
    /// Skid register full.
    SkidValid,
    /// Skid register data.
    SkidData,
}

impl SlotPart {
    const ALL: [SlotPart; 4] = [
        SlotPart::Valid,
        SlotPart::Data,
        SlotPart::SkidValid,
        SlotPart::SkidData,
    ];

    fn offset(self) -> u32 {
        match self {
            SlotPart::Valid => slot_regs::VALID,
            SlotPart::Data => slot_regs::DATA,
            SlotPart::SkidValid => slot_regs::SKID_VALID,
            SlotPart::SkidData => slot_regs::SKID_DATA,
        }
    }

    fn name(self) -> &'static str {
        match self {
            SlotPart::Valid => "valid",
            SlotPart::Data => "data",
            SlotPart::SkidValid => "skid_valid",
            SlotPart::SkidData => "skid_data",
        }
    }
}

/// A named register field of a component.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RegField {
    /// Eager fork (and `sync`, `unpack`): output `i` already took its copy of the token.
    Emitted(u32),
    /// `control_merge`: the held winner, one-hot.
    Won,
    /// `control_merge`: `dataOut` already sent.
    ResultEmitted,
    /// `control_merge`: `index` already sent.
    IndexEmitted,
    /// A buffer slot's register.
    Slot {
        /// Slot index, 0 at the buffer's input.
        slot: u32,
        /// Which register.
        part: SlotPart,
    },
    /// Memory store port `port`'s write-valid buffer (drives `stDone<port>.valid`).
    StoreWriteValid {
        /// Store port.
        port: u32,
    },
    /// A pipeline stage's full flag.
    StageValid(u32),
    /// A pipeline stage's token.
    StageData(u32),
    /// A pipeline's initiation-interval counter: cycles until it may take the next token.
    Cooldown,
    /// A Dynamatic buffer's token count.
    FifoCount,
    /// A Dynamatic buffer's head entry.
    FifoHead,
    /// A Dynamatic buffer's entry `k`.
    FifoEntry(u32),
    /// Dynamatic `control_merge`: the skid register is full.
    SkidFull,
    /// Dynamatic `control_merge`: the held winner's index.
    SkidIndex,
    /// Dynamatic `control_merge`: the held winner's data.
    SkidData,
    /// Dynamatic `select`: an antitoken waits to discard input `k`'s next token (0 for
    /// `trueValue`, 1 for `falseValue`).
    Antitoken(u32),
    /// Dynamatic `load`: word `word` (0 count, 1 head, 2 the token) of the skid buffer on
    /// `path` 0 (the address) or 1 (the data).
    LoadPath {
        /// 0 address, 1 data.
        path: u32,
        /// Word of the path's one-slot FIFO.
        word: u32,
    },
    /// Dynamatic memory controller: `memStart` was taken.
    McStartTaken,
    /// Dynamatic memory controller: `memEnd` is offered.
    McEndValid,
    /// Dynamatic memory controller: `ctrlEnd` is ready.
    McCtrlEndReady,
    /// Dynamatic memory controller: stores announced and not done.
    McRemainingStores,
    /// Dynamatic memory controller: load port `i`'s data is offered.
    McLoadValid(u32),
    /// Dynamatic memory controller: load port `i`'s data.
    McLoadData(u32),
    /// Load-store queue: a pointer or control register.
    Lsq(LsqCtl),
    /// Load-store queue: a register of load queue entry `entry`.
    LsqLoad {
        /// Load queue entry.
        entry: u32,
        /// Which register.
        part: LsqLoadPart,
    },
    /// Load-store queue: a register of store queue entry `entry`.
    LsqStore {
        /// Store queue entry.
        entry: u32,
        /// Which register.
        part: LsqStorePart,
    },
    /// Address queue: the number of queued store addresses.
    AqCount,
    /// Address queue: store port `j`'s `stOrderOut<j>` is offered.
    AqPending(u32),
    /// Address queue: load port `i` offered its address and it was not taken.
    AqOffered(u32),
    /// Address queue: entry `entry`'s address (entry 0 the oldest).
    AqAddr(u32),
    /// Address queue: entry `entry`'s store port.
    AqPort(u32),
    /// Static island: idle, running or offering its results ([`island_regs`]).
    IslandPhase,
    /// Static island: the cycles its schedule spends on the edges walked so far.
    IslandSched,
    /// Static island: the head of the cone it evaluates next.
    IslandHead,
    /// Static island: its walk has left the region (the results are known).
    IslandWalked,
    /// Static island: the value of slot `k`.
    IslandSlot(u32),
    /// Static island: iterations of the invocation it runs.
    IslandIterations,
    /// Static island: cycles since it took its inputs.
    IslandElapsed,
    /// Static island: result `i` (output `i + 1`).
    IslandResult(u32),
    /// Memory load port `port`'s eager-fork register for `ldData` (`output` 0) or `ldDone` (1).
    LoadEmitted {
        /// Load port.
        port: u32,
        /// 0 for `ldData`, 1 for `ldDone`.
        output: u32,
    },
}

impl RegField {
    /// True when the field holds a token's data (of the node's data width) rather than a flag
    /// or a one-hot word.
    pub fn holds_data(self) -> bool {
        matches!(
            self,
            RegField::Slot {
                part: SlotPart::Data | SlotPart::SkidData,
                ..
            } | RegField::StageData(_)
                | RegField::FifoEntry(_)
                | RegField::SkidData
                | RegField::LoadPath { word: 2, .. }
                | RegField::McLoadData(_)
                | RegField::Lsq(LsqCtl::ReadData)
                | RegField::LsqLoad {
                    part: LsqLoadPart::Data,
                    ..
                }
                | RegField::LsqStore {
                    part: LsqStorePart::Data,
                    ..
                }
        )
    }

    /// Parses a field name as [`fmt::Display`] writes it, with `.` or `_` between a port or
    /// slot prefix and the rest (`slot1.skid_valid`, `slot1_skid_valid`).
    pub fn parse(name: &str) -> Option<RegField> {
        let num = |s: &str| -> Option<u32> {
            (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
                .then(|| s.parse().ok())
                .flatten()
        };
        match name {
            "won" => return Some(RegField::Won),
            "result_emitted" => return Some(RegField::ResultEmitted),
            "index_emitted" => return Some(RegField::IndexEmitted),
            "cooldown" => return Some(RegField::Cooldown),
            "count" => return Some(RegField::FifoCount),
            "head" => return Some(RegField::FifoHead),
            "skid_full" => return Some(RegField::SkidFull),
            "skid_index" => return Some(RegField::SkidIndex),
            "skid_data" => return Some(RegField::SkidData),
            "start_taken" => return Some(RegField::McStartTaken),
            "end_valid" => return Some(RegField::McEndValid),
            "ctrl_end_ready" => return Some(RegField::McCtrlEndReady),
            "remaining_stores" => return Some(RegField::McRemainingStores),
            "antitoken_0" => return Some(RegField::Antitoken(0)),
            "antitoken_1" => return Some(RegField::Antitoken(1)),
            "queued" => return Some(RegField::AqCount),
            "phase" => return Some(RegField::IslandPhase),
            "sched" => return Some(RegField::IslandSched),
            "walked" => return Some(RegField::IslandWalked),
            "cone_head" => return Some(RegField::IslandHead),
            "iterations" => return Some(RegField::IslandIterations),
            "elapsed" => return Some(RegField::IslandElapsed),
            _ => {}
        }
        if let Some(i) = name.strip_prefix("emitted_").and_then(num) {
            return Some(RegField::Emitted(i));
        }
        if let Some(c) = LsqCtl::ALL.into_iter().find(|c| c.name() == name) {
            return Some(RegField::Lsq(c));
        }
        let split = |rest: &str| -> Option<(u32, String)> {
            let cut = rest.find(|c: char| !c.is_ascii_digit())?;
            let (k, tail) = rest.split_at(cut);
            let tail = tail.strip_prefix('.').or_else(|| tail.strip_prefix('_'))?;
            Some((num(k)?, tail.to_string()))
        };
        if let Some(k) = name.strip_prefix("result_").and_then(num) {
            return Some(RegField::IslandResult(k));
        }
        if let Some(k) = name.strip_prefix("slot_").and_then(num) {
            return Some(RegField::IslandSlot(k));
        }
        if let Some(k) = name.strip_prefix("entry").and_then(num) {
            return Some(RegField::FifoEntry(k));
        }
        for (path, prefix) in [(0, "addr"), (1, "data")] {
            if let Some(rest) = name
                .strip_prefix(prefix)
                .and_then(|r| r.strip_prefix('.').or_else(|| r.strip_prefix('_')))
            {
                let word = match rest {
                    "count" => 0,
                    "head" => 1,
                    "entry0" => 2,
                    _ => return None,
                };
                return Some(RegField::LoadPath { path, word });
            }
        }
        if let Some((entry, part)) = name.strip_prefix("q").and_then(split) {
            return match part.as_str() {
                "addr" => Some(RegField::AqAddr(entry)),
                "port" => Some(RegField::AqPort(entry)),
                _ => None,
            };
        }
        if let Some((entry, part)) = name.strip_prefix("ldq").and_then(split) {
            let part = LsqLoadPart::ALL.into_iter().find(|p| p.name() == part)?;
            return Some(RegField::LsqLoad { entry, part });
        }
        if let Some((entry, part)) = name.strip_prefix("stq").and_then(split) {
            let part = LsqStorePart::ALL.into_iter().find(|p| p.name() == part)?;
            return Some(RegField::LsqStore { entry, part });
        }
        if let Some((slot, part)) = name.strip_prefix("slot").and_then(split) {
            let part = SlotPart::ALL.into_iter().find(|p| p.name() == part)?;
            return Some(RegField::Slot { slot, part });
        }
        if let Some((stage, tail)) = name.strip_prefix("stage").and_then(split) {
            return match tail.as_str() {
                "valid" => Some(RegField::StageValid(stage)),
                "data" => Some(RegField::StageData(stage)),
                _ => None,
            };
        }
        if let Some((port, tail)) = name.strip_prefix("st").and_then(split)
            && tail == "write_valid_buffer"
        {
            return Some(RegField::StoreWriteValid { port });
        }
        if let Some((port, tail)) = name.strip_prefix("st").and_then(split)
            && tail == "order_pending"
        {
            return Some(RegField::AqPending(port));
        }
        if let Some((port, tail)) = name.strip_prefix("ld").and_then(split)
            && tail == "offered"
        {
            return Some(RegField::AqOffered(port));
        }
        if let Some((port, tail)) = name.strip_prefix("ld").and_then(split) {
            match tail.as_str() {
                "out_valid" => return Some(RegField::McLoadValid(port)),
                "out_data" => return Some(RegField::McLoadData(port)),
                _ => {}
            }
            let output = tail.strip_prefix("emitted_").and_then(num)?;
            return (output < 2).then_some(RegField::LoadEmitted { port, output });
        }
        None
    }
}

impl fmt::Display for RegField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            RegField::Emitted(i) => write!(f, "emitted_{i}"),
            RegField::Won => write!(f, "won"),
            RegField::ResultEmitted => write!(f, "result_emitted"),
            RegField::IndexEmitted => write!(f, "index_emitted"),
            RegField::Slot { slot, part } => write!(f, "slot{slot}.{}", part.name()),
            RegField::StoreWriteValid { port } => write!(f, "st{port}.write_valid_buffer"),
            RegField::StageValid(k) => write!(f, "stage{k}.valid"),
            RegField::StageData(k) => write!(f, "stage{k}.data"),
            RegField::Cooldown => write!(f, "cooldown"),
            RegField::FifoCount => write!(f, "count"),
            RegField::FifoHead => write!(f, "head"),
            RegField::FifoEntry(k) => write!(f, "entry{k}"),
            RegField::SkidFull => write!(f, "skid_full"),
            RegField::SkidIndex => write!(f, "skid_index"),
            RegField::SkidData => write!(f, "skid_data"),
            RegField::Antitoken(k) => write!(f, "antitoken_{k}"),
            RegField::LoadPath { path, word } => write!(
                f,
                "{}.{}",
                if path == 0 { "addr" } else { "data" },
                match word {
                    0 => "count",
                    1 => "head",
                    _ => "entry0",
                }
            ),
            RegField::McStartTaken => write!(f, "start_taken"),
            RegField::McEndValid => write!(f, "end_valid"),
            RegField::McCtrlEndReady => write!(f, "ctrl_end_ready"),
            RegField::McRemainingStores => write!(f, "remaining_stores"),
            RegField::McLoadValid(i) => write!(f, "ld{i}.out_valid"),
            RegField::McLoadData(i) => write!(f, "ld{i}.out_data"),
            RegField::LoadEmitted { port, output } => write!(f, "ld{port}.emitted_{output}"),
            RegField::Lsq(c) => write!(f, "{}", c.name()),
            RegField::LsqLoad { entry, part } => write!(f, "ldq{entry}.{}", part.name()),
            RegField::LsqStore { entry, part } => write!(f, "stq{entry}.{}", part.name()),
            RegField::AqCount => write!(f, "queued"),
            RegField::AqPending(j) => write!(f, "st{j}.order_pending"),
            RegField::AqOffered(i) => write!(f, "ld{i}.offered"),
            RegField::AqAddr(k) => write!(f, "q{k}.addr"),
            RegField::AqPort(k) => write!(f, "q{k}.port"),
            RegField::IslandPhase => write!(f, "phase"),
            RegField::IslandSched => write!(f, "sched"),
            RegField::IslandHead => write!(f, "cone_head"),
            RegField::IslandWalked => write!(f, "walked"),
            RegField::IslandSlot(k) => write!(f, "slot_{k}"),
            RegField::IslandIterations => write!(f, "iterations"),
            RegField::IslandElapsed => write!(f, "elapsed"),
            RegField::IslandResult(i) => write!(f, "result_{i}"),
        }
    }
}

/// The registers a component holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StateLayout {
    /// No registers.
    None,
    /// One `emitted` flag per output (eager fork, `sync`, `unpack`).
    EmittedPerOutput,
    /// `won`, `result_emitted`, `index_emitted` (`control_merge`).
    ControlMerge,
    /// Four words per slot: valid, data, skid valid, skid data (`buffer`).
    BufferSlots {
        /// Number of slots.
        slots: u32,
    },
    /// Two words per stage (valid, data), stage 0 at the input; then, when `ii > 1`, the
    /// cooldown counter (`pipeline`).
    Pipeline {
        /// Number of stages.
        latency: u32,
        /// Initiation interval.
        ii: u32,
    },
    /// A Dynamatic buffer: token count, head entry, one word per entry.
    Fifo {
        /// Entries.
        slots: u32,
    },
    /// Dynamatic's `control_merge`: skid full, index, data, then `emitted_0`, `emitted_1`.
    SkidMerge,
    /// Dynamatic's `select`: `antitoken_0` (`trueValue`), `antitoken_1` (`falseValue`).
    Antitokens,
    /// Dynamatic's `load`: a one-slot FIFO (count, head, token) per path, address first.
    LoadPaths,
    /// Dynamatic's memory controller: [`mc_regs`].
    DynMc {
        /// Load ports.
        ld: u32,
    },
    /// Dynamatic's load-store queue: [`lsq_regs`].
    DynLsq {
        /// Load queue entries.
        loads: u32,
        /// Store queue entries.
        stores: u32,
    },
    /// An address queue: [`addr_queue_regs`].
    AddrQueue {
        /// Entries.
        depth: u32,
        /// Load ports.
        loads: u32,
        /// Store ports.
        stores: u32,
    },
    /// A static island: [`island_regs`].
    Island {
        /// Outputs, the control token included.
        outputs: u32,
        /// Slots (values) of its region.
        slots: u32,
    },
    /// One write-valid flag per store port, then two eager-fork flags per load port.
    MemoryPorts {
        /// Load ports.
        ld: u32,
        /// Store ports.
        st: u32,
    },
}

impl StateLayout {
    /// The fields of a node with `n_out` outputs, in word order.
    pub fn fields(self, n_out: usize) -> Vec<RegField> {
        match self {
            StateLayout::None => Vec::new(),
            StateLayout::EmittedPerOutput => (0..n_out as u32).map(RegField::Emitted).collect(),
            StateLayout::ControlMerge => {
                vec![
                    RegField::Won,
                    RegField::ResultEmitted,
                    RegField::IndexEmitted,
                ]
            }
            StateLayout::BufferSlots { slots } => (0..slots)
                .flat_map(|slot| SlotPart::ALL.map(|part| RegField::Slot { slot, part }))
                .collect(),
            StateLayout::Pipeline { latency, ii } => (0..latency)
                .flat_map(|k| [RegField::StageValid(k), RegField::StageData(k)])
                .chain((ii > 1).then_some(RegField::Cooldown))
                .collect(),
            StateLayout::Fifo { slots } => [RegField::FifoCount, RegField::FifoHead]
                .into_iter()
                .chain((0..slots).map(RegField::FifoEntry))
                .collect(),
            StateLayout::Antitokens => vec![RegField::Antitoken(0), RegField::Antitoken(1)],
            StateLayout::LoadPaths => (0..2)
                .flat_map(|path| (0..3).map(move |word| RegField::LoadPath { path, word }))
                .collect(),
            StateLayout::DynMc { ld } => [
                RegField::McStartTaken,
                RegField::McEndValid,
                RegField::McCtrlEndReady,
                RegField::McRemainingStores,
            ]
            .into_iter()
            .chain((0..ld).flat_map(|i| [RegField::McLoadValid(i), RegField::McLoadData(i)]))
            .collect(),
            StateLayout::SkidMerge => vec![
                RegField::SkidFull,
                RegField::SkidIndex,
                RegField::SkidData,
                RegField::Emitted(0),
                RegField::Emitted(1),
            ],
            StateLayout::DynLsq { loads, stores } => LsqCtl::ALL
                .into_iter()
                .map(RegField::Lsq)
                .chain((0..loads).flat_map(|entry| {
                    LsqLoadPart::ALL.map(|part| RegField::LsqLoad { entry, part })
                }))
                .chain((0..stores).flat_map(|entry| {
                    LsqStorePart::ALL.map(|part| RegField::LsqStore { entry, part })
                }))
                .collect(),
            StateLayout::AddrQueue {
                depth,
                loads,
                stores,
            } => [RegField::AqCount]
                .into_iter()
                .chain((0..stores).map(RegField::AqPending))
                .chain((0..loads).map(RegField::AqOffered))
                .chain((0..depth).flat_map(|k| [RegField::AqAddr(k), RegField::AqPort(k)]))
                .collect(),
            StateLayout::Island { outputs, slots } => [
                RegField::IslandPhase,
                RegField::IslandSched,
                RegField::IslandIterations,
                RegField::IslandElapsed,
                RegField::IslandHead,
                RegField::IslandWalked,
            ]
            .into_iter()
            .chain((0..outputs).map(RegField::Emitted))
            .chain((0..outputs.saturating_sub(1)).map(RegField::IslandResult))
            .chain((0..slots).map(RegField::IslandSlot))
            .collect(),
            StateLayout::MemoryPorts { ld, st } => {
                (0..st)
                    .map(|port| RegField::StoreWriteValid { port })
                    .chain((0..ld).flat_map(|port| {
                        [0, 1].map(|output| RegField::LoadEmitted { port, output })
                    }))
                    .collect()
            }
        }
    }

    /// Number of register words of a node with `n_out` outputs.
    pub fn words(self, n_out: usize) -> u32 {
        match self {
            StateLayout::None => 0,
            StateLayout::EmittedPerOutput => n_out as u32,
            StateLayout::ControlMerge => cmerge_regs::WORDS,
            StateLayout::BufferSlots { slots } => slots * slot_regs::WORDS,
            StateLayout::Pipeline { latency, ii } => {
                latency * stage_regs::WORDS + u32::from(ii > 1)
            }
            StateLayout::Fifo { slots } => fifo_regs::ENTRIES + slots,
            StateLayout::SkidMerge => skid_merge_regs::WORDS,
            StateLayout::Antitokens => 2,
            StateLayout::LoadPaths => 6,
            StateLayout::DynMc { ld } => mc_regs::LOADS + 2 * ld,
            StateLayout::MemoryPorts { ld, st } => st + 2 * ld,
            StateLayout::Island { outputs, slots } => island_regs::slot(outputs, slots),
            StateLayout::AddrQueue {
                depth,
                loads,
                stores,
            } => 1 + stores + loads + 2 * depth,
            StateLayout::DynLsq { loads, stores } => {
                lsq_regs::LOADS + loads * lsq_regs::LOAD_WORDS + stores * lsq_regs::STORE_WORDS
            }
        }
    }

    /// Word offset of `field` in this layout, if the layout has it.
    pub fn offset(self, field: RegField) -> Option<u32> {
        match (self, field) {
            (StateLayout::EmittedPerOutput, RegField::Emitted(i)) => Some(i),
            (StateLayout::ControlMerge, RegField::Won) => Some(cmerge_regs::WON),
            (StateLayout::ControlMerge, RegField::ResultEmitted) => {
                Some(cmerge_regs::RESULT_EMITTED)
            }
            (StateLayout::ControlMerge, RegField::IndexEmitted) => Some(cmerge_regs::INDEX_EMITTED),
            (StateLayout::BufferSlots { slots }, RegField::Slot { slot, part }) if slot < slots => {
                Some(slot * slot_regs::WORDS + part.offset())
            }
            (StateLayout::Pipeline { latency, .. }, RegField::StageValid(k)) if k < latency => {
                Some(k * stage_regs::WORDS + stage_regs::VALID)
            }
            (StateLayout::Pipeline { latency, .. }, RegField::StageData(k)) if k < latency => {
                Some(k * stage_regs::WORDS + stage_regs::DATA)
            }
            (StateLayout::Pipeline { latency, ii }, RegField::Cooldown) if ii > 1 => {
                Some(latency * stage_regs::WORDS)
            }
            (StateLayout::Fifo { .. }, RegField::FifoCount) => Some(fifo_regs::COUNT),
            (StateLayout::Fifo { .. }, RegField::FifoHead) => Some(fifo_regs::HEAD),
            (StateLayout::Fifo { slots }, RegField::FifoEntry(k)) if k < slots => {
                Some(fifo_regs::ENTRIES + k)
            }
            (StateLayout::Antitokens, RegField::Antitoken(k)) if k < 2 => Some(k),
            (StateLayout::LoadPaths, RegField::LoadPath { path, word }) if path < 2 && word < 3 => {
                Some(3 * path + word)
            }
            (StateLayout::DynMc { .. }, RegField::McStartTaken) => Some(mc_regs::START_TAKEN),
            (StateLayout::DynMc { .. }, RegField::McEndValid) => Some(mc_regs::END_VALID),
            (StateLayout::DynMc { .. }, RegField::McCtrlEndReady) => Some(mc_regs::CTRL_END_READY),
            (StateLayout::DynMc { .. }, RegField::McRemainingStores) => {
                Some(mc_regs::REMAINING_STORES)
            }
            (StateLayout::DynMc { ld }, RegField::McLoadValid(i)) if i < ld => {
                Some(mc_regs::LOADS + 2 * i)
            }
            (StateLayout::DynMc { ld }, RegField::McLoadData(i)) if i < ld => {
                Some(mc_regs::LOADS + 2 * i + 1)
            }
            (StateLayout::DynLsq { .. }, RegField::Lsq(c)) => Some(lsq_regs::ctl(c)),
            (StateLayout::DynLsq { loads, .. }, RegField::LsqLoad { entry, part })
                if entry < loads =>
            {
                Some(lsq_regs::load(entry, part))
            }
            (StateLayout::DynLsq { loads, stores }, RegField::LsqStore { entry, part })
                if entry < stores =>
            {
                Some(lsq_regs::store(loads, entry, part))
            }
            (StateLayout::AddrQueue { .. }, RegField::AqCount) => Some(addr_queue_regs::COUNT),
            (StateLayout::AddrQueue { stores, .. }, RegField::AqPending(j)) if j < stores => {
                Some(addr_queue_regs::pending(j))
            }
            (StateLayout::AddrQueue { loads, stores, .. }, RegField::AqOffered(i)) if i < loads => {
                Some(addr_queue_regs::offered(stores, i))
            }
            (
                StateLayout::AddrQueue {
                    depth,
                    loads,
                    stores,
                },
                RegField::AqAddr(k),
            ) if k < depth => Some(addr_queue_regs::addr(loads, stores, k)),
            (
                StateLayout::AddrQueue {
                    depth,
                    loads,
                    stores,
                },
                RegField::AqPort(k),
            ) if k < depth => Some(addr_queue_regs::port(loads, stores, k)),
            (StateLayout::SkidMerge, RegField::SkidFull) => Some(skid_merge_regs::FULL),
            (StateLayout::SkidMerge, RegField::SkidIndex) => Some(skid_merge_regs::INDEX),
            (StateLayout::SkidMerge, RegField::SkidData) => Some(skid_merge_regs::DATA),
            (StateLayout::SkidMerge, RegField::Emitted(i)) if i < 2 => {
                Some(skid_merge_regs::EMITTED + i)
            }
            (StateLayout::Island { .. }, RegField::IslandPhase) => Some(island_regs::PHASE),
            (StateLayout::Island { .. }, RegField::IslandSched) => Some(island_regs::SCHED),
            (StateLayout::Island { .. }, RegField::IslandHead) => Some(island_regs::HEAD),
            (StateLayout::Island { .. }, RegField::IslandWalked) => Some(island_regs::WALKED),
            (StateLayout::Island { outputs, slots }, RegField::IslandSlot(k)) if k < slots => {
                Some(island_regs::slot(outputs, k))
            }
            (StateLayout::Island { .. }, RegField::IslandIterations) => {
                Some(island_regs::ITERATIONS)
            }
            (StateLayout::Island { .. }, RegField::IslandElapsed) => Some(island_regs::ELAPSED),
            (StateLayout::Island { outputs, .. }, RegField::Emitted(i)) if i < outputs => {
                Some(island_regs::EMITTED + i)
            }
            (StateLayout::Island { outputs, .. }, RegField::IslandResult(i)) if i + 1 < outputs => {
                Some(island_regs::result(outputs, i))
            }
            (StateLayout::MemoryPorts { st, .. }, RegField::StoreWriteValid { port })
                if port < st =>
            {
                Some(port)
            }
            (StateLayout::MemoryPorts { ld, st }, RegField::LoadEmitted { port, output })
                if port < ld && output < 2 =>
            {
                Some(st + 2 * port + output)
            }
            _ => None,
        }
    }

    /// Reads a node's register words (in [`StateLayout::fields`] order; missing words read
    /// as 0) as typed state.
    pub fn decode(self, words: &[u64]) -> NodeState {
        let w = |i: u32| words.get(i as usize).copied().unwrap_or(0);
        match self {
            StateLayout::None => NodeState::Stateless,
            StateLayout::EmittedPerOutput => {
                NodeState::Emitted(words.iter().map(|&x| x != 0).collect())
            }
            StateLayout::ControlMerge => {
                let won = w(cmerge_regs::WON);
                NodeState::ControlMerge {
                    won: (won != 0).then(|| won.trailing_zeros()),
                    result_emitted: w(cmerge_regs::RESULT_EMITTED) != 0,
                    index_emitted: w(cmerge_regs::INDEX_EMITTED) != 0,
                }
            }
            StateLayout::BufferSlots { slots } => NodeState::Buffer(
                (0..slots)
                    .map(|k| {
                        let base = k * slot_regs::WORDS;
                        let get =
                            |valid: u32, data: u32| (w(base + valid) != 0).then(|| w(base + data));
                        SlotState {
                            main: get(slot_regs::VALID, slot_regs::DATA),
                            skid: get(slot_regs::SKID_VALID, slot_regs::SKID_DATA),
                        }
                    })
                    .collect(),
            ),
            StateLayout::Pipeline { latency, ii } => NodeState::Pipeline(PipelineState {
                stages: (0..latency)
                    .map(|k| {
                        let base = k * stage_regs::WORDS;
                        (w(base + stage_regs::VALID) != 0).then(|| w(base + stage_regs::DATA))
                    })
                    .collect(),
                cooldown: if ii > 1 {
                    w(latency * stage_regs::WORDS) as u32
                } else {
                    0
                },
            }),
            // A FIFO's tokens as the slots of a buffer, the oldest in the last slot (at the
            // output), so views of buffers show them the same way.
            StateLayout::Fifo { slots } => {
                let (count, head) = (w(fifo_regs::COUNT), w(fifo_regs::HEAD));
                let n = u64::from(slots.max(1));
                NodeState::Buffer(
                    (0..slots)
                        .map(|k| {
                            let age = u64::from(slots - 1 - k);
                            let main = (age < count)
                                .then(|| w(fifo_regs::ENTRIES + ((head + age) % n) as u32));
                            SlotState { main, skid: None }
                        })
                        .collect(),
                )
            }
            StateLayout::Antitokens => NodeState::Antitokens([w(0) != 0, w(1) != 0]),
            StateLayout::LoadPaths => NodeState::Buffer(
                (0..2)
                    .map(|p| SlotState {
                        main: (w(3 * p) != 0).then(|| w(3 * p + 2)),
                        skid: None,
                    })
                    .collect(),
            ),
            StateLayout::DynMc { ld } => NodeState::MemoryController {
                started: w(mc_regs::START_TAKEN) != 0,
                end_offered: w(mc_regs::END_VALID) != 0,
                remaining_stores: w(mc_regs::REMAINING_STORES) as u32 as i32 as i64,
                loads: (0..ld)
                    .map(|i| {
                        (w(mc_regs::LOADS + 2 * i) != 0).then(|| w(mc_regs::LOADS + 2 * i + 1))
                    })
                    .collect(),
            },
            StateLayout::SkidMerge => NodeState::ControlMerge {
                won: (w(skid_merge_regs::FULL) != 0).then(|| w(skid_merge_regs::INDEX) as u32),
                result_emitted: w(skid_merge_regs::EMITTED) != 0,
                index_emitted: w(skid_merge_regs::EMITTED + 1) != 0,
            },
            StateLayout::AddrQueue {
                depth,
                loads,
                stores,
            } => NodeState::AddrQueue {
                entries: (0..(w(addr_queue_regs::COUNT) as u32).min(depth))
                    .map(|k| {
                        (
                            w(addr_queue_regs::addr(loads, stores, k)),
                            w(addr_queue_regs::port(loads, stores, k)) as u32,
                        )
                    })
                    .collect(),
                order_pending: (0..stores)
                    .map(|j| w(addr_queue_regs::pending(j)) != 0)
                    .collect(),
                offered: (0..loads)
                    .map(|i| w(addr_queue_regs::offered(stores, i)) != 0)
                    .collect(),
            },
            StateLayout::DynLsq { loads, stores } => {
                let ctl = |c: LsqCtl| w(lsq_regs::ctl(c));
                let ld = |i: u32, p: LsqLoadPart| w(lsq_regs::load(i, p));
                let st = |j: u32, p: LsqStorePart| w(lsq_regs::store(loads, j, p));
                let known = |valid: u64, v: u64| (valid != 0).then_some(v);
                NodeState::Lsq(LsqState {
                    load_tail: ctl(LsqCtl::LoadTail) as u32,
                    load_head: ctl(LsqCtl::LoadHead) as u32,
                    store_tail: ctl(LsqCtl::StoreTail) as u32,
                    store_head: ctl(LsqCtl::StoreHead) as u32,
                    store_issue: ctl(LsqCtl::StoreIssue) as u32,
                    end_offered: ctl(LsqCtl::EndValid) != 0,
                    loads: (0..loads)
                        .map(|i| {
                            (ld(i, LsqLoadPart::Alloc) != 0).then(|| LsqLoadEntry {
                                port: ld(i, LsqLoadPart::Port) as u32,
                                addr: known(
                                    ld(i, LsqLoadPart::AddrValid),
                                    ld(i, LsqLoadPart::Addr),
                                ),
                                issued: ld(i, LsqLoadPart::Issued) != 0,
                                data: known(
                                    ld(i, LsqLoadPart::DataValid),
                                    ld(i, LsqLoadPart::Data),
                                ),
                                older_stores: ld(i, LsqLoadPart::OlderStores),
                            })
                        })
                        .collect(),
                    stores: (0..stores)
                        .map(|j| {
                            (st(j, LsqStorePart::Alloc) != 0).then(|| LsqStoreEntry {
                                port: st(j, LsqStorePart::Port) as u32,
                                addr: known(
                                    st(j, LsqStorePart::AddrValid),
                                    st(j, LsqStorePart::Addr),
                                ),
                                data: known(
                                    st(j, LsqStorePart::DataValid),
                                    st(j, LsqStorePart::Data),
                                ),
                            })
                        })
                        .collect(),
                })
            }
            StateLayout::Island { outputs, .. } => NodeState::Island(IslandState {
                phase: match w(island_regs::PHASE) {
                    island_regs::RUNNING => IslandPhase::Running,
                    island_regs::OFFERING => IslandPhase::Offering,
                    _ => IslandPhase::Idle,
                },
                sched: w(island_regs::SCHED),
                walked: w(island_regs::WALKED) != 0,
                iterations: w(island_regs::ITERATIONS),
                elapsed: w(island_regs::ELAPSED),
                emitted: (0..outputs)
                    .map(|i| w(island_regs::EMITTED + i) != 0)
                    .collect(),
                results: (0..outputs.saturating_sub(1))
                    .map(|i| w(island_regs::result(outputs, i)))
                    .collect(),
            }),
            StateLayout::MemoryPorts { ld, st } => NodeState::Memory {
                store_done_pending: (0..st).map(|j| w(j) != 0).collect(),
                load_emitted: (0..ld)
                    .map(|i| [w(st + 2 * i) != 0, w(st + 2 * i + 1) != 0])
                    .collect(),
            },
        }
    }
}

/// Where a static island is in an invocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IslandPhase {
    /// Waiting for its inputs.
    Idle,
    /// Iterations are in its pipeline; the results are not out yet.
    Running,
    /// Offering the results of the invocation.
    Offering,
}

/// A static island's registers, decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IslandState {
    /// Idle, running or offering.
    pub phase: IslandPhase,
    /// The cycles the schedule spends on the edges walked so far: once the walk has left,
    /// the cycles from taking the inputs to offering the results.
    pub sched: u64,
    /// The walk has left the region: the results are known and wait for the schedule.
    pub walked: bool,
    /// Iterations of the current (or last) invocation.
    pub iterations: u64,
    /// Cycles since the current invocation's inputs were taken.
    pub elapsed: u64,
    /// Per output (the control token first): already taken.
    pub emitted: Vec<bool>,
    /// The results of the current invocation (outputs `1..`).
    pub results: Vec<u64>,
}

/// One buffer slot's contents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlotState {
    /// The main register's token, if full.
    pub main: Option<u64>,
    /// The skid register's token, if full.
    pub skid: Option<u64>,
}

impl SlotState {
    /// Number of tokens held (0, 1 or 2).
    pub fn tokens(self) -> usize {
        usize::from(self.main.is_some()) + usize::from(self.skid.is_some())
    }

    /// The token the slot offers downstream: the skid register's when full, else the main one.
    pub fn front(self) -> Option<u64> {
        self.skid.or(self.main)
    }
}

/// A load queue entry of an allocated group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LsqLoadEntry {
    /// Its load port.
    pub port: u32,
    /// Its address, once it arrived.
    pub addr: Option<u64>,
    /// Sent to memory or answered by a store.
    pub issued: bool,
    /// Its data, once it arrived.
    pub data: Option<u64>,
    /// Bit `j`: store entry `j` is older than this load.
    pub older_stores: u64,
}

/// A store queue entry of an allocated group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LsqStoreEntry {
    /// Its store port.
    pub port: u32,
    /// Its address, once it arrived.
    pub addr: Option<u64>,
    /// Its data, once it arrived.
    pub data: Option<u64>,
}

/// A load-store queue's two queues.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LsqState {
    /// Load queue tail (next entry to allocate).
    pub load_tail: u32,
    /// Load queue head (oldest entry).
    pub load_head: u32,
    /// Store queue tail.
    pub store_tail: u32,
    /// Store queue head.
    pub store_head: u32,
    /// The next store to write memory.
    pub store_issue: u32,
    /// `memEnd` is offered (master).
    pub end_offered: bool,
    /// Per load entry, its contents when allocated.
    pub loads: Vec<Option<LsqLoadEntry>>,
    /// Per store entry, its contents when allocated.
    pub stores: Vec<Option<LsqStoreEntry>>,
}

impl LsqState {
    /// Load entries in age order (oldest first), from the head.
    pub fn loads_by_age(&self) -> Vec<(u32, LsqLoadEntry)> {
        by_age(&self.loads, self.load_head)
    }

    /// Store entries in age order (oldest first), from the head.
    pub fn stores_by_age(&self) -> Vec<(u32, LsqStoreEntry)> {
        by_age(&self.stores, self.store_head)
    }

    /// Entries in use: (loads, stores).
    pub fn occupancy(&self) -> (usize, usize) {
        (
            self.loads.iter().flatten().count(),
            self.stores.iter().flatten().count(),
        )
    }

    /// What load entry `i` waits for, in words (`None` when it is not allocated): its
    /// address, an older store (the youngest older one with the same or an unknown address),
    /// memory, or its port taking its data.
    pub fn load_status(&self, i: u32) -> Option<String> {
        let l = self.loads.get(i as usize).copied().flatten()?;
        Some(match (l.addr, l.data) {
            (None, _) => format!("load entry {i} (port {}) waits for its address", l.port),
            (Some(a), Some(d)) => {
                format!("load entry {i} has its data ({d} from address {a}) and waits to be taken")
            }
            (Some(a), None) if l.issued => {
                format!("load entry {i} (address {a}) waits for memory's answer")
            }
            (Some(a), None) => {
                let blocker =
                    self.stores_by_age().into_iter().rev().find(|(j, s)| {
                        l.older_stores >> j & 1 == 1 && s.addr.is_none_or(|sa| sa == a)
                    });
                match blocker {
                    Some((j, s)) if s.addr.is_none() => format!(
                        "load entry {i} (address {a}) waits: older store entry {j} has no address yet"
                    ),
                    Some((j, _)) => format!(
                        "load entry {i} (address {a}) waits: older store entry {j} to the same address has no data yet"
                    ),
                    None => format!("load entry {i} (address {a}) waits to be sent to memory"),
                }
            }
        })
    }

    /// What store entry `j` waits for, in words (`None` when it is not allocated).
    pub fn store_status(&self, j: u32) -> Option<String> {
        let s = self.stores.get(j as usize).copied().flatten()?;
        Some(match (s.addr, s.data) {
            (None, _) => format!("store entry {j} (port {}) waits for its address", s.port),
            (Some(a), None) => format!("store entry {j} (address {a}) waits for its data"),
            (Some(a), Some(_)) if j != self.store_issue => {
                format!("store entry {j} (address {a}) waits for the older stores to write")
            }
            (Some(a), Some(_)) => {
                let older_load = self
                    .loads_by_age()
                    .into_iter()
                    .find(|(_, l)| l.older_stores >> j & 1 == 0 && l.addr.is_none_or(|la| la == a));
                match older_load {
                    Some((i, l)) if l.addr.is_none() => format!(
                        "store entry {j} (address {a}) waits: older load entry {i} has no address yet"
                    ),
                    Some((i, _)) => format!(
                        "store entry {j} (address {a}) waits: older load entry {i} reads the same address and has not delivered its data"
                    ),
                    None => format!("store entry {j} (address {a}) writes memory"),
                }
            }
        })
    }
}

fn by_age<T: Copy>(entries: &[Option<T>], head: u32) -> Vec<(u32, T)> {
    let n = entries.len();
    (0..n)
        .map(|k| (head as usize + k) % n.max(1))
        .filter_map(|i| entries[i].map(|e| (i as u32, e)))
        .collect()
}

/// A pipeline's registers: what each stage holds, stage 0 at the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipelineState {
    /// Per stage, its token if full.
    pub stages: Vec<Option<u64>>,
    /// Cycles before the pipeline may take its next token (0 = it may take one now).
    pub cooldown: u32,
}

/// One token in flight in a pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StageToken {
    /// The stage holding it (0 at the input).
    pub stage: u32,
    /// Its value (bit pattern).
    pub value: u64,
    /// Cycles until it is offered at the output if nothing stalls it (0: offered now).
    pub remaining: u32,
}

impl PipelineState {
    /// Number of stages (the latency).
    pub fn latency(&self) -> u32 {
        self.stages.len() as u32
    }

    /// Number of tokens in flight.
    pub fn occupancy(&self) -> usize {
        self.stages.iter().filter(|s| s.is_some()).count()
    }

    /// The tokens in flight, the one nearest the output first.
    pub fn in_flight(&self) -> Vec<StageToken> {
        let last = self.latency().saturating_sub(1);
        self.stages
            .iter()
            .enumerate()
            .rev()
            .filter_map(|(k, v)| {
                v.map(|value| StageToken {
                    stage: k as u32,
                    value,
                    remaining: last - k as u32,
                })
            })
            .collect()
    }
}

/// A node's registers as typed values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeState {
    /// The component has no registers.
    Stateless,
    /// Per output: already took its copy of the current token.
    Emitted(Vec<bool>),
    /// A `control_merge`'s registers.
    ControlMerge {
        /// Input held as winner until both outputs are sent.
        won: Option<u32>,
        /// `dataOut` already sent.
        result_emitted: bool,
        /// `index` already sent.
        index_emitted: bool,
    },
    /// A buffer's slots, slot 0 at the input.
    Buffer(Vec<SlotState>),
    /// Dynamatic `select`: an antitoken waits on `trueValue`, on `falseValue`.
    Antitokens([bool; 2]),
    /// Dynamatic's memory controller.
    MemoryController {
        /// `memStart` was taken and `memEnd` not yet.
        started: bool,
        /// `memEnd` is offered.
        end_offered: bool,
        /// Stores the block controls announced that have not been done (negative while
        /// stores run ahead of their block's count).
        remaining_stores: i64,
        /// Per load port, the data it offers.
        loads: Vec<Option<u64>>,
    },
    /// A pipeline's stages.
    Pipeline(PipelineState),
    /// Dynamatic's load-store queue.
    Lsq(LsqState),
    /// An address queue.
    AddrQueue {
        /// Queued store addresses, the oldest first: (address, store port).
        entries: Vec<(u64, u32)>,
        /// Per store port: `stOrderOut<j>` is offered.
        order_pending: Vec<bool>,
        /// Per load port: its address was offered and not taken (it stays offered).
        offered: Vec<bool>,
    },
    /// A static island's registers.
    Island(IslandState),
    /// A memory's port registers.
    Memory {
        /// Per store port: a write happened and its `stDone` token is not taken yet.
        store_done_pending: Vec<bool>,
        /// Per load port: `[ldData, ldDone]` already sent.
        load_emitted: Vec<[bool; 2]>,
    },
}

impl NodeState {
    /// True for a buffer or a pipeline that holds no token (false for anything else).
    pub fn is_empty_buffer(&self) -> bool {
        match self {
            NodeState::Buffer(slots) => slots.iter().all(|s| s.tokens() == 0),
            NodeState::Pipeline(p) => p.occupancy() == 0,
            NodeState::Stateless
            | NodeState::Emitted(_)
            | NodeState::ControlMerge { .. }
            | NodeState::Antitokens(_)
            | NodeState::MemoryController { .. }
            | NodeState::Lsq(_)
            | NodeState::AddrQueue { .. }
            | NodeState::Island(_)
            | NodeState::Memory { .. } => false,
        }
    }
}
