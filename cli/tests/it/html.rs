//! `bcast run --html` and `bcast matrix --html` write the page (its drawing is checked in a
//! browser by `scripts/check_html_report.py`, which CI runs).

use bcast_conformance::case::load_file;
use bcast_conformance::report::html::embedded_data;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn bcast(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bcast"))
        .args(args)
        .current_dir(repo())
        .output()
        .expect("bcast runs")
}

const NUMEL: &str = "conformance/tests/data/numel.json";
const ADAPTERS: &str = "conformance/tests/data/adapters.json";

#[test]
fn run_html_writes_the_page_with_every_failure() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("report.html");
    let json = dir.path().join("report.json");
    // Answers `{"int": 0}` to every case: only numel/... cases of 0 elements pass.
    let hostile = format!(
        "python3 {} claim '[\"shapes\"]'",
        repo().join("cli/tests/adapters/hostile.py").display()
    );
    let out = bcast(&[
        "run",
        NUMEL,
        "--backend",
        &hostile,
        "--quiet",
        "--html",
        &page.display().to_string(),
        "--json",
        &json.display().to_string(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(
        !html.contains("src=\"http") && !html.contains("href=\"http"),
        "no external asset"
    );
    let data = embedded_data(&html).unwrap();
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(data["run"]["counts"], report["counts"]);
    let failed: Vec<&str> = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "fail")
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    let listed: Vec<&str> = data["run"]["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            data["run"]["id"][f["case"].as_u64().unwrap() as usize]
                .as_str()
                .unwrap()
        })
        .collect();
    assert!(!failed.is_empty());
    assert_eq!(listed, failed);
    assert_eq!(
        data["run"]["id"].as_array().unwrap().len(),
        load_file(&repo().join(NUMEL)).unwrap().len()
    );
}

