//! What runs later, outside the sandbox, because a file says so: git's indirections (the files
//! a configuration includes, the hooks directory it names) and the scripts and programs that
//! agents' settings name as hooks, servers or notifiers. Each is protected like the file that
//! names it, so that a command cannot change what the next unsandboxed git or client start
//! runs. The clients' own files are the table [`crate::scope::CLIENTS`].

use crate::scope;

fn read(p: &str, limit: u64) -> Option<String> {
    crate::analysis::files::read_regular(std::path::Path::new(p), limit)
        .ok()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// What git's configuration points at, for the workspace's repository and the user's own
/// configuration: the files they include (followed), and the workspace repository's
/// `core.hooksPath` (with husky's `.husky` around `.husky/_`). A later git reads or runs them
/// outside the sandbox, so they are protected like `.git/config` itself.
pub fn git_indirections(workspace: &str, home: Option<&str>, xdg_config: Option<&str>) -> Vec<String> {
    let read = |p: &str| read(p, 64 * 1024);
    let mut out: Vec<String> = Vec::new();
    let dot_git = format!("{workspace}/.git");
    let git_dir = match std::fs::symlink_metadata(&dot_git) {
        Ok(m) if m.is_dir() => Some(dot_git),
        Ok(m) if m.is_file() => read(&dot_git).and_then(|t| {
            let target = t.lines().next()?.strip_prefix("gitdir:")?.trim().to_string();
            (!target.is_empty()).then(|| scope::normalize(workspace, &target))
        }),
        _ => None,
    };
    let mut configs: Vec<(String, bool)> = Vec::new();
    if let Some(git) = &git_dir {
        configs.push((format!("{git}/config"), true));
        configs.push((format!("{git}/config.worktree"), true));
        if let Some(common) = read(&format!("{git}/commondir")) {
            configs.push((format!("{}/config", scope::normalize(git, common.trim())), true));
        }
    }
    if let Some(h) = home {
        configs.push((format!("{h}/.gitconfig"), false));
        configs.push((format!("{h}/.config/git/config"), false));
    }
    if let Some(x) = xdg_config.filter(|x| x.starts_with('/')) {
        configs.push((format!("{}/git/config", scope::normalize("/", x)), false));
    }
    for (config, own) in configs {
        let (includes, hooks) = crate::plain::git_config_closure(&config, home, &read);
        out.extend(includes);
        // A relative hooksPath is taken from each repository's work tree: the user's own
        // configuration's is known only for the workspace's.
        for value in hooks.iter().filter(|v| own || v.starts_with('/') || v.starts_with("~/")) {
            out.extend(crate::plain::hooks_dirs(value, workspace, home));
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Settings files that name programs to run (hooks, servers, notifiers), relative to the
/// workspace's top and to the home.
const SETTINGS_WITH_COMMANDS: &[(&str, bool)] = &[
    (".claude/settings.json", true),
    (".claude/settings.local.json", true),
    (".mcp.json", true),
    (".cursor/mcp.json", true),
    (".cursor/hooks.json", true),
    (".gemini/settings.json", true),
    (".codex/config.toml", true),
    ("opencode.json", true),
    (".claude/settings.json", false),
    (".claude/settings.local.json", false),
    (".cursor/mcp.json", false),
    (".cursor/hooks.json", false),
    (".gemini/settings.json", false),
    (".codex/config.toml", false),
    (".config/opencode/opencode.json", false),
];

/// The keys whose values are commands or their arguments.
const COMMAND_KEYS: &[&str] = &["command", "args", "notify", "cmd"];

/// The files in the workspace or the home that agents' settings name as programs or scripts to
/// run (a hook's `command`, an MCP server's `command` and `args`, Codex's `notify`): a script
/// the settings point at runs at the client's next start or event, outside the sandbox.
pub fn named_by_settings(workspace: &str, home: Option<&str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for &(rel, project) in SETTINGS_WITH_COMMANDS {
        let base = if project { Some(workspace) } else { home };
        let Some(base) = base.filter(|b| *b != "/") else { continue };
        let file = format!("{base}/{rel}");
        let Some(text) = read(&file, 1024 * 1024) else { continue };
        let mut words: Vec<String> = Vec::new();
        if rel.ends_with(".toml") {
            if let Ok(value) = text.parse::<toml::Table>() {
                toml_commands(&toml::Value::Table(value), false, &mut words);
            }
        } else if let Ok(value) = serde_json::from_str::<serde_json::Value>(&text) {
            json_commands(&value, false, &mut words);
        }
        for word in words {
            if let Some(path) = script_path(&word, workspace, home)
                && !out.contains(&path)
            {
                out.push(path);
            }
        }
    }
    out
}

fn json_commands(v: &serde_json::Value, under: bool, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) if under => out.extend(s.split_whitespace().map(str::to_string)),
        serde_json::Value::Array(items) => items.iter().for_each(|i| json_commands(i, under, out)),
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                json_commands(v, under || COMMAND_KEYS.contains(&k.as_str()), out);
            }
        }
        _ => {}
    }
}

