//! Package managers' caches, layered: a sandboxed run sees each cache as it is, with a layer of
//! sandbox-bash's own on top that takes everything the run writes there. `npm install`,
//! `cargo add`, `pip install`, `go mod download` and `pre-commit run` fill their caches as under
//! bash, while the caches that unsandboxed programs read never change: a poisoned crate, tarball
//! or hook environment written by a sandboxed run is seen by later sandboxed runs only, never by
//! the next build outside the sandbox.
//!
//! The layers live in `$XDG_STATE_HOME/sandbox-bash/caches` (by default
//! `~/.local/state/sandbox-bash/caches`), one directory per cache, which no sandboxed run may
//! write but through its layer. They are mounted by the namespace layer (an overlay whose
//! lower layer is the cache, when the mode lets the cache be read); where no namespace can be
//! had, the caches stay as the mode says (read-only below external write).

use std::os::unix::fs::{DirBuilderExt, MetadataExt};

use crate::scope::{self, Layout, is_within, normalize};

/// The caches, one row each: the variable that moves it (and the directory below the
/// variable's value), its place below the home otherwise, and when sandbox-bash makes it if it
/// is missing (so that the first run of a tool has a cache to fill).
const TREES: &[(&str, &str, &str, Make)] = &[
    // pip, uv, pre-commit, poetry, go's build cache, yarn 1, node-gyp, deno, Hugging Face models.
    ("XDG_CACHE_HOME", "", ".cache", Make::Always),
    // npm and npx.
    ("npm_config_cache", "", ".npm", Make::WithProgram("npm")),
    ("CARGO_HOME", "registry", ".cargo/registry", Make::InParent),
    ("CARGO_HOME", "git", ".cargo/git", Make::InParent),
    ("GOMODCACHE", "", "go/pkg/mod", Make::InParent),
    ("GRADLE_USER_HOME", "caches", ".gradle/caches", Make::InParent),
    ("GRADLE_USER_HOME", "wrapper", ".gradle/wrapper", Make::InParent),
    ("", "", ".m2/repository", Make::InParent),
    ("", "", ".yarn/berry/cache", Make::InParent),
    ("", "", ".local/share/pnpm/store", Make::InParent),
    ("BUN_INSTALL_CACHE_DIR", "", ".bun/install/cache", Make::InParent),
    ("NUGET_PACKAGES", "", ".nuget/packages", Make::InParent),
    ("", "", ".ivy2/cache", Make::InParent),
    ("PIP_CACHE_DIR", "", "", Make::InParent),
    ("UV_CACHE_DIR", "", "", Make::InParent),
    ("PRE_COMMIT_HOME", "", "", Make::InParent),
];

/// When a missing cache is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Make {
    /// Always, with the directories above it.
    Always,
    /// When the program is on `PATH` and the directory above the cache is there.
    WithProgram(&'static str),
    /// When the directory above it is there (the tool has its home).
    InParent,
}

/// One cache and its layer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layer {
    /// The cache, where it really is.
    pub path: String,
    /// The layer's upper and work directories (on one file system).
    pub upper: String,
    pub work: String,
    /// An empty directory, the lower layer when the mode may not read the cache itself.
    pub empty: String,
}

/// The directory below the state directory that is the workspace when a run starts in the
/// home (which is never the workspace unless a setting says so): empty, and read-only to
/// commands like the rest of the state.
pub const NO_WORKSPACE: &str = "no-workspace";

/// Where the layers live: `$XDG_STATE_HOME/sandbox-bash` (absolute) or
/// `~/.local/state/sandbox-bash`.
pub fn state_dir(home: Option<&str>, var: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    match var("XDG_STATE_HOME").filter(|v| v.starts_with('/')) {
        Some(v) => Some(normalize("/", &format!("{v}/sandbox-bash"))),
        None => home.filter(|h| *h != "/").map(|h| format!("{h}/.local/state/sandbox-bash")),
    }
}

/// The caches of this environment, as written, each with whether it may be made.
pub fn trees(home: Option<&str>, var: &dyn Fn(&str) -> Option<String>) -> Vec<(String, Make)> {
    let mut out: Vec<(String, Make)> = Vec::new();
    for &(name, below_var, below_home, make) in TREES {
        let from_var = if name.is_empty() { None } else { var(name).filter(|v| v.starts_with('/')) };
        let path = match (from_var, name) {
            (Some(v), "GOMODCACHE") => normalize("/", &v),
            (Some(v), _) => normalize("/", &format!("{v}/{below_var}")),
            // Go's module cache lies below the first GOPATH entry.
            (None, "GOMODCACHE") => match var("GOPATH").and_then(|g| g.split(':').next().map(str::to_string)) {
                Some(g) if g.starts_with('/') => normalize("/", &format!("{g}/pkg/mod")),
                _ => match home {
                    Some(h) => normalize(h, below_home),
                    None => continue,
                },
            },
            (None, _) if below_home.is_empty() => continue,
            (None, _) => match home.filter(|h| *h != "/") {
                Some(h) => normalize(h, below_home),
                None => continue,
            },
        };
        if !out.iter().any(|(p, _)| is_within(&path, p)) {
            out.retain(|(p, _)| !is_within(p, &path));
            out.push((path, make));
        }
    }
    out
}

