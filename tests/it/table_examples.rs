//! Every entry of the command knowledge table carries examples; each must classify as stated.

use crate::common;

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

/// Each name is in one entry only: `lookup` takes the first, so a second entry for a name would
/// never be used.
#[test]
fn every_table_name_is_in_one_entry() {
    let mut seen = std::collections::HashMap::new();
    let mut repeated = Vec::new();
    for (i, entry) in TABLE.iter().enumerate() {
        for name in entry.names {
            if let Some(first) = seen.insert(*name, i)
                && first != i
            {
                repeated.push(format!("{name} (entries {first} and {i})"));
            }
        }
    }
    assert!(repeated.is_empty(), "names in more than one entry: {}", repeated.join(", "));
}

/// Names are program names, not labels: a name no program has ("sum-test", "time-run") is
/// never looked up. The real programs whose names end like a label are listed.
#[test]
fn no_table_name_is_a_label() {
    const REAL: &[&str] = &["xvfb-run", "systemd-run"];
    let labels: Vec<&str> = TABLE
        .iter()
        .flat_map(|e| e.names.iter().copied())
        .filter(|n| !REAL.contains(n))
        .filter(|n| ["-test", "-read", "-write", "-status", "-setup", "-run", "-script"].iter().any(|s| n.ends_with(s)))
        .collect();
    assert!(labels.is_empty(), "labels among the names: {labels:?}");
}
