//! The archive inside the blob, before compression: the files one after another, each as its
//! path's length (u32, little-endian), its path (UTF-8, `/`-separated, relative to
//! `fixtures/`), its length (u64) and its bytes, after a magic line. `build.rs` writes it
//! (it includes this file), [`decode`] reads it back.

/// The first bytes of an archive (the format's version is in it).
pub const MAGIC: &[u8] = b"bcast-corpus 1\n";

/// Writes the archive of `files` (path, bytes). (`build.rs` and the tests call it.)
#[cfg_attr(not(test), allow(dead_code))]
pub fn encode(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    for (path, bytes) in files {
        out.extend_from_slice(&(path.len() as u32).to_le_bytes());
        out.extend_from_slice(path.as_bytes());
        out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        out.extend_from_slice(bytes);
    }
    out
}

/// Reads an archive back into its files, in the order written.
pub fn decode(mut bytes: &[u8]) -> Result<Vec<(String, Vec<u8>)>, String> {
    fn take<'a>(bytes: &mut &'a [u8], n: usize) -> Result<&'a [u8], String> {
        if bytes.len() < n {
            return Err(format!(
                "the archive ends early ({} bytes left, {n} wanted)",
                bytes.len()
            ));
        }
        let (head, rest) = bytes.split_at(n);
        *bytes = rest;
        Ok(head)
    }
    fn length(bytes: &mut &[u8], width: usize) -> Result<usize, String> {
        let mut le = [0u8; 8];
        le[..width].copy_from_slice(take(bytes, width)?);
        usize::try_from(u64::from_le_bytes(le)).map_err(|e| e.to_string())
    }
    if take(&mut bytes, MAGIC.len())? != MAGIC {
        return Err("not a corpus archive (no magic line)".to_string());
    }
    let mut files = Vec::new();
    while !bytes.is_empty() {
        let n = length(&mut bytes, 4)?;
        let path = std::str::from_utf8(take(&mut bytes, n)?)
            .map_err(|e| format!("a path that is not UTF-8: {e}"))?
            .to_string();
        let n = length(&mut bytes, 8)?;
        files.push((path, take(&mut bytes, n)?.to_vec()));
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_archive_reads_back_as_written_and_a_cut_one_is_an_error() {
        let files = vec![
            ("torch/a.json".to_string(), b"{\"schema\": 2}".to_vec()),
            ("empty.json".to_string(), Vec::new()),
        ];
        let bytes = encode(&files);
        assert_eq!(decode(&bytes).unwrap(), files);
        assert_eq!(decode(MAGIC).unwrap(), Vec::new());
        let cut = decode(&bytes[..bytes.len() - 1]).unwrap_err();
        assert!(cut.starts_with("the archive ends early"), "{cut}");
        assert!(decode(b"something else").is_err());
    }
}
