//! Every entry of the command knowledge table carries examples; each must classify as stated.

mod common;

use sandbox_bash::analysis::TABLE;

#[test]
fn every_table_example_requires_the_stated_mode() {
    let mut failures = Vec::new();
    let mut count = 0;
    for entry in TABLE {
        assert!(!entry.examples.is_empty(), "entry {:?} has no example", entry.names);
        for (program, expected) in entry.examples {
            count += 1;
            let got = common::required(program);
            if got != *expected {
                failures.push(format!("{program:?}: expected {expected}, got {got}"));
            }
        }
    }
    assert!(failures.is_empty(), "{} of {count} examples differ:\n{}", failures.len(), failures.join("\n"));
}