fn toml_commands(v: &toml::Value, under: bool, out: &mut Vec<String>) {
    match v {
        toml::Value::String(s) if under => out.extend(s.split_whitespace().map(str::to_string)),
        toml::Value::Array(items) => items.iter().for_each(|i| toml_commands(i, under, out)),
        toml::Value::Table(map) => {
            for (k, v) in map {
                toml_commands(v, under || COMMAND_KEYS.contains(&k.as_str()), out);
            }
        }
        _ => {}
    }
}

/// The file a word of a command names, when it is one in the workspace or the home: quotes
/// and the clients' project variables taken away, `~` and `$HOME` expanded, a relative path
/// taken from the workspace (where clients run their hooks).
fn script_path(word: &str, workspace: &str, home: Option<&str>) -> Option<String> {
    let mut w = word.trim_matches(|c| c == '"' || c == '\'' || c == ';' || c == '&' || c == '|').to_string();
    for var in [
        "$CLAUDE_PROJECT_DIR",
        "${CLAUDE_PROJECT_DIR}",
        "$GEMINI_PROJECT_DIR",
        "${GEMINI_PROJECT_DIR}",
        "$PWD",
        "${PWD}",
    ] {
        w = w.replace(var, workspace);
    }
    w = w.replace('"', "");
    if let Some(h) = home {
        for var in ["$HOME", "${HOME}"] {
            w = w.replace(var, h);
        }
        if let Some(rest) = w.strip_prefix("~/") {
            w = format!("{h}/{rest}");
        }
    }
    if w.contains('$') || !w.contains('/') || w.starts_with('-') {
        return None;
    }
    let path = scope::normalize(workspace, &w);
    let inside = scope::is_within(&path, workspace) || home.is_some_and(|h| h != "/" && scope::is_within(&path, h));
    let file = std::fs::metadata(&path).is_ok_and(|m| m.is_file());
    (inside && file && !scope::is_system_path(&path)).then_some(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hook scripts, servers' programs and notifiers named by the clients' settings in the
    /// workspace and the home are found; a program on `PATH`, a package name and a file that
    /// is not there are not.
    #[test]
    fn scripts_named_by_agents_settings_are_found() {
        let root = tempfile::tempdir_in(concat!(env!("CARGO_MANIFEST_DIR"), "/target")).unwrap();
        let base = crate::exec::canonicalize(&root.path().to_string_lossy()).unwrap();
        let (ws, home) = (format!("{base}/ws"), format!("{base}/home"));
        for d in [".claude/hooks", "scripts", "server", ".codex"] {
            std::fs::create_dir_all(format!("{ws}/{d}")).unwrap();
        }
        std::fs::create_dir_all(format!("{home}/.claude")).unwrap();
        std::fs::create_dir_all(format!("{home}/bin")).unwrap();
        for f in [".claude/hooks/format.sh", "scripts/lint.py", "server/index.js", "notify.sh"] {
            std::fs::write(format!("{ws}/{f}"), "x\n").unwrap();
        }
        std::fs::write(format!("{home}/bin/on-stop"), "x\n").unwrap();
        std::fs::write(
            format!("{ws}/.claude/settings.json"),
            r#"{"hooks": {"PostToolUse": [{"matcher": "Edit", "hooks": [
                {"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/format.sh"},
                {"type": "command", "command": "python3 scripts/lint.py --fix"},
                {"type": "command", "command": "npx prettier --write"}]}]}}"#,
        )
        .unwrap();
        std::fs::write(
            format!("{ws}/.mcp.json"),
            r#"{"mcpServers": {"a": {"command": "node", "args": ["server/index.js"]},
                "b": {"command": "npx", "args": ["-y", "@scope/server-b", "missing/file.js"]}}}"#,
        )
        .unwrap();
        std::fs::write(format!("{ws}/.codex/config.toml"), "notify = [\"bash\", \"./notify.sh\"]\n").unwrap();
        std::fs::write(
            format!("{home}/.claude/settings.json"),
            r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "~/bin/on-stop"}]}]}}"#,
        )
        .unwrap();
        let mut found = named_by_settings(&ws, Some(&home));
        found.sort();
        let mut want = vec![
            format!("{ws}/.claude/hooks/format.sh"),
            format!("{ws}/scripts/lint.py"),
            format!("{ws}/server/index.js"),
            format!("{ws}/notify.sh"),
            format!("{home}/bin/on-stop"),
        ];
        want.sort();
        assert_eq!(found, want);
    }
}
