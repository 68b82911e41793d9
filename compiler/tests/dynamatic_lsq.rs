//! Load-store queue configurations from the IR alone (issue #32): groups from the control
//! operands, each group's loads and stores in program order, each load's place among its
//! group's stores, queue depths from `handshake.lsqDepth` or Dynamatic's default, for master
//! and slave queues; operands that make no configuration are refused with the reason.

use handscope_compiler::mlir::dynamatic::{
    DepthSource, DynFunc, DynOpKind, LsqAccess, LsqConfig, LsqConfigError, LsqMode, lsq_config,
};
use handscope_compiler::mlir::parse_dynamatic;

const THREE: &str = include_str!("data/dynamatic/lsq3_e4.mlir");
const E4: &str = include_str!("data/dynamatic/e4.mlir");
const E5: &str = include_str!("data/dynamatic/e5.mlir");

fn configs(src: &str) -> Vec<Result<LsqConfig, LsqConfigError>> {
    let (m, _) = parse_dynamatic(src, "t.mlir").unwrap_or_else(|e| panic!("{}", e.render()));
    let f: &DynFunc = &m.funcs[0];
    f.ops
        .iter()
        .filter(|o| o.kind == DynOpKind::Lsq)
        .map(|o| lsq_config(f, o))
        .collect()
}

#[test]
fn three_groups_with_the_files_depths() {
    use LsqAccess::{Load, Store};
    let c = configs(THREE).remove(0).unwrap();
    assert_eq!(c.name, "lsq0");
    assert_eq!(c.mode, LsqMode::Master);
    assert_eq!(c.groups, [vec![Store], vec![Load, Store], vec![Load]]);
    assert_eq!((c.loads(1), c.stores(1)), (1, 1));
    assert_eq!(c.load_order(1), [0]);
    assert_eq!(c.load_order(2), [0]);
    assert_eq!((c.load_depth, c.store_depth), (4, 2));
    assert_eq!(c.depth_source, DepthSource::File);
    assert_eq!(c.largest_group(), (1, 1));
    assert_eq!(
        c.to_string(),
        "3 groups: (store), (load, store), (load); queues of 4 loads / 2 stores (the file's handshake.lsqDepth)"
    );
    let given = c.with_depths(2, 8);
    assert_eq!((given.load_depth, given.store_depth), (2, 8));
    assert_eq!(given.depth_source, DepthSource::Given);
}

/// A store-only master queue (E4) and a slave queue behind a memory controller (E5), whose
/// last operand is the load data the controller returns.
#[test]
fn master_and_slave_queues() {
    let c = configs(E4).remove(0).unwrap();
    assert_eq!(c.groups, [vec![LsqAccess::Store]]);
    assert_eq!((c.load_depth, c.store_depth), (4, 6));
    let s = configs(E5).remove(0).unwrap();
    assert_eq!(s.mode, LsqMode::Slave);
    assert_eq!(s.groups, [vec![LsqAccess::Load]]);
    // No `handshake.lsqDepth`: Dynamatic's 16 entries each.
    assert_eq!((s.load_depth, s.store_depth), (16, 16));
    assert_eq!(s.depth_source, DepthSource::Default);
}

/// `ldOrder`: each load's count of the group's stores before it in program order.
#[test]
fn ldorder_counts_the_stores_before_each_load() {
    use LsqAccess::{Load, Store};
    let c = LsqConfig {
        name: "q".into(),
        mode: LsqMode::Master,
        groups: vec![vec![Load, Store, Load, Store, Store, Load]],
        load_depth: 16,
        store_depth: 16,
        depth_source: DepthSource::Default,
    };
    assert_eq!(c.load_order(0), [0, 1, 3]);
    assert_eq!((c.loads(0), c.stores(0)), (3, 3));
}

/// `groupSizes` that do not fit the operands are refused, naming the operand.
#[test]
fn group_sizes_that_do_not_fit_the_operands_are_refused() {
    let wrong = THREE.replace(
        "groupSizes = [1 : i32, 2 : i32, 1 : i32]",
        "groupSizes = [1 : i32, 2 : i32, 2 : i32]",
    );
    let e = configs(&wrong).remove(0).unwrap_err();
    assert_eq!(e.message, "group 2: expected a load or store address");
    assert_eq!(e.at.unwrap().name, "0");
    let short = THREE.replace(
        "groupSizes = [1 : i32, 2 : i32, 1 : i32]",
        "groupSizes = [1 : i32, 1 : i32, 1 : i32]",
    );
    let e = configs(&short).remove(0).unwrap_err();
    assert!(
        e.message
            .contains("group 2's control operand is a memory access"),
        "{e}"
    );
}
