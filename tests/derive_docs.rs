//! The errors the derive's docs (`pool-core/derive.md`) quote are the
//! compiler's own: each text they quote in double backticks (an error, a
//! note, a label) is found, word for word (line breaks aside), in one of
//! the derive's UI snapshots
//! (`tests/ui/**/*.stderr`), which trybuild checks against the compiler. A
//! quote may leave parts out with `...`.
//!
//! The regression it guards against (issue 40, item 4): the quoted message
//! for a misspelt struct key listed the keys without `reset_on`, which the
//! compiler's message had.

use std::fs;
use std::path::{Path, PathBuf};

/// `text` with every run of whitespace one space.
fn normalise(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Every file under `dir` whose name ends in `.stderr`.
fn snapshots(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("tests/ui is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            snapshots(&path, found);
        } else if path.extension().is_some_and(|ext| ext == "stderr") {
            found.push(path);
        }
    }
}

/// The texts between pairs of double backticks in `markdown`, outside
/// its code blocks.
fn double_backtick_quotes(markdown: &str) -> Vec<String> {
    let prose: String = {
        let mut fenced = false;
        let mut kept = String::new();
        for line in markdown.lines() {
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
            } else if !fenced {
                kept.push_str(line);
                kept.push('\n');
            }
        }
        kept
    };
    let mut quotes = Vec::new();
    let mut rest = prose.as_str();
    while let Some(start) = rest.find("``") {
        let after = &rest[start + 2..];
        let Some(end) = after.find("``") else { break };
        quotes.push(normalise(&after[..end]));
        rest = &after[end + 2..];
    }
    quotes
}

#[test]
fn every_error_the_derive_docs_quote_is_in_a_ui_snapshot() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let docs = fs::read_to_string(root.join("../pool-core/derive.md")).expect("derive.md");
    let mut files = Vec::new();
    snapshots(&root.join("ui"), &mut files);
    assert!(files.len() > 20, "the UI snapshots: {files:?}");
    let compiler: String = files
        .iter()
        .map(|file| normalise(&fs::read_to_string(file).expect("a snapshot")))
        .collect::<Vec<_>>()
        .join("\n");

    let quotes = double_backtick_quotes(&docs);
    assert!(quotes.len() > 30, "the quoted errors: {quotes:#?}");
    let wrong: Vec<&String> = quotes
        .iter()
        .filter(|quote| {
            !quote
                .split("...")
                .map(str::trim)
                .filter(|part| !part.is_empty())
                .all(|part| compiler.contains(part))
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "derive.md quotes errors that no UI snapshot (tests/ui) has: {wrong:#?}"
    );
}

#[test]
fn the_quotes_are_found_and_compared_in_pieces() {
    let markdown =
        "A ``error: one ... two`` and\n```text\n``not this``\n```\n``error: three\n  four``.";
    assert_eq!(
        double_backtick_quotes(markdown),
        ["error: one ... two", "error: three four"]
    );
}
