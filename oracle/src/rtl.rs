//! Reading CIRCT's exported SystemVerilog: splitting it into modules, reading a module's port
//! list, and merging many lowered designs into one source without name clashes.
//!
//! Merging rule: every design's *function* modules (one per `handshake.func`) get the prefix
//! `o<k>_` (k = design number). Component modules (`handshake_*`, `arith_*`, named by CIRCT
//! after op kind and types) are shared between designs when their text is identical apart
//! from location comments; a same-named module with a different body (e.g. two memories of
//! different sizes, both `handshake_memory_out_ui32_id0`) gets the suffix `__o<k>`.
//! Component modules are wrapped in `/*verilator tracing_off*/` so the VCD only holds the
//! nets of function modules, which is all the comparison reads.

use std::collections::{BTreeMap, BTreeSet};

/// One `module ... endmodule` block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SvModule {
    /// Module name.
    pub name: String,
    /// Full text, from `module` to `endmodule` and a newline.
    pub text: String,
}

/// Port direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// `input`
    In,
    /// `output`
    Out,
}

/// One port of a module header (zero-width ports, which CIRCT comments out, are not listed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Port {
    /// Port name.
    pub name: String,
    /// Direction.
    pub dir: Dir,
}

/// Splits exported SystemVerilog into its modules.
pub fn split_modules(sv: &str) -> Vec<SvModule> {
    let mut out = Vec::new();
    let mut cur: Option<SvModule> = None;
    for line in sv.split_inclusive('\n') {
        if cur.is_none() {
            if let Some(rest) = line.strip_prefix("module ") {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '$')
                    .collect();
                cur = Some(SvModule {
                    name,
                    text: String::new(),
                });
            } else {
                continue;
            }
        }
        if let Some(m) = cur.as_mut() {
            m.text.push_str(line);
            if line.trim_end() == "endmodule" {
                if !m.text.ends_with('\n') {
                    m.text.push('\n');
                }
                out.extend(cur.take());
            }
        }
    }
    out
}

fn strip_comment(line: &str) -> &str {
    match line.find("//") {
        Some(i) => &line[..i],
        None => line,
    }
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// Reads the port list of a module (the lines between `module X(` and `);`).
pub fn header_ports(module_text: &str) -> Vec<Port> {
    let mut ports = Vec::new();
    let mut dir = Dir::In;
    for (i, line) in module_text.lines().enumerate() {
        if i == 0 {
            continue;
        }
        if line.trim_start().starts_with(");") {
            break;
        }
        let code = strip_comment(line).trim();
        if code.is_empty() {
            continue;
        }
        if code.starts_with("input") {
            dir = Dir::In;
        } else if code.starts_with("output") {
            dir = Dir::Out;
        }
        let code = code.trim_end_matches(',').trim_end();
        let name: String = code
            .chars()
            .rev()
            .take_while(|c| is_ident_char(*c))
            .collect();
        let name: String = name.chars().rev().collect();
        if !name.is_empty() {
            ports.push(Port { name, dir });
        }
    }
    ports
}

/// Base names of the channel ports of a function module: inputs (arguments) and outputs
/// (results) that have a `<base>_valid` port, in header order.
pub fn channel_ports(ports: &[Port]) -> (Vec<String>, Vec<String>) {
    let mut ins = Vec::new();
    let mut outs = Vec::new();
    for p in ports {
        if let Some(base) = p.name.strip_suffix("_valid") {
            match p.dir {
                Dir::In => ins.push(base.to_string()),
                Dir::Out => outs.push(base.to_string()),
            }
        }
    }
    (ins, outs)
}

/// Text with location comments removed (what decides whether two modules are the same).
fn normalized(text: &str) -> String {
    text.lines()
        .map(|l| strip_comment(l).trim_end())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Renames module definitions and instantiations in `text` according to `map`.
fn rename_modules(text: &str, map: &BTreeMap<String, String>) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        let (kw, rest) = if let Some(r) = trimmed.strip_prefix("module ") {
            ("module ", r)
        } else {
            ("", trimmed)
        };
        let first: String = rest.chars().take_while(|c| is_ident_char(*c)).collect();
        let after = &rest[first.len()..];
        let is_def = !kw.is_empty();
        let is_inst = kw.is_empty() && after.starts_with(' ') && {
            let a = after.trim_start();
            let second: String = a.chars().take_while(|c| is_ident_char(*c)).collect();
            !second.is_empty() && a[second.len()..].trim_start().starts_with('(')
        };
        match map.get(&first) {
            Some(new) if is_def || is_inst => {
                out.push_str(indent);
                out.push_str(kw);
                out.push_str(new);
                out.push_str(after);
            }
            _ => out.push_str(line),
        }
    }
    out
}

