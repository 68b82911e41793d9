fn main() {
    let p = std::env::args().nth(1).unwrap();
    let src = std::fs::read_to_string(&p).unwrap();
    let top = src.lines().find_map(|l| l.strip_prefix("// TOP:")).map(str::trim);
    let f = handscope_compiler::c::compile_to_ir(&src, &p, top).unwrap();
    println!("{f}");
}