/// The layers for `layout`: each cache that exists (or is made now) where a layer can hold it,
/// with its layer's directories made (owned by the caller, 0700, reached by no link). A cache
/// inside the workspace or scratch is written as it is; one that is a system, credential or
/// protected path, or holds the home or the workspace, gets no layer.
///
/// Without `make`, nothing is made: only caches whose layers exist already are listed (what a
/// run would get, for explaining it).
///
/// `key` keeps layers apart (the mode and network list of the run): a cache written by a run is
/// seen only by runs that may do no more than it could, so a narrower run cannot leave code
/// there for a wider one to run.
pub fn layers(layout: &Layout, var: &dyn Fn(&str) -> Option<String>, key: &str, make: bool) -> Vec<Layer> {
    let home = layout.home.as_deref();
    let Some(state) = state_dir(home, var) else { return Vec::new() };
    // The layers' directory where it really is, made when missing.
    let caches = format!("{state}/caches");
    let existed = own_dir(&caches, false);
    let there = existed || (make && make_dir(&caches, true));
    if !there {
        return Vec::new();
    }
    let Ok(state) = crate::exec::canonicalize(&state) else { return Vec::new() };
    // The layers' directory, reached by no link and the caller's: every layer's directories are
    // then walked from it, rather than each from `/`.
    let Some(below) = crate::exec::open_dir_no_links(std::path::Path::new(&format!("{state}/caches")))
        .ok()
        .filter(|d| d.metadata().is_ok_and(|m| m.is_dir() && m.uid() == crate::exec::uid()))
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    // The empty directory every layer shares is looked at once.
    let mut empty_checked = false;
    // The kept listings answer for the caches until a directory is made here: the layers'
    // directory just made (and those above it) or a cache may be the parent of the next.
    let mut listed = existed;
    for (path, when) in trees(home, var) {
        let usable = |p: &str| {
            !(scope::is_system_path(p)
                || is_within(p, "/tmp")
                || layout.tmpdir.as_deref().is_some_and(|t| is_within(p, t))
                || is_within(p, &layout.workspace)
                || is_within(&layout.workspace, p)
                || home.is_some_and(|h| is_within(h, p))
                || layout.is_credential(p)
                || layout.is_protected(p)
                || is_within(p, &state)
                || is_within(&state, p)
                // The overlay's options cannot carry these.
                || p.contains([':', ',', '\\']))
        };
        if !usable(&path) {
            continue;
        }
        let made = match status(&path, listed) {
            Ok(m) => m.is_dir() && m.uid() == crate::exec::uid(),
            // Its parent is looked at only when it may be made.
            Err(_) if make => {
                let parent_there = || path.rsplit_once('/').is_some_and(|(p, _)| !p.is_empty() && own_dir(p, listed));
                let made = match when {
                    Make::Always => make_dir(&path, true),
                    Make::WithProgram(program) => parent_there() && on_path(program, var) && make_dir(&path, false),
                    Make::InParent => parent_there() && make_dir(&path, false),
                };
                listed &= !made;
                made
            }
            Err(_) => false,
        };
        if !made {
            continue;
        }
        // Where it really is (the view mounts there); a link on the way may not lead it into a
        // place no layer may be.
        let Ok(real) = crate::exec::canonicalize(&path) else { continue };
        if !usable(&real) {
            continue;
        }
        let Some(layer) = layer_dirs(&state, &below, &real, key, make, &mut empty_checked) else { continue };
        out.push(layer);
    }
    out
}

/// Whether `program` is a file in one of `PATH`'s directories.
fn on_path(program: &str, var: &dyn Fn(&str) -> Option<String>) -> bool {
    let path = var("PATH").unwrap_or_default();
    scope::path_dirs(Some(path.as_bytes()))
        .any(|d| std::fs::metadata(format!("{d}/{program}")).is_ok_and(|m| m.is_file()))
}

/// Whether `dir` is a directory of the caller's own (`listed`: see [`status`]).
fn own_dir(dir: &str, listed: bool) -> bool {
    status(dir, listed).is_ok_and(|m| m.is_dir() && m.uid() == crate::exec::uid())
}

