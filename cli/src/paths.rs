//! The files a command reads and writes: an output must be none of its inputs (a report
//! written over the fixture it was made from), and no two outputs may be one file (one report
//! left in place of the other). Checked before anything runs.

use std::path::{Path, PathBuf};

/// What makes two paths one file: its device and inode where the system has them (so hard
/// links and symbolic links are one file), else its canonical path. A path that does not exist
/// yet is its canonical directory joined with its name.
#[derive(Debug, PartialEq, Eq)]
enum FileId {
    #[cfg(unix)]
    Inode(u64, u64),
    Path(PathBuf),
}

impl FileId {
    /// The identity of `path`, or `None` when its directory does not exist either (then it
    /// can be no input, and writing it fails with its own message).
    fn of(path: &Path) -> Option<FileId> {
        if let Ok(meta) = std::fs::metadata(path) {
            return Some(FileId::existing(path, &meta));
        }
        let name = path.file_name()?;
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.canonicalize().ok()?,
            _ => std::env::current_dir().ok()?,
        };
        Some(FileId::Path(dir.join(name)))
    }

    #[cfg(unix)]
    fn existing(_: &Path, meta: &std::fs::Metadata) -> FileId {
        use std::os::unix::fs::MetadataExt;
        FileId::Inode(meta.dev(), meta.ino())
    }

    #[cfg(not(unix))]
    fn existing(path: &Path, _: &std::fs::Metadata) -> FileId {
        FileId::Path(path.canonicalize().unwrap_or_else(|_| path.to_path_buf()))
    }
}

/// A file a command names, with the option (or role) that names it: `("--json", path)`.
pub type Named<'a> = (&'a str, &'a Path);

/// Refuses `outputs` of which one is one of `inputs`, or two are one file, unless the pair
/// (output option, input option) is in `allowed` (`--write-xfail` may rewrite the `--xfail`
/// file). The message names both paths and what each is: `--json r.json is a fixture file
/// the run reads (r.json): an output must not overwrite an input`.
pub fn check_outputs(
    outputs: &[Named<'_>],
    inputs: &[Named<'_>],
    allowed: &[(&str, &str)],
) -> Result<(), String> {
    let ids: Vec<Option<FileId>> = outputs.iter().map(|(_, p)| FileId::of(p)).collect();
    for (i, ((option, path), id)) in outputs.iter().zip(&ids).enumerate() {
        let Some(id) = id else { continue };
        for ((other, other_path), other_id) in outputs[..i].iter().zip(&ids) {
            if other_id.as_ref() == Some(id) {
                return Err(format!(
                    "{other} {} and {option} {} are one file: give each output its own",
                    other_path.display(),
                    path.display()
                ));
            }
        }
        for (what, input) in inputs {
            if allowed.contains(&(option, what)) {
                continue;
            }
            if FileId::of(input).as_ref() == Some(id) {
                return Err(format!(
                    "{option} {} is {what} ({}): an output must not overwrite an input",
                    path.display(),
                    input.display()
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_and_spellings_of_one_file_are_one_file() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.json");
        std::fs::write(&input, "{}").unwrap();
        let hard = dir.path().join("hard.json");
        std::fs::hard_link(&input, &hard).unwrap();
        let roundabout = dir.path().join("sub/../in.json");
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        for same in [&input, &hard, &roundabout] {
            let err =
                check_outputs(&[("--json", same)], &[("a fixture file", &input)], &[]).unwrap_err();
            assert!(err.contains("is a fixture file"), "{err}");
        }
        let fresh = dir.path().join("out.json");
        let fresh_again = dir.path().join("sub/../out.json");
        let err =
            check_outputs(&[("--json", &fresh), ("--junit", &fresh_again)], &[], &[]).unwrap_err();
        assert!(err.contains("are one file"), "{err}");
        assert!(check_outputs(&[("--json", &fresh)], &[("a fixture file", &input)], &[]).is_ok());
        let allowed = [("--write-xfail", "the --xfail file")];
        let xfail = [("the --xfail file", input.as_path())];
        assert!(check_outputs(&[("--write-xfail", &hard)], &xfail, &allowed).is_ok());
        assert!(check_outputs(&[("--json", &hard)], &xfail, &allowed).is_err());
    }
}
