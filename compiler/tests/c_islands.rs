//! Static-island candidates of C kernels (issue #35): which innermost loops a static schedule
//! fits, their II under the `fpga` profile and unit limits, and why the others stay dynamic.

use std::collections::BTreeMap;

use handscope_compiler::c::{HsOptions, LoopIsland, static_islands};
use handscope_sim::spec::timing::TimingProfile;

fn islands(src: &str, limits: &[(&str, u32)]) -> Vec<LoopIsland> {
    let opts = HsOptions {
        timing: TimingProfile::fpga(),
        ..Default::default()
    };
    let limits: BTreeMap<String, u32> = limits.iter().map(|(k, n)| (k.to_string(), *n)).collect();
    static_islands(src, "k.c", None, &opts, &limits).unwrap()
}

const DOT: &str = "int dot(int a[8], int b[8]) {
  int s = 0;
  for (int i = 0; i < 8; i++)
    s += a[i] * b[i];
  return s;
}";

#[test]
fn a_dot_product_is_an_island_at_ii_one() {
    let l = islands(DOT, &[]);
    assert_eq!(l.len(), 1);
    let s = l[0].schedule.as_ref().unwrap();
    assert_eq!((s.ii, s.min_ii), (1, 1));
    // The loads (1 cycle under fpga) feed the 4-cycle multiplier, whose product the
    // accumulation adds: the add starts in cycle 1 + 4.
    let names: Vec<&str> = l[0].ops.iter().map(|o| o.name.as_str()).collect();
    assert!(
        names.contains(&"load a") && names.contains(&"muli"),
        "{names:?}"
    );
    let mul = l[0].ops.iter().position(|o| o.name == "muli").unwrap();
    assert_eq!(s.start[mul], 1);
    assert_eq!(s.stages(), 6);
}

#[test]
fn unit_limits_raise_the_interval() {
    // One read port per array: two loads of `a` per iteration need two cycles.
    let src = "int f(int a[16]) {
  int s = 0;
  for (int i = 0; i < 8; i++)
    s += a[2 * i] * a[2 * i + 1];
  return s;
}";
    let free = islands(src, &[]);
    assert_eq!(free[0].schedule.as_ref().unwrap().ii, 1);
    let one_port = islands(src, &[("load.a", 1)]);
    assert_eq!(one_port[0].schedule.as_ref().unwrap().ii, 2);
    let one_mul = islands(src, &[("load.a", 1), ("muli", 1)]);
    let s = one_mul[0].schedule.as_ref().unwrap();
    let muls = one_mul[0].ops.iter().filter(|o| o.name == "muli").count() as u32;
    assert_eq!(s.ii, muls.max(2));
}

#[test]
fn a_float_recurrence_sets_the_interval() {
    // x = x * 0.5 + 1.0 carries the product and the sum to the next iteration:
    // fpga's mulf and addf latencies add up to the interval.
    let src = "float f(int n) {
  float x = 1.0f;
  for (int i = 0; i < 100; i++)
    x = x * 0.5f + 1.0f;
  return x;
}";
    let l = islands(src, &[]);
    let s = l[0].schedule.as_ref().unwrap();
    let lat = |name: &str| {
        l[0].ops
            .iter()
            .find(|o| o.name == name)
            .unwrap()
            .unit
            .latency
    };
    assert_eq!(s.ii, lat("mulf") + lat("addf"));
}

#[test]
fn an_if_inside_is_if_converted() {
    // Both sides are computed; the sum's new value is a select on the comparison, which
    // carries the recurrence: compare, then select, then the next iteration's add.
    let src = "int f(int a[8]) { int s = 0;
  for (int i = 0; i < 8; i++) { if (a[i] > 0) s += a[i]; else s -= 1; }
  return s; }";
    let l = islands(src, &[]);
    let s = l[0].schedule.as_ref().unwrap();
    let sel = l[0]
        .ops
        .iter()
        .position(|o| o.name == "select (if-converted)")
        .expect("a select where the paths join");
    let cmp = l[0]
        .ops
        .iter()
        .position(|o| o.name == "cmpi" && o.line == 2)
        .unwrap();
    assert!(s.start[sel] >= s.start[cmp], "{s:?}");
    assert_eq!(s.ii, 1);
}

#[test]
fn stores_keep_their_order_across_iterations() {
    // With serial memory order, a loop that stores is an island; an iteration's load of
    // `a` waits for the previous iteration's store to `a` (whatever the addresses), so a
    // recurrence through memory sets the interval: load (1 cycle under fpga), then the
    // store (1 cycle), before the next load.
    let writes = "void f(int a[8]) { for (int i = 0; i < 8; i++) a[i] = i; }";
    assert_eq!(islands(writes, &[])[0].schedule.as_ref().unwrap().ii, 1);
    let through_memory = "void f(int a[8]) { for (int i = 1; i < 8; i++) a[i] = a[i - 1] + 1; }";
    let l = islands(through_memory, &[]);
    let s = l[0].schedule.as_ref().unwrap();
    let load = l[0].ops.iter().position(|o| o.name == "load a").unwrap();
    let store = l[0].ops.iter().position(|o| o.name == "store a").unwrap();
    assert!(s.start[store] > s.start[load], "{s:?}");
    assert!(s.ii >= s.start[store] + 1 - s.start[load], "{s:?}");
    assert!(s.ii >= 2, "{s:?}");
}

#[test]
fn loops_that_stay_dynamic_say_why() {
    let stores = "void f(int a[8]) { for (int i = 0; i < 8; i++) a[i] = i; }";
    let opts = HsOptions {
        timing: TimingProfile::fpga(),
        memory: handscope_compiler::c::MemoryOrdering::Lsq,
        ..Default::default()
    };
    let l = static_islands(stores, "k.c", None, &opts, &BTreeMap::new()).unwrap();
    let why = l[0].schedule.clone().unwrap_err();
    assert!(why.contains("stores to `a`"), "{why}");
    let early_exit = "int f(int a[8]) { int s = 0;
  for (int i = 0; i < 8; i++) { if (a[i] < 0) break; s += a[i]; }
  return s; }";
    let why = islands(early_exit, &[])[0].schedule.clone().unwrap_err();
    assert!(why.contains("leaves from"), "{why}");
    // Only innermost loops are candidates.
    let nested = "int f(int a[64]) { int s = 0;
  for (int i = 0; i < 8; i++) for (int j = 0; j < 8; j++) s += a[8 * i + j];
  return s; }";
    let l = islands(nested, &[]);
    assert_eq!(l.len(), 1);
    assert!(l[0].schedule.is_ok());
}