/// One lowered design going into a combined source.
#[derive(Clone, Debug)]
pub struct LoweredDesign {
    /// Design number (decides the prefix `o<k>_`).
    pub index: usize,
    /// Names of the design's function modules (`handshake.func` symbols).
    pub functions: BTreeSet<String>,
    /// Name of the top function.
    pub top: String,
    /// The exported SystemVerilog.
    pub sv: String,
}

/// Result of merging: the combined source and each design's renamed top module and ports.
#[derive(Clone, Debug)]
pub struct Combined {
    /// Combined SystemVerilog (component modules once, then function modules).
    pub sv: String,
    /// Per design (input order): renamed top module name and its ports.
    pub tops: Vec<(String, Vec<Port>)>,
}

/// Names instantiated somewhere in `text` (second word of `X name (` lines).
fn instantiated(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let t = strip_comment(line).trim();
        let first: String = t.chars().take_while(|c| is_ident_char(*c)).collect();
        if first.is_empty() || first == "module" {
            continue;
        }
        let rest = t[first.len()..].trim_start();
        let second: String = rest.chars().take_while(|c| is_ident_char(*c)).collect();
        if !second.is_empty() && rest[second.len()..].trim_start().starts_with('(') {
            out.insert(first);
        }
    }
    out
}

/// The top module of one lowered design: the module named `func` if it exists, else a module
/// nobody instantiates whose name starts with `func` (CIRCT sometimes renames the top, e.g.
/// `join_none` becomes `join_none_0`), else the last uninstantiated module.
pub fn find_top(modules: &[SvModule], func: &str) -> Option<String> {
    if modules.iter().any(|m| m.name == func) {
        return Some(func.to_string());
    }
    let used: BTreeSet<String> = modules.iter().flat_map(|m| instantiated(&m.text)).collect();
    let roots: Vec<&SvModule> = modules.iter().filter(|m| !used.contains(&m.name)).collect();
    roots
        .iter()
        .find(|m| m.name.starts_with(func))
        .or(roots.last())
        .map(|m| m.name.clone())
}

/// Prefix of design `k`'s function modules.
pub fn design_prefix(k: usize) -> String {
    format!("o{k}_")
}

