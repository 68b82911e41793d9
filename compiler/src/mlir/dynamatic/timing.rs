//! How many cycles each of Dynamatic's multi-cycle units takes.
//!
//! Files of the `latency = N` era say it on the op. Older files name the implementation
//! Dynamatic's buffer placement chose by its delay (`internal_delay = "2_922000"`), a key into
//! the `latency` table of that Dynamatic's `components.json` (per unit, per data width, per
//! delay). [`DynTiming::builtin`] holds the numbers of the `components.json` of Dynamatic's
//! published kernels (branch `specv2-final`, commit 1f61d1c3, its FloPoCo float units);
//! [`DynTiming::from_components_json`] reads another one (`--timing dynamatic=FILE`).

use std::collections::BTreeMap;

/// Latency tables: unit (`addf`), data width, delay key (`2.922000`) → cycles.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct DynTiming {
    /// Per unit mnemonic, per width, per delay key (as `components.json` writes it).
    units: BTreeMap<String, BTreeMap<u32, BTreeMap<String, u32>>>,
    /// Where the table comes from, for messages.
    pub source: String,
}

/// Why a unit's latency could not be decided.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LatencyError {
    /// The delay names no implementation in the table.
    #[error(
        "`{unit}` with internal_delay = \"{delay}\" is not in {table}'s latency table (it has {known})"
    )]
    UnknownDelay {
        /// The unit.
        unit: String,
        /// The delay as written.
        delay: String,
        /// The table's source.
        table: String,
        /// The delays the table knows for the unit.
        known: String,
    },
    /// The table has several latencies for the unit and the op names none.
    #[error("`{unit}` has no internal_delay, and {table} gives it several latencies ({known})")]
    Ambiguous {
        /// The unit.
        unit: String,
        /// The table's source.
        table: String,
        /// The latencies it has.
        known: String,
    },
}

/// `components.json` could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct TimingFileError(pub String);

impl DynTiming {
    /// The latencies of Dynamatic's published kernels (`components.json` at commit 1f61d1c3,
    /// with the FloPoCo float units its kernels were generated with).
    pub fn builtin() -> DynTiming {
        let mut t = DynTiming {
            units: BTreeMap::new(),
            source: "the built-in table (Dynamatic 1f61d1c3's components.json)".into(),
        };
        let rows: &[(&str, u32, &str, u32)] = &[
            ("addf", 32, "2.922000", 9),
            ("addf", 64, "2.705000", 12),
            ("addf", 64, "5.091333", 7),
            ("addf", 64, "9.068000", 2),
            ("subf", 32, "2.0", 9),
            ("mulf", 32, "2.034000", 4),
            ("mulf", 32, "2.783000", 4),
            ("mulf", 32, "2.875333", 4),
            ("mulf", 64, "2.046000", 4),
            ("mulf", 64, "2.758000", 4),
            ("mulf", 64, "4.242333", 4),
            ("divf", 32, "3.812000", 20),
            ("muli", 64, "1.0", 4),
            ("divui", 64, "1.0", 38),
            ("divui", 64, "2.0", 36),
            ("divsi", 64, "1.0", 36),
            ("divsi", 64, "2.0", 36),
        ];
        for &(unit, width, delay, cycles) in rows {
            t.units
                .entry(unit.to_string())
                .or_default()
                .entry(width)
                .or_default()
                .insert(delay.to_string(), cycles);
        }
        t
    }