#[test]
fn matrix_html_writes_one_page_for_every_backend() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("matrix.html");
    let hostile = format!(
        "python3 {} claim '[\"shapes\",\"values\"]'",
        repo().join("cli/tests/adapters/hostile.py").display()
    );
    let out = bcast(&[
        "matrix",
        NUMEL,
        "--backend",
        "reference",
        "--backend",
        &hostile,
        "--html",
        &page.display().to_string(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let data = embedded_data(&std::fs::read_to_string(&page).unwrap()).unwrap();
    let names: Vec<&str> = data["backends"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["reference", "hostile-claim"]);
    // A page that cannot be written stops the command before it measures.
    let out = bcast(&[
        "matrix",
        NUMEL,
        "--backend",
        "reference",
        "--html",
        &dir.path().display().to_string(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is a directory"));
    // Nor may the page be a fixture file the matrix reads.
    let fixture = dir.path().join("numel.json");
    std::fs::copy(repo().join(NUMEL), &fixture).unwrap();
    let original = std::fs::read(&fixture).unwrap();
    let f = fixture.display().to_string();
    let out = bcast(&["matrix", &f, "--backend", "reference", "--html", &f]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("is a fixture file the matrix reads"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read(&fixture).unwrap(), original);
}

/// The tags of the page's template, in order: nothing from the data becomes an element.
const TEMPLATE_TAGS: [&str; 15] = [
    "html", "head", "meta", "meta", "meta", "meta", "title", "style", "body", "noscript", "p",
    "code", "main", "script", "script",
];

#[test]
fn hostile_answers_stay_text_and_the_page_is_self_contained() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("report.html");
    let json = dir.path().join("report.json");
    // Answers each case with its expectation, a quarter of them wrong, with messages and
    // backend failures that carry `</script><img src=x onerror=...>`.
    let hostile = format!(
        "python3 {} echo-wrong {ADAPTERS}",
        repo().join("cli/tests/adapters/hostile.py").display()
    );
    let out = bcast(&[
        "run",
        ADAPTERS,
        "--backend",
        &hostile,
        "--html",
        &page.display().to_string(),
        "--json",
        &json.display().to_string(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(&page).unwrap();
    let tags = well_formed(&html).unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<&str> = tags.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, TEMPLATE_TAGS);
    for (name, attrs) in &tags {
        for attr in attrs {
            assert!(
                !["src", "href", "action", "srcset"].contains(&attr.as_str()),
                "<{name} {attr}=...>: the page loads nothing"
            );
        }
    }
    assert!(!html.contains("http://") && !html.contains("https://"));
    assert!(!html.contains("<img") && !html.contains("<script>window"));
    let data = embedded_data(&html).unwrap();
    let run = &data["run"];
    // The counts and the two lines are the run's summary, as stdout and the JSON report give it.
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(run["counts"], report["counts"]);
    assert_eq!(run["counts"]["pass"], report["counts"]["pass"]);
    for line in ["summary_line", "level_line"] {
        let line = run[line].as_str().unwrap();
        assert!(stdout.contains(line), "{line:?} not in {stdout}");
    }
    // The markup the adapter sent is in the data, as text, in a message and a backend failure.
    let markup = "</script><img src=x onerror=\"window.bcastPwned=1\">";
    let failures = run["failures"].as_array().unwrap();
    assert!(
        failures
            .iter()
            .any(|f| f["detail"].as_str().is_some_and(|d| d.contains(markup))),
        "a backend failure with markup"
    );
    assert!(
        failures
            .iter()
            .flat_map(|f| f["mismatches"].as_array().unwrap())
            .any(|m| m[3]
                .as_str()
                .unwrap()
                .contains("(said differently) </script>")),
        "a message with markup"
    );
}

/// The start tags of a page, checked to nest: every element closed in order (void elements
/// excepted), the text of `script`, `style` and `title` read as raw text up to its end tag,
/// no `<` in text that could start markup. Each tag comes with its attributes' names.
fn well_formed(html: &str) -> Result<Vec<(String, Vec<String>)>, String> {
    const VOID: [&str; 6] = ["meta", "link", "br", "hr", "img", "input"];
    const RAW: [&str; 3] = ["script", "style", "title"];
    let mut open: Vec<String> = Vec::new();
    let mut tags = Vec::new();
    let mut rest = html;
    while let Some(lt) = rest.find('<') {
        rest = &rest[lt..];
        if let Some(comment) = rest.strip_prefix("<!--") {
            let end = comment.find("-->").ok_or("an unclosed comment")?;
            rest = &comment[end + 3..];
            continue;
        }
        let gt = rest.find('>').ok_or("an unclosed tag")?;
        let tag = &rest[1..gt];
        rest = &rest[gt + 1..];
        if tag.starts_with('!') {
            continue;
        }
        if let Some(name) = tag.strip_prefix('/') {
            match open.pop() {
                Some(top) if top == name => continue,
                top => return Err(format!("</{name}> closes {top:?}")),
            }
        }
        let name: String = tag
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        if name.is_empty() {
            return Err(format!("a stray < before {:?}", &tag[..tag.len().min(40)]));
        }
        let attrs = attribute_names(&tag[name.len()..]);
        tags.push((name.clone(), attrs));
        if RAW.contains(&name.as_str()) {
            let close = format!("</{name}>");
            let end = rest.find(&close).ok_or(format!("<{name}> is not closed"))?;
            rest = &rest[end + close.len()..];
        } else if !VOID.contains(&name.as_str()) {
            open.push(name);
        }
    }
    match open.is_empty() {
        true => Ok(tags),
        false => Err(format!("left open: {open:?}")),
    }
}

/// The names of the attributes in a start tag's text after its name (`a="x" b=y c`).
fn attribute_names(mut text: &str) -> Vec<String> {
    let mut names = Vec::new();
    loop {
        text = text.trim_start_matches(|c: char| c.is_whitespace() || c == '/');
        if text.is_empty() {
            return names;
        }
        let len = text
            .find(|c: char| c.is_whitespace() || c == '=')
            .unwrap_or(text.len());
        names.push(text[..len].to_ascii_lowercase());
        text = text[len..].trim_start();
        if let Some(value) = text.strip_prefix('=') {
            let value = value.trim_start();
            text = match value.chars().next() {
                Some(q @ ('"' | '\'')) => value[1..].find(q).map_or("", |end| &value[end + 2..]),
                _ => value
                    .find(char::is_whitespace)
                    .map_or("", |end| &value[end..]),
            };
        }
    }
}

/// The page's facts about each case, by id: its op, status, levels and (for a failure) its
/// account; and the facts about the whole run. What a page of the same run holds, whatever
/// the order of its cases.
fn page_facts(html: &str) -> (serde_json::Value, BTreeMap<String, serde_json::Value>) {
    let data = embedded_data(html).unwrap();
    let run = &data["run"];
    let column = |name: &str, i: usize| run[name][i].clone();
    let mut cases = BTreeMap::new();
    for (i, id) in run["id"].as_array().unwrap().iter().enumerate() {
        let op = &run["ops"][column("op", i).as_u64().unwrap() as usize];
        let status = &run["statuses"][column("status", i).as_u64().unwrap() as usize];
        let skip = column("skip", i).as_i64().unwrap();
        let skip = (skip >= 0).then(|| run["skip_reasons"][skip as usize].clone());
        cases.insert(
            id.as_str().unwrap().to_string(),
            serde_json::json!({"op": op, "status": status, "applies": column("applies", i),
                "failed": column("failed", i), "skip": skip}),
        );
    }
    for failure in run["failures"].as_array().unwrap() {
        let i = failure["case"].as_u64().unwrap() as usize;
        let id = run["id"][i].as_str().unwrap();
        let mut account = failure.clone();
        account["case"] = serde_json::Value::Null;
        account["file"] = run["files"][failure["file"].as_u64().unwrap() as usize].clone();
        cases.get_mut(id).unwrap()["failure"] = account;
    }
    let whole = serde_json::json!({
        "summary_line": run["summary_line"], "level_line": run["level_line"],
        "counts": run["counts"], "backends": data["backends"], "levels": data["levels"],
        "cases_total": data["cases_total"],
    });
    (whole, cases)
}

/// JUnit's test cases, one line each (`suite | name | class | outcome message`), sorted: what
/// a report of the same run holds, whatever the order of its cases and their timings.
fn junit_cases(xml: &str) -> Vec<String> {
    let attr = |head: &str, name: &str| {
        head.split(&format!(" {name}=\""))
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .unwrap_or_default()
            .to_string()
    };
    let mut lines = Vec::new();
    for suite in xml.split("<testsuite ").skip(1) {
        let name = attr(&format!(" {suite}"), "name");
        for case in suite.split("<testcase ").skip(1) {
            let body = case.split("</testcase>").next().unwrap();
            let head = format!(" {}", body.split('>').next().unwrap());
            let outcome = ["failure", "skipped", "error"]
                .iter()
                .find_map(|kind| {
                    let tail = body.split(&format!("<{kind}")).nth(1)?;
                    Some(format!(
                        "{kind}{}",
                        attr(tail.split('>').next().unwrap(), "message")
                    ))
                })
                .unwrap_or_default();
            lines.push(format!(
                "{name} | {} | {} | {outcome}",
                attr(&head, "name"),
                attr(&head, "classname")
            ));
        }
    }
    lines.sort();
    lines
}

#[test]
fn merged_parts_write_the_whole_runs_junit_and_page() {
    const EXPAND: &str = "fixtures/torch/expand.json";
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).display().to_string();
    // Wrong on one case in four, in every way (values, strides, messages, the other kind of
    // outcome, a backend failure); complex64 not claimed, so some cases are skipped.
    let backend = format!(
        "python3 {} echo-wrong {EXPAND}",
        repo().join("cli/tests/adapters/hostile.py").display()
    );
    let first = bcast(&[
        "run",
        EXPAND,
        "--backend",
        &backend,
        "-q",
        "--json",
        &path("first.json"),
    ]);
    assert_eq!(first.status.code(), Some(1));
    // An xfail list that expects one failure and one case that passes.
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path("first.json")).unwrap()).unwrap();
    let with_status = |status: &str| {
        report["cases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["status"] == status)
            .map(|c| c["id"].as_str().unwrap().to_string())
            .unwrap()
    };
    std::fs::write(
        path("known.xfail"),
        format!("{}\n{}\n", with_status("fail"), with_status("pass")),
    )
    .unwrap();
    let common = ["--backend", &backend, "-q", "--xfail", &path("known.xfail")];
    let run = |extra: &[&str]| {
        let mut args = vec!["run", EXPAND];
        args.extend(common);
        args.extend(extra);
        bcast(&args)
    };
    let whole = run(&[
        "--json",
        &path("whole.json"),
        "--html",
        &path("whole.html"),
        "--junit",
        &path("whole.xml"),
    ]);
    assert_eq!(whole.status.code(), Some(1));
    for k in 1..=3 {
        let part = run(&[
            "--shard",
            &format!("{k}/3"),
            "--json",
            &path(&format!("{k}.json")),
        ]);
        assert_eq!(part.status.code(), Some(1));
    }
    let merged = bcast(&[
        "merge-reports",
        &path("1.json"),
        &path("2.json"),
        &path("3.json"),
        "-o",
        &path("merged.json"),
        "--html",
        &path("merged.html"),
        "--junit",
        &path("merged.xml"),
        "--fixtures",
        EXPAND,
    ]);
    assert!(
        merged.status.success(),
        "{}",
        String::from_utf8_lossy(&merged.stderr)
    );
    let read = |name: &str| std::fs::read_to_string(path(name)).unwrap();
    let (whole_facts, whole_cases) = page_facts(&read("whole.html"));
    let (merged_facts, merged_cases) = page_facts(&read("merged.html"));
    assert_eq!(merged_facts, whole_facts);
    assert_eq!(merged_cases, whole_cases);
    let statuses: std::collections::BTreeSet<String> = whole_cases
        .values()
        .map(|c| c["status"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        statuses.len(),
        5,
        "every status is in the run: {statuses:?}"
    );
    assert!(whole_cases
        .values()
        .any(|c| c["failure"]["backend_failure"] == true));
    assert_eq!(
        junit_cases(&read("merged.xml")),
        junit_cases(&read("whole.xml"))
    );
    // Over other fixtures than the parts ran, nothing is written and the reason is given.
    let other = bcast(&[
        "merge-reports",
        &path("1.json"),
        &path("2.json"),
        &path("3.json"),
        "--html",
        &path("other.html"),
        "--fixtures",
        NUMEL,
    ]);
    assert_eq!(other.status.code(), Some(2));
    let why = String::from_utf8_lossy(&other.stderr);
    assert!(
        why.contains("of the report is not among the fixture cases given"),
        "{why}"
    );
    assert!(!dir.path().join("other.html").exists());
}
