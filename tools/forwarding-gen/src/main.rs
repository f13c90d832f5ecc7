//! `cargo run -p forwarding-gen` rewrites `src/forwarding.rs`;
//! `cargo run -p forwarding-gen -- --check` fails if it is stale.
use std::path::PathBuf;

fn main() {
    let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let target = workspace.join("src/forwarding.rs");
    let (code, report) = forwarding_gen::generate(&forwarding_gen::burn_backend_src(&workspace));
    for (name, count) in &report.counts {
        println!("{name:>16}: {count} methods forwarded");
    }
    if std::env::args().any(|a| a == "--check") {
        let current = std::fs::read_to_string(&target).unwrap_or_default();
        if current != code {
            eprintln!("src/forwarding.rs is stale: run `cargo run -p forwarding-gen`");
            std::process::exit(1);
        }
        println!("src/forwarding.rs is current");
    } else {
        std::fs::write(&target, code).expect("write src/forwarding.rs");
        println!("wrote {}", target.display());
    }
}