/// The status of `path` (not following a last link); when `listed`, not asked of the kernel
/// where the kept directory listings show it is not there (most of the caches this module
/// knows of are not).
#[cfg_attr(not(target_os = "linux"), allow(unused_variables))]
fn status(path: &str, listed: bool) -> std::io::Result<std::fs::Metadata> {
    #[cfg(target_os = "linux")]
    if listed && matches!(crate::sandbox::facts::entry(path), Some(None)) {
        return Err(std::io::Error::from(std::io::ErrorKind::NotFound));
    }
    std::fs::symlink_metadata(path)
}

/// Makes the cache directory `path` (0700): with its parents when `parents`, else only when
/// its parent is there.
fn make_dir(path: &str, parents: bool) -> bool {
    let mut b = std::fs::DirBuilder::new();
    b.mode(0o700).recursive(parents);
    b.create(path).is_ok() || own_dir(path, false)
}

/// The layer's directories for the cache `real`, made when missing, every one reached by no
/// link and the caller's own. `caches` is `{state}/caches`, opened reached by no link; the
/// shared empty directory is looked at only until `empty_checked` says it passed.
fn layer_dirs(
    state: &str,
    caches: &std::fs::File,
    real: &str,
    key: &str,
    make: bool,
    empty_checked: &mut bool,
) -> Option<Layer> {
    let name: String = real
        .rsplit('/')
        .next()
        .unwrap_or("cache")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' })
        .collect();
    let digest = {
        let d = sha1_smol::Sha1::from(real.as_bytes()).digest().bytes();
        d.iter().take(6).map(|b| format!("{b:02x}")).collect::<String>()
    };
    let key: String = key.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-').collect();
    let below = format!("{}-{digest}/{key}", name.trim_start_matches('_'));
    let base = format!("{state}/caches/{below}");
    let layer = Layer {
        path: real.to_string(),
        upper: format!("{base}/upper"),
        work: format!("{base}/work"),
        empty: format!("{state}/caches/empty"),
    };
    // Each directory reached from the layers' directory by no link and the caller's: the layer's
    // own directory opened once, its two below it. What is missing is made (when `make`) and
    // opened again.
    let open = || -> std::io::Result<[std::fs::File; 2]> {
        let base = crate::exec::open_dir_below_no_links(caches, std::path::Path::new(&below))?;
        Ok([
            crate::exec::open_dir_below_no_links(&base, std::path::Path::new("upper"))?,
            crate::exec::open_dir_below_no_links(&base, std::path::Path::new("work"))?,
        ])
    };
    let opened = match open() {
        Ok(dirs) => dirs,
        Err(e) if make && e.kind() == std::io::ErrorKind::NotFound => {
            for dir in [&layer.upper, &layer.work] {
                std::fs::DirBuilder::new().mode(0o700).recursive(true).create(dir).ok()?;
            }
            open().ok()?
        }
        Err(_) => return None,
    };
    let own = |d: &std::fs::File| d.metadata().is_ok_and(|m| m.is_dir() && m.uid() == crate::exec::uid());
    if !opened.iter().all(own) {
        return None;
    }
    if !*empty_checked {
        let empty = match crate::exec::open_dir_below_no_links(caches, std::path::Path::new("empty")) {
            Err(e) if make && e.kind() == std::io::ErrorKind::NotFound => {
                // Recursive: another start may make it first.
                std::fs::DirBuilder::new().mode(0o700).recursive(true).create(&layer.empty).ok()?;
                crate::exec::open_dir_below_no_links(caches, std::path::Path::new("empty"))
            }
            other => other,
        };
        if !empty.is_ok_and(|d| own(&d)) {
            return None;
        }
    }
    *empty_checked = true;
    Some(layer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn layers_are_made_once_reached_by_no_link_and_found_again_without_making() {
        let d = crate::unit_scratch();
        let home = d.path().join("home");
        let ws = d.path().join("ws");
        for dir in [home.join(".cache"), home.join(".cargo"), ws.clone()] {
            std::fs::create_dir_all(dir).unwrap();
        }
        let home = home.to_str().unwrap().to_string();
        let layout = Layout { workspace: ws.to_str().unwrap().into(), home: Some(home.clone()), ..Default::default() };
        let none = |_: &str| None;
        // Explaining makes nothing, and finds nothing made.
        assert!(layers(&layout, &none, "0467", false).is_empty());
        let made = layers(&layout, &none, "0467", true);
        let paths: Vec<&str> = made.iter().map(|l| l.path.as_str()).collect();
        // `.cargo` is there, so its registry and git caches are made; gradle's parent is not.
        assert_eq!(paths, [format!("{home}/.cache"), format!("{home}/.cargo/registry"), format!("{home}/.cargo/git")]);
        for l in &made {
            for dir in [&l.upper, &l.work, &l.empty] {
                let m = std::fs::symlink_metadata(dir).unwrap();
                assert!(m.is_dir() && m.permissions().mode() & 0o777 == 0o700, "{dir}");
            }
        }
        assert!(!std::path::Path::new(&format!("{home}/.gradle")).exists());
        // Found again as they are, without making.
        assert_eq!(layers(&layout, &none, "0467", false), made);
        // A layer's directory that became a link is no layer, made or not.
        let upper = &made[0].upper;
        std::fs::remove_dir(upper).unwrap();
        std::os::unix::fs::symlink(d.path(), upper).unwrap();
        for make in [false, true] {
            let again = layers(&layout, &none, "0467", make);
            assert!(!again.iter().any(|l| l.path == made[0].path), "{again:?}");
            assert_eq!(again.len(), 2);
        }
        // Its work directory missing: made again only when making.
        let work = &made[1].work;
        std::fs::remove_dir(work).unwrap();
        assert_eq!(layers(&layout, &none, "0467", false).len(), 1);
        assert_eq!(layers(&layout, &none, "0467", true).len(), 2);
        assert!(std::fs::symlink_metadata(work).unwrap().is_dir());
    }

    /// (Sets a variable of the process and the kept listings it uses: in a process of its own.)
    #[test]
    #[cfg(target_os = "linux")]
    #[allow(unsafe_code)]
    fn a_cache_below_a_directory_made_for_the_layers_is_made_though_a_listing_said_it_was_not_there() {
        let test = concat!(
            module_path!(),
            "::a_cache_below_a_directory_made_for_the_layers_is_made_though_a_listing_said_it_was_not_there"
        );
        crate::in_own_process(test, cache_below_a_made_directory);
    }

    #[cfg(target_os = "linux")]
    #[allow(unsafe_code)]
    fn cache_below_a_made_directory() {
        let d = crate::unit_scratch();
        let (t, home, ws) = (d.path().join("t"), d.path().join("home"), d.path().join("ws"));
        for dir in [&t, &home.join(".cache"), &ws] {
            std::fs::create_dir_all(dir).unwrap();
        }
        // SAFETY: this test's process alone (see above); no other thread reads the variable.
        unsafe { std::env::set_var("SANDBOX_BASH_TEST_ACCOUNT_HOME", &home) };
        crate::sandbox::facts::open(crate::sandbox::facts::Use::Read);
        crate::sandbox::facts::admit(&[]);
        let t = t.to_str().unwrap().to_string();
        // An earlier step of the start looked below `t` (a toolchain home there), so its listing
        // says `t/s` is not there; the layers' directory is then made below it.
        let _ = crate::exec::canonicalize(&format!("{t}/cargo"));
        assert_eq!(crate::sandbox::facts::entry(&format!("{t}/s")), Some(None));
        let vars = |n: &str| match n {
            "XDG_STATE_HOME" => Some(format!("{t}/s")),
            "NUGET_PACKAGES" => Some(format!("{t}/s/nuget")),
            _ => None,
        };
        let layout = Layout {
            workspace: ws.to_str().unwrap().into(),
            home: Some(home.to_str().unwrap().into()),
            ..Default::default()
        };
        let made = layers(&layout, &vars, "0467", true);
        assert!(made.iter().any(|l| l.path == format!("{t}/s/nuget")), "{made:?}");
    }

    #[test]
    fn the_caches_follow_their_variables_and_nest_in_one_layer() {
        let vars = |name: &str| match name {
            "CARGO_HOME" => Some("/opt/cargo".to_string()),
            "GOPATH" => Some("/srv/go:/other".to_string()),
            "PIP_CACHE_DIR" => Some("/home/u/.cache/pip".to_string()),
            "UV_CACHE_DIR" => Some("/data/uv".to_string()),
            "XDG_CACHE_HOME" => Some("relative".to_string()),
            _ => None,
        };
        let t: Vec<String> = trees(Some("/home/u"), &vars).into_iter().map(|(p, _)| p).collect();
        assert!(t.contains(&"/home/u/.cache".to_string()), "a relative XDG_CACHE_HOME falls back: {t:?}");
        assert!(t.contains(&"/opt/cargo/registry".to_string()) && t.contains(&"/opt/cargo/git".to_string()));
        assert!(t.contains(&"/srv/go/pkg/mod".to_string()));
        assert!(t.contains(&"/data/uv".to_string()));
        assert!(!t.iter().any(|p| p == "/home/u/.cache/pip"), "inside ~/.cache: one layer: {t:?}");
        assert_eq!(state_dir(Some("/home/u"), &vars).as_deref(), Some("/home/u/.local/state/sandbox-bash"));
        assert_eq!(
            state_dir(Some("/home/u"), &|n| (n == "XDG_STATE_HOME").then(|| "/s".to_string())).as_deref(),
            Some("/s/sandbox-bash")
        );
    }
}
