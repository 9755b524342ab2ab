//! Programs as bytes. bash reads any bytes; the parser reads `str`. Each byte that is not part
//! of valid UTF-8 is carried through the analysis as one character of a private range
//! (U+10FF00 + the byte), and turned back into that byte wherever the analysis touches the
//! filesystem, so that a path with a Latin-1 name is the same path. (The characters of that
//! range in valid text are carried as their bytes the same way, so nothing is ambiguous.)
//! Explanations show such a byte as `\xNN`.

use std::borrow::Cow;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;

const BASE: u32 = 0x10_FF00;

fn carried(b: u8) -> char {
    // Always a valid scalar value: 0x10FF00..=0x10FFFF.
    char::from_u32(BASE + u32::from(b)).unwrap_or(char::REPLACEMENT_CHARACTER)
}

fn is_carried(c: char) -> bool {
    (BASE..=BASE + 0xFF).contains(&u32::from(c))
}

/// Whether `text` holds a carried character. Each is four bytes long and starts with 0xF4 (as
/// do all characters from U+100000 on, which programs almost never hold), so a text without
/// that byte has none: one pass over the bytes, and the characters are decoded only where it
/// is there (decoding every one cost more than a millisecond on a long program at each start).
fn carries(text: &str) -> bool {
    text.as_bytes().contains(&0xF4) && text.chars().any(is_carried)
}

/// `bytes` as text for the parser, losslessly.
pub fn decode(bytes: &[u8]) -> Cow<'_, str> {
    if let Ok(text) = std::str::from_utf8(bytes)
        && !carries(text)
    {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(bytes.len() + 16);
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if is_carried(c) {
                let mut buf = [0; 4];
                for &b in c.encode_utf8(&mut buf).as_bytes() {
                    out.push(carried(b));
                }
            } else {
                out.push(c);
            }
        }
        for &b in chunk.invalid() {
            out.push(carried(b));
        }
    }
    Cow::Owned(out)
}

/// The bytes `text` stands for.
pub fn encode(text: &str) -> Cow<'_, [u8]> {
    if !carries(text) {
        return Cow::Borrowed(text.as_bytes());
    }
    let mut out = Vec::with_capacity(text.len());
    for c in text.chars() {
        if is_carried(c) {
            out.push((u32::from(c) - BASE) as u8);
        } else {
            let mut buf = [0; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
    }
    Cow::Owned(out)
}

/// The path `text` names, for the filesystem.
pub fn path(text: &str) -> std::path::PathBuf {
    std::path::PathBuf::from(OsStr::from_bytes(&encode(text)))
}

/// A path the filesystem gave back, as analysis text.
pub fn from_os(p: &std::path::Path) -> String {
    decode(p.as_os_str().as_bytes()).into_owned()
}

/// `text` for people: each carried byte as `\xNN`.
pub fn shown(text: &str) -> Cow<'_, str> {
    if !carries(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_carried(c) {
            out.push_str(&format!("\\x{:02x}", u32::from(c) - BASE));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_bytes_go_through_and_back() {
        let cases: [&[u8]; 5] = [
            b"echo hi\n",
            b"echo caf\xe9 > /tmp/caf\xe9\n",
            b"\xff\xfe\x80",
            "u+10ffaa: \u{10ffaa} and \u{10ff00}".as_bytes(),
            b"mixed \xc3\xa9 \xc3 \xa9\n",
        ];
        for bytes in cases {
            let text = decode(bytes);
            assert_eq!(&*encode(&text), bytes, "{bytes:?}");
        }
        assert!(matches!(decode(b"plain"), Cow::Borrowed(_)));
        assert_eq!(shown(&decode(b"caf\xe9")), "caf\\xe9");
        assert_eq!(path(&decode(b"/w/caf\xe9")).as_os_str().as_bytes(), b"/w/caf\xe9");
    }

    #[test]
    fn characters_that_share_the_carried_range_lead_byte_are_told_apart() {
        // Every character from U+100000 on starts with 0xF4; only U+10FF00 to U+10FFFF are carried.
        for plain in ["\u{100000}", "x\u{10feff}y", "\u{10fe00}\u{10ffff}"] {
            let carried = plain.contains('\u{10ffff}');
            assert_eq!(matches!(decode(plain.as_bytes()), Cow::Borrowed(_)), !carried, "{plain:?}");
            assert_eq!(&*encode(&decode(plain.as_bytes())), plain.as_bytes(), "{plain:?}");
            assert_eq!(matches!(shown(plain), Cow::Borrowed(_)), !carried, "{plain:?}");
        }
        assert_eq!(shown("a\u{10ff41}b"), "a\\x41b");
        assert_eq!(&*encode("a\u{10ff41}b"), b"aAb");
    }
}