    /// Reads the `latency` tables of a Dynamatic `components.json` (`name` for messages).
    /// A unit with several implementations (`handshake.addf.flopoco`, `.vivado`) takes the
    /// FloPoCo one, as Dynamatic's default flow does.
    pub fn from_components_json(text: &str, name: &str) -> Result<DynTiming, TimingFileError> {
        let v: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| TimingFileError(format!("{name}: not JSON: {e}")))?;
        let obj = v
            .as_object()
            .ok_or_else(|| TimingFileError(format!("{name}: expected an object of components")))?;
        let mut t = DynTiming {
            units: BTreeMap::new(),
            source: name.to_string(),
        };
        for (key, comp) in obj {
            let Some(rest) = key.strip_prefix("handshake.") else {
                continue;
            };
            let (unit, variant) = rest.split_once('.').unwrap_or((rest, ""));
            // Another implementation than FloPoCo's only when the unit has no FloPoCo one.
            let other = !(variant.is_empty() || variant == "flopoco");
            if other
                && (t.units.contains_key(unit)
                    || obj.contains_key(&format!("handshake.{unit}.flopoco")))
            {
                continue;
            }
            let Some(lat) = comp.get("latency").and_then(|l| l.as_object()) else {
                continue;
            };
            let mut widths = BTreeMap::new();
            let cycles = |c: &serde_json::Value| {
                c.as_f64()
                    .filter(|c| *c >= 0.0 && c.fract() == 0.0 && *c <= f64::from(u32::MAX))
                    .map(|c| c as u32)
            };
            for (w, delays) in lat {
                let Ok(w) = w.parse::<u32>() else { continue };
                let mut m = BTreeMap::new();
                match delays {
                    // Files of 2024 give one latency per width (`"64": 4.0`).
                    serde_json::Value::Number(_) => {
                        if let Some(c) = cycles(delays) {
                            m.insert("any".to_string(), c);
                        }
                    }
                    serde_json::Value::Object(delays) => {
                        for (d, c) in delays {
                            if let Some(c) = cycles(c) {
                                m.insert(d.clone(), c);
                            }
                        }
                    }
                    _ => continue,
                }
                widths.insert(w, m);
            }
            t.units.insert(unit.to_string(), widths);
        }
        Ok(t)
    }

    /// The latency of `unit` (a mnemonic) on data of `width` bits, from its
    /// `internal_delay` when it has one. A unit the table does not list is combinational
    /// (0); so is one whose every latency is 0.
    pub fn latency(
        &self,
        unit: &str,
        width: u32,
        internal_delay: Option<&str>,
    ) -> Result<u32, LatencyError> {
        let Some(widths) = self.units.get(unit) else {
            return Ok(0);
        };
        // The table for the op's width, else the narrowest wider one, else the widest.
        let table = widths
            .range(width..)
            .next()
            .or_else(|| widths.iter().next_back())
            .map(|(_, t)| t);
        let all: Vec<u32> = widths.values().flat_map(|t| t.values().copied()).collect();
        if all.iter().all(|&c| c == 0) {
            return Ok(0);
        }
        if let Some(delay) = internal_delay {
            let key = delay.replace('_', ".");
            let want: f64 = key.parse().unwrap_or(f64::NAN);
            // Keys are written with varying precision (`2.0`, `2.922000`): compare numbers.
            let find = |t: &BTreeMap<String, u32>| {
                t.iter()
                    .find(|(k, _)| k.parse::<f64>().is_ok_and(|k| (k - want).abs() < 1e-9))
                    .map(|(_, &c)| c)
            };
            if let Some(c) = table
                .and_then(find)
                .or_else(|| widths.values().find_map(find))
            {
                return Ok(c);
            }
            let mut distinct: Vec<u32> = all.clone();
            distinct.sort_unstable();
            distinct.dedup();
            if let [only] = distinct[..] {
                return Ok(only);
            }
            let known: Vec<String> = widths
                .iter()
                .flat_map(|(w, t)| t.keys().map(move |k| format!("{k} at {w} bits")))
                .collect();
            return Err(LatencyError::UnknownDelay {
                unit: unit.into(),
                delay: delay.into(),
                table: self.source.clone(),
                known: known.join(", "),
            });
        }
        let mut distinct = all;
        distinct.sort_unstable();
        distinct.dedup();
        match distinct[..] {
            [only] => Ok(only),
            _ => Err(LatencyError::Ambiguous {
                unit: unit.into(),
                table: self.source.clone(),
                known: distinct
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(", "),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_table_gives_the_published_kernels_latencies() {
        let t = DynTiming::builtin();
        assert_eq!(t.latency("addf", 32, Some("2_922000")), Ok(9));
        assert_eq!(t.latency("subf", 32, Some("2_000000")), Ok(9));
        assert_eq!(t.latency("mulf", 32, Some("2_875333")), Ok(4));
        assert_eq!(t.latency("divf", 32, Some("3_812000")), Ok(20));
        assert_eq!(t.latency("cmpf", 32, Some("0_000000")), Ok(0));
        assert_eq!(t.latency("muli", 32, None), Ok(4));
        assert_eq!(t.latency("addi", 32, None), Ok(0));
        assert_eq!(t.latency("addf", 64, Some("5_091333")), Ok(7));
        let e = t.latency("addf", 32, Some("1_500000")).unwrap_err();
        assert!(e.to_string().contains("2.922000 at 32 bits"), "{e}");
        assert!(matches!(
            t.latency("divui", 32, None),
            Err(LatencyError::Ambiguous { .. })
        ));
    }

    #[test]
    fn a_components_json_is_read_preferring_flopoco() {
        let json = r#"{
            "handshake.addf.flopoco": {"latency": {"32": {"2.5": 7.0}}},
            "handshake.addf.vivado": {"latency": {"32": {"2.5": 11.0}}},
            "handshake.muli": {"latency": {"64": {"1.0": 3.0}}},
            "handshake.addi": {"latency": {"64": {"0.0": 0.0}}},
            "handshake.fork": {"delay": {}}
        }"#;
        let t = DynTiming::from_components_json(json, "c.json").unwrap();
        assert_eq!(t.latency("addf", 32, Some("2_500000")), Ok(7));
        assert_eq!(t.latency("muli", 16, None), Ok(3));
        assert_eq!(t.latency("addi", 32, None), Ok(0));
        // The 2024 format: one latency per width, whatever the delay.
        let old = r#"{"handshake.muli": {"latency": {"64": 4.0}}, "handshake.addf": {"latency": {"64": 9.0}}}"#;
        let t = DynTiming::from_components_json(old, "old.json").unwrap();
        assert_eq!(t.latency("muli", 32, None), Ok(4));
        assert_eq!(t.latency("addf", 32, Some("2_500000")), Ok(9));
        assert!(DynTiming::from_components_json("[", "c.json").is_err());
        assert!(DynTiming::from_components_json("[1]", "c.json").is_err());
    }
}
