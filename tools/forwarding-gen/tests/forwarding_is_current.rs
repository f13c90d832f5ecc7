//! The committed forwarding must be exactly what the generator produces from
//! the pinned burn-backend sources: no method left to a trait default, no
//! hand edits.
use std::path::PathBuf;

#[test]
fn committed_forwarding_matches_generator_output() {
    let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let (code, report) = forwarding_gen::generate(&forwarding_gen::burn_backend_src(&workspace));
    let committed = std::fs::read_to_string(workspace.join("src/forwarding.rs")).unwrap();
    assert!(
        committed == code,
        "src/forwarding.rs is stale: run `cargo run -p forwarding-gen`"
    );
    let total: usize = report.counts.iter().map(|(_, n)| n).sum();
    assert!(
        total > 400,
        "expected the whole Backend surface, got {total} methods"
    );
}

#[test]
fn every_trait_method_is_forwarded_not_defaulted() {
    // Each method of each trait appears exactly once in the generated impls
    // for Swapping and once for SwapAutodiff.
    let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let (code, report) = forwarding_gen::generate(&forwarding_gen::burn_backend_src(&workspace));
    let fns = code.matches("\n    fn ").count();
    let expected: usize = report
        .counts
        .iter()
        .map(|(name, n)| if name == "AutodiffBackend" { *n } else { 2 * n })
        .sum();
    assert_eq!(fns, expected);
}
