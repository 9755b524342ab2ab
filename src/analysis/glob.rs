//! Glob matching against the filesystem as it is now (`*`, `?`, `[…]`), bounded in work.

/// Whether `name` matches the shell pattern `pat` (backslash escapes the next character).
pub fn fnmatch(pat: &str, name: &str) -> bool {
    let p: Vec<char> = pat.chars().collect();
    let n: Vec<char> = name.chars().collect();
    matches_at(&p, &n)
}

fn matches_at(p: &[char], n: &[char]) -> bool {
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        if pi < p.len() {
            match p[pi] {
                '*' => {
                    star = Some((pi, ni));
                    pi += 1;
                    continue;
                }
                '?' => {
                    pi += 1;
                    ni += 1;
                    continue;
                }
                '[' => {
                    if let Some((matched, len)) = class_match(&p[pi..], n[ni]) {
                        if matched {
                            pi += len;
                            ni += 1;
                            continue;
                        }
                    } else if n[ni] == '[' {
                        pi += 1;
                        ni += 1;
                        continue;
                    }
                }
                '\\' if pi + 1 < p.len() => {
                    if p[pi + 1] == n[ni] {
                        pi += 2;
                        ni += 1;
                        continue;
                    }
                }
                c => {
                    if c == n[ni] {
                        pi += 1;
                        ni += 1;
                        continue;
                    }
                }
            }
        }
        match star {
            Some((sp, sn)) => {
                pi = sp + 1;
                ni = sn + 1;
                star = Some((sp, sn + 1));
            }
            None => return false,
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

/// Matches a bracket expression at the start of `p`: `(matched, length)`, or `None` when the
/// bracket is not closed (it is then a literal `[`).
fn class_match(p: &[char], c: char) -> Option<(bool, usize)> {
    let mut i = 1;
    let negate = matches!(p.get(1), Some('!' | '^'));
    if negate {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    while i < p.len() {
        if p[i] == ']' && !first {
            return Some((matched != negate, i + 1));
        }
        first = false;
        if p[i] == '['
            && p.get(i + 1) == Some(&':')
            && let Some(end) = (i + 2..p.len().saturating_sub(1)).find(|&j| p[j] == ':' && p[j + 1] == ']')
        {
            let class: String = p[i + 2..end].iter().collect();
            matched |= match class.as_str() {
                "alpha" => c.is_alphabetic(),
                "digit" => c.is_ascii_digit(),
                "alnum" => c.is_alphanumeric(),
                "upper" => c.is_uppercase(),
                "lower" => c.is_lowercase(),
                "space" => c.is_whitespace(),
                "punct" => c.is_ascii_punctuation(),
                "xdigit" => c.is_ascii_hexdigit(),
                _ => false,
            };
            i = end + 2;
            continue;
        }
        let lo = if p[i] == '\\' && i + 1 < p.len() {
            i += 1;
            p[i]
        } else {
            p[i]
        };
        if p.get(i + 1) == Some(&'-') && p.get(i + 2).is_some_and(|&x| x != ']') {
            let hi = p[i + 2];
            matched |= lo <= c && c <= hi;
            i += 3;
        } else {
            matched |= lo == c;
            i += 1;
        }
    }
    None
}

fn has_glob(component: &str) -> bool {
    let b = component.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'*' | b'?' | b'[' => return true,
            _ => i += 1,
        }
    }
    false
}

fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c == '\\' {
            if let Some(n) = it.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Paths the absolute pattern matches now, looking at no more than `budget` directory entries.
pub fn matches(pattern: &str, budget: usize) -> Vec<String> {
    let mut current = vec![String::from("/")];
    let mut budget = budget;
    let components: Vec<&str> = pattern.split('/').filter(|c| !c.is_empty()).collect();
    for comp in components {
        let mut next = Vec::new();
        for dir in &current {
            let base = dir.trim_end_matches('/');
            if !has_glob(comp) {
                let candidate = format!("{base}/{}", unescape(comp));
                if super::asked::status(&candidate, false).is_ok() {
                    next.push(candidate);
                }
                continue;
            }
            let Some(names) = super::asked::list(if base.is_empty() { "/" } else { base }) else {
                continue;
            };
            for name in names {
                if budget == 0 {
                    return next;
                }
                budget -= 1;
                if name.starts_with('.') && !comp.starts_with('.') {
                    continue;
                }
                if fnmatch(comp, &name) {
                    next.push(format!("{base}/{name}"));
                }
            }
        }
        current = next;
        if current.is_empty() {
            break;
        }
    }
    current
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        assert!(fnmatch("*.pem", "server.pem"));
        assert!(!fnmatch("*.pem", "server.pem.txt"));
        assert!(fnmatch("e??", "etc"));
        assert!(fnmatch("id_[re]*", "id_rsa"));
        assert!(!fnmatch("id_[!r]*", "id_rsa"));
        assert!(fnmatch("a\\*", "a*"));
        assert!(!fnmatch("a\\*", "ab"));
        assert!(fnmatch("[[:digit:]]x", "7x"));
        assert!(fnmatch("*", ""));
        assert!(fnmatch("a*b*c", "axxbyyc"));
    }

    #[test]
    fn matches_the_filesystem() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("key.pem"), "x").unwrap();
        std::fs::write(dir.path().join("notes.txt"), "x").unwrap();
        std::fs::write(dir.path().join(".hidden.pem"), "x").unwrap();
        let base = dir.path().to_str().unwrap();
        let found = matches(&format!("{base}/*.pem"), 100);
        assert_eq!(found, vec![format!("{base}/key.pem")]);
        assert_eq!(matches(&format!("{base}/.*.pem"), 100).len(), 1);
        assert!(matches(&format!("{base}/*.none"), 100).is_empty());
    }
}