/// Merges lowered designs; fails if a design's top module is missing.
pub fn combine(designs: &[LoweredDesign]) -> Result<Combined, String> {
    let mut shared: BTreeMap<String, String> = BTreeMap::new(); // final name -> normalized body
    let mut component_text = String::new();
    let mut function_text = String::new();
    let mut tops = Vec::new();
    for d in designs {
        let modules = split_modules(&d.sv);
        let Some(top_name) = find_top(&modules, &d.top) else {
            return Err(format!(
                "design {}: no top module for `{}` in the lowered RTL",
                d.index, d.top
            ));
        };
        let mut functions = d.functions.clone();
        functions.insert(top_name.clone());
        // Modules of other `handshake.func`s (instances) are not named after an op kind.
        for m in &modules {
            if !m.name.starts_with("handshake_") && !m.name.starts_with("arith_") {
                functions.insert(m.name.clone());
            }
        }
        let d = &LoweredDesign {
            functions,
            top: top_name,
            ..d.clone()
        };
        let prefix = design_prefix(d.index);
        let mut map = BTreeMap::new();
        let mut keep = Vec::new();
        for m in &modules {
            if d.functions.contains(&m.name) {
                map.insert(m.name.clone(), format!("{prefix}{}", m.name));
                keep.push(m);
                continue;
            }
            let body = normalized(&m.text);
            let body = body.replacen(&m.name, "", 1);
            match shared.get(&m.name) {
                Some(b) if *b == body => {} // reuse the shared copy
                Some(_) => {
                    let new = format!("{}__o{}", m.name, d.index);
                    shared.insert(new.clone(), body);
                    map.insert(m.name.clone(), new);
                    keep.push(m);
                }
                None => {
                    shared.insert(m.name.clone(), body);
                    keep.push(m);
                }
            }
        }
        let Some(top) = modules.iter().find(|m| m.name == d.top) else {
            return Err(format!(
                "design {}: no module named `{}` in the lowered RTL",
                d.index, d.top
            ));
        };
        let top_name = map
            .get(&top.name)
            .cloned()
            .unwrap_or_else(|| top.name.clone());
        tops.push((top_name, header_ports(&top.text)));
        for m in keep {
            let text = rename_modules(&m.text, &map);
            if d.functions.contains(&m.name) {
                function_text.push_str(&text);
                function_text.push('\n');
            } else {
                component_text.push_str(&text);
                component_text.push('\n');
            }
        }
    }
    let sv = format!(
        "// Generated by handscope-oracle: lowered designs merged into one source.\n\
         /*verilator tracing_off*/\n{component_text}/*verilator tracing_on*/\n{function_text}"
    );
    Ok(Combined { sv, tops })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SV: &str = "// Generated\nmodule handshake_sink_in_ui8(\t// -:1:1\n  input  [7:0] in0,\n  input        in0_valid,\n  output       in0_ready\n);\n  assign in0_ready = 1'h1;\nendmodule\n\nmodule f(\t// -:1:1\n     input  [7:0]         a,\n     input                 a_valid,\n  // input  /*Zero Width*/ ctrl,\n     input                 ctrl_valid,\n                           clock,\n     output                a_ready,\n                           ctrl_ready,\n  // output /*Zero Width*/ out0,\n     output                out0_valid\n);\n  handshake_sink_in_ui8 handshake_sink0 (\t// -:2:3\n    .in0 (a)\n  );\nendmodule\n";

    #[test]
    fn ports_and_merge() {
        let mods = split_modules(SV);
        assert_eq!(mods.len(), 2);
        let ports = header_ports(&mods[1].text);
        let names: Vec<_> = ports.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "a",
                "a_valid",
                "ctrl_valid",
                "clock",
                "a_ready",
                "ctrl_ready",
                "out0_valid"
            ]
        );
        assert_eq!(ports[5].dir, Dir::Out);
        let (ins, outs) = channel_ports(&ports);
        assert_eq!(ins, ["a", "ctrl"]);
        assert_eq!(outs, ["out0"]);
        let d = |index| LoweredDesign {
            index,
            functions: ["f".to_string()].into(),
            top: "f".into(),
            sv: SV.into(),
        };
        let c = combine(&[d(0), d(1)]).unwrap();
        assert_eq!(c.tops[1].0, "o1_f");
        assert_eq!(c.sv.matches("module handshake_sink_in_ui8(").count(), 1);
        assert!(c.sv.contains("module o0_f("));
        assert!(c.sv.contains("module o1_f("));
        let other = SV.replace("1'h1", "1'h0");
        let mut d2 = d(2);
        d2.sv = other;
        let c = combine(&[d(0), d2]).unwrap();
        assert!(c.sv.contains("module handshake_sink_in_ui8__o2("));
        assert!(c.sv.contains("  handshake_sink_in_ui8__o2 handshake_sink0 ("));
    }
}
