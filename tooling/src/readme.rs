//! Generated sections of README.md: the text between `<!-- NAME:start -->` and
//! `<!-- NAME:end -->` belongs to a command (`bcast-dev matrix`, `bcast-dev discrepancies`), which
//! rewrites it.

/// Replaces the body of section `name` of `readme` with `body`.
///
/// ```
/// use bcast_tooling::readme::splice_section;
/// let readme = "# T\n<!-- matrix:start -->\nold\n<!-- matrix:end -->\ntail\n";
/// let out = splice_section(readme, "matrix", "new\n").unwrap();
/// assert_eq!(out, "# T\n<!-- matrix:start -->\nnew\n<!-- matrix:end -->\ntail\n");
/// assert!(splice_section("no markers", "matrix", "x").is_err());
/// ```
pub fn splice_section(readme: &str, name: &str, body: &str) -> Result<String, String> {
    let start_marker = format!("<!-- {name}:start -->");
    let end_marker = format!("<!-- {name}:end -->");
    let start = readme
        .find(&start_marker)
        .ok_or_else(|| format!("no {start_marker} marker"))?;
    let after_start = start + start_marker.len();
    let end = readme[after_start..]
        .find(&end_marker)
        .map(|i| after_start + i)
        .ok_or_else(|| format!("no {end_marker} marker after {start_marker}"))?;
    Ok(format!(
        "{}\n{}{}",
        &readme[..after_start],
        body,
        &readme[end..]
    ))
}

/// Rewrites section `name` of the README at `path` with `body`.
pub fn write_section(path: &std::path::Path, name: &str, body: &str) -> Result<(), String> {
    let readme = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let updated =
        splice_section(&readme, name, body).map_err(|e| format!("{}: {e}", path.display()))?;
    std::fs::write(path, updated).map_err(|e| format!("{}: {e}", path.display()))
}
