//! What runs later, outside the sandbox: each persistence point a command could plant (a hook
//! script an agent's settings name, an MCP server's file, a file git's configuration includes,
//! husky's hooks, a linked worktree's `commondir`, a program in a `PATH` directory of the
//! home, a second settings file made in an agent's directory), attacked through Python (which the analysis does not read), then followed by the
//! unsandboxed step that would run it. As root and as nobody, with the positive control: at
//! system write the same program plants every one, and the same step runs each payload.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::lab::{self, Lab, text};

struct Points {
    ws: PathBuf,
    home: PathBuf,
    canary: PathBuf,
}

fn git(dir: &Path, home: &Path, args: &[&str]) -> std::process::Output {
    Command::new("/usr/bin/git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap()
}

/// A workspace and a home holding one of each point, harmless until planted.
fn points(lab: &Lab) -> Points {
    let ws = lab.ws.clone();
    let home = lab.home.clone();
    let canary = lab.outside.join("PAYLOAD_RAN");
    assert!(git(&ws, &home, &["init", "-q", "-b", "main"]).status.success());
    for d in [".claude/hooks", "scripts", "server", ".husky/_"] {
        std::fs::create_dir_all(ws.join(d)).unwrap();
    }
    std::fs::write(ws.join(".claude/hooks/format.sh"), "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::write(ws.join("scripts/lint.sh"), "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::write(
        ws.join(".claude/settings.json"),
        r#"{"hooks": {"PostToolUse": [{"hooks": [
            {"type": "command", "command": "$CLAUDE_PROJECT_DIR/.claude/hooks/format.sh"},
            {"type": "command", "command": "sh scripts/lint.sh"}]}]}}"#,
    )
    .unwrap();
    std::fs::write(ws.join("server/index.sh"), "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::write(ws.join(".mcp.json"), r#"{"mcpServers": {"dev": {"command": "sh", "args": ["server/index.sh"]}}}"#)
        .unwrap();
    // husky: core.hooksPath = .husky/_, whose shim runs .husky/pre-commit.
    std::fs::write(ws.join(".husky/_/pre-commit"), "#!/bin/sh\nsh \"$(dirname \"$0\")/../pre-commit\"\n").unwrap();
    std::fs::write(ws.join(".husky/pre-commit"), "#!/bin/sh\nexit 0\n").unwrap();
    for f in [".husky/_/pre-commit", ".husky/pre-commit"] {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(ws.join(f), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::fs::write(ws.join("team.inc"), "[user]\n\tname = t\n").unwrap();
    for (k, v) in [("core.hooksPath", ".husky/_"), ("include.path", "../team.inc")] {
        assert!(git(&ws, &home, &["config", k, v]).status.success());
    }
    std::fs::write(ws.join("file.txt"), "x\n").unwrap();
    assert!(git(&ws, &home, &["add", "file.txt"]).status.success());
    assert!(git(&ws, &home, &["-c", "core.hooksPath=/dev/null", "commit", "-qm", "one"]).status.success());
    // A linked worktree, outside the workspace.
    let wt = lab.outside.join("wt");
    assert!(git(&ws, &home, &["worktree", "add", "-q", &wt.to_string_lossy()]).status.success());
    // A copy of the repository's git directory, with a monitor of its own.
    let copy = lab.outside.join("copy.git");
    assert!(Command::new("cp").arg("-a").arg(ws.join(".git")).arg(&copy).status().unwrap().success());
    // The home's PATH directory.
    std::fs::create_dir_all(home.join(".local/bin")).unwrap();
    Points { ws, home, canary }
}

/// The attack: every plant through Python, each reported as planted or refused with its errno.
fn attack(p: &Points) -> String {
    let payload = format!("touch {}", p.canary.display());
    let code = format!(
        r##"
import os, stat
ws, home, payload = {ws:?}, {home:?}, {payload:?}
script = "#!/bin/sh\n" + payload + "\n"
def plant(name, path, text, mode=0o755):
    try:
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, mode)
        print(name, "planted")
    except OSError as e:
        print(name, "refused", e.errno)
plant("hook", ws + "/.claude/hooks/format.sh", script)
plant("named", ws + "/scripts/lint.sh", script)
plant("mcp", ws + "/server/index.sh", script)
plant("husky", ws + "/.husky/pre-commit", script)
plant("include", ws + "/team.inc", "[core]\n\tfsmonitor = \"" + payload + "; false\"\n", 0o644)
plant("commondir", ws + "/.git/worktrees/wt/commondir", {copy:?} + "\n", 0o644)
plant("path", home + "/.local/bin/git", script)
plant("second-settings", ws + "/.claude/settings.local.json", "{{}}", 0o644)
def by_rename(name, dir, rel, text):
    # The directory above the point renamed away, and a new one made in its place.
    try:
        os.rename(dir, dir + ".old")
        os.makedirs(os.path.dirname(dir + "/" + rel), exist_ok=True)
        plant(name, dir + "/" + rel, text)
    except OSError as e:
        print(name, "refused", e.errno)
by_rename("named-by-rename", ws + "/scripts", "lint.sh", script)
by_rename("mcp-by-rename", ws + "/server", "index.sh", script)
by_rename("commondir-by-rename", ws + "/.git/worktrees", "wt/commondir", {copy:?} + "\n")
"##,
        ws = p.ws.display().to_string(),
        home = p.home.display().to_string(),
        copy = p.ws.parent().unwrap().join("outside/copy.git").display().to_string(),
    );
    lab::py(&code)
}

/// The unsandboxed steps that would run each payload; whether any did.
fn later_steps(p: &Points) -> bool {
    let _ = std::fs::remove_file(&p.canary);
    // The client's hook and server start, run as the client would.
    for script in [".claude/hooks/format.sh", "scripts/lint.sh", "server/index.sh"] {
        let _ = Command::new("sh").arg(p.ws.join(script)).current_dir(&p.ws).status();
    }
    // git in the workspace and in the worktree; a commit runs the hooks.
    let _ = git(&p.ws, &p.home, &["status", "--short"]);
    let _ = git(&p.ws, &p.home, &["commit", "-q", "--allow-empty", "-m", "two"]);
    let wt = p.ws.parent().unwrap().join("outside/wt");
    let _ = git(&wt, &p.home, &["status", "--short"]);
    // The user's next `git` through PATH.
    let _ = Command::new("sh")
        .arg("-c")
        .arg("git --version")
        .env("PATH", format!("{}:/usr/bin:/bin", p.home.join(".local/bin").display()))
        .output();
    p.canary.exists()
}

#[test]
fn nothing_planted_runs_later_outside_the_sandbox() {
    use std::os::unix::process::CommandExt;
    for nobody in [false, true] {
        for (mode, wanted) in [("0467", false), ("0667", false), ("2667", true)] {
            let lab = Lab::new();
            let p = points(&lab);
            if nobody {
                let status =
                    Command::new("chown").args(["-R", "65534:65534"]).arg(lab.ws.parent().unwrap()).status().unwrap();
                assert!(status.success());
            }
            let mut c = lab.command(mode, &attack(&p));
            // The home is the workspace's parent's `home`: the PATH directory is the home's,
            // which is on the command's PATH too.
            c.env("PATH", format!("{}:/usr/local/bin:/usr/bin:/bin", p.home.join(".local/bin").display()));
            if nobody {
                c.uid(65534).gid(65534);
            }
            let out = c.output().unwrap();
            let said = text(&out.stdout);
            assert_eq!(out.status.code(), Some(0), "nobody={nobody} {mode}: {}", text(&out.stderr));
            for name in [
                "hook",
                "named",
                "mcp",
                "husky",
                "include",
                "commondir",
                "path",
                "second-settings",
                "named-by-rename",
                "mcp-by-rename",
                "commondir-by-rename",
            ] {
                let line = said.lines().find(|l| l.starts_with(&format!("{name} "))).unwrap_or("");
                if wanted {
                    assert_eq!(line, format!("{name} planted"), "nobody={nobody} {mode}:\n{said}");
                } else {
                    // EROFS from the view, EBUSY for a directory above a point (bound onto
                    // itself), or EACCES where the path is held otherwise.
                    assert!(
                        [30, 16, 13].iter().any(|e| line == format!("{name} refused {e}")),
                        "nobody={nobody} {mode}: {name}:\n{said}{}",
                        text(&out.stderr)
                    );
                }
            }
            let ran = later_steps(&p);
            assert_eq!(ran, wanted, "nobody={nobody} {mode}: a payload ran later outside: {ran}\n{said}");
            let _ = lab::SB;
        }
    }
}

/// Points reached through a symbolic link are held where the mount really lands: a home whose
/// `.claude` and `.config` are links into a dotfiles directory (bound back writable at `0667`),
/// and a repository whose `.git` is a link. As root and as nobody; at system write the same
/// writes go through.
#[test]
fn points_reached_through_links_are_held_where_they_lead() {
    use std::os::unix::process::CommandExt;
    for nobody in [false, true] {
        for (mode, wanted) in [("0667", false), ("2667", true)] {
            let lab = Lab::new();
            let home = &lab.home;
            for d in ["dotfiles/claude", "dotfiles/config/git"] {
                std::fs::create_dir_all(home.join(d)).unwrap();
            }
            std::fs::write(home.join("dotfiles/claude/settings.json"), "{}\n").unwrap();
            std::fs::write(home.join("dotfiles/config/git/config"), "[user]\n").unwrap();
            std::os::unix::fs::symlink("dotfiles/claude", home.join(".claude")).unwrap();
            std::os::unix::fs::symlink("dotfiles/config", home.join(".config")).unwrap();
            let real = lab.ws.join("realgit");
            assert!(git(&lab.ws, home, &["init", "-q", "-b", "main"]).status.success());
            std::fs::rename(lab.ws.join(".git"), &real).unwrap();
            std::os::unix::fs::symlink("realgit", lab.ws.join(".git")).unwrap();
            if nobody {
                let root = lab.ws.parent().unwrap();
                assert!(Command::new("chown").args(["-hR", "65534:65534"]).arg(root).status().unwrap().success());
            }
            let code = format!(
                "import os\nfor p in [{claude:?}, {config:?}, {hooks:?}, {notes:?}]:\n    \
                 try:\n        open(p, \"a\").write(\"\")\n        print(\"wrote\")\n    \
                 except OSError as e:\n        print(\"refused\", e.errno)",
                claude = home.join(".claude/settings.json").display().to_string(),
                config = home.join(".config/git/config").display().to_string(),
                hooks = lab.ws.join(".git/hooks/pre-commit").display().to_string(),
                notes = home.join("dotfiles/notes").display().to_string(),
            );
            let mut c = lab.command(mode, &lab::py(&code));
            if nobody {
                c.uid(65534).gid(65534);
            }
            let out = c.output().unwrap();
            let said = text(&out.stdout);
            let want =
                if wanted { "wrote\nwrote\nwrote\nwrote\n" } else { "refused 30\nrefused 30\nrefused 30\nwrote\n" };
            assert_eq!(said, want, "nobody={nobody} {mode}: {}", text(&out.stderr));
        }
    }
}

/// Persistence points that do not exist yet, which no mount can cover: a repository without a
/// hooks directory, no `.vscode`, `.mcp.json` or `.claude/settings.json`. Made through Python
/// (which the analysis does not read) directly, by a directory renamed onto one, by a link put
/// above one, and by `tar` and `cp -r` into the workspace (which the analysis sees write the
/// workspace, not which names). The watch refuses each with EACCES and names it; what else the
/// same commands make is made (`lib/ok.txt`, `.claude/commands`), and the next commit outside
/// runs no hook. At system write the same commands make every point and the hook runs. As root
/// and as nobody.
#[test]
fn points_that_do_not_exist_yet_are_not_made() {
    use std::os::unix::process::CommandExt;
    for nobody in [false, true] {
        for (mode, wanted) in [("0467", false), ("2467", true)] {
            let lab = Lab::new();
            let (ws, home) = (lab.ws.clone(), lab.home.clone());
            let canary = lab.outside.join("HOOK_RAN");
            assert!(git(&ws, &home, &["init", "-q", "-b", "main"]).status.success());
            std::fs::remove_dir_all(ws.join(".git/hooks")).unwrap();
            assert!(git(&ws, &home, &["add", "file.txt"]).status.success());
            assert!(git(&ws, &home, &["commit", "-qm", "one"]).status.success());
            // An archive and a tree to copy, each holding a point and an ordinary file.
            let src = lab.outside.join("src");
            for d in [".vscode", ".git/hooks", "lib"] {
                std::fs::create_dir_all(src.join(d)).unwrap();
            }
            std::fs::write(src.join(".vscode/tasks.json"), "{}\n").unwrap();
            std::fs::write(src.join(".git/hooks/pre-commit"), format!("#!/bin/sh\ntouch {}\n", canary.display()))
                .unwrap();
            std::fs::write(src.join("lib/ok.txt"), "ok\n").unwrap();
            {
                use std::os::unix::fs::PermissionsExt;
                let executable = std::fs::Permissions::from_mode(0o755);
                std::fs::set_permissions(src.join(".git/hooks/pre-commit"), executable).unwrap();
            }
            let tar = Command::new("tar")
                .arg("-C")
                .arg(&src)
                .arg("-cf")
                .arg(ws.join("plant.tar"))
                .args([".vscode", ".git", "lib"])
                .status();
            assert!(tar.unwrap().success());
            if nobody {
                let status =
                    Command::new("chown").args(["-R", "65534:65534"]).arg(lab.ws.parent().unwrap()).status().unwrap();
                assert!(status.success());
            }
            let code = r#"
import os
def t(name, f):
    try:
        f()
        print(name, "made")
    except OSError as e:
        print(name, "refused", e.errno)
def settings():
    with open(".mcp.json", "w") as f:
        f.write("{}")
def renamed():
    os.makedirs("prepared")
    with open("prepared/settings.json", "w") as f:
        f.write("{}")
    os.rename("prepared", ".claude")
t("hooks", lambda: os.makedirs(".git/hooks"))
t("mcp", settings)
t("claude-by-rename", renamed)
t("cursor-by-link", lambda: os.symlink("/var/tmp", ".cursor"))
def through_descriptor():
    fd = os.open(".git", os.O_RDONLY)
    os.mkdir("/proc/self/fd/%d/hooks" % fd)
t("hooks-through-cwd", lambda: os.mkdir("/proc/self/cwd/.git/hooks"))
t("hooks-through-descriptor", through_descriptor)
t("claude-dir", lambda: os.makedirs(".claude/commands"))
t("claude-settings", lambda: open(".claude/settings.json", "w").close())
"#;
            let program = format!(
                "{}\ntar xf plant.tar; echo tar $?\nrm -rf lib; cp -r {}/. .; echo cp $?",
                lab::py(code),
                src.display()
            );
            let mut c = lab.command(mode, &program);
            if nobody {
                c.uid(65534).gid(65534);
            }
            let out = c.output().unwrap();
            let (said, err) = (text(&out.stdout), text(&out.stderr));
            let line = |name: &str| said.lines().find(|l| l.starts_with(&format!("{name} "))).unwrap_or("").to_string();
            let ctx = format!("nobody={nobody} {mode}:\n{said}{err}");
            for name in ["hooks", "mcp", "claude-by-rename", "cursor-by-link"] {
                let expected = if wanted { format!("{name} made") } else { format!("{name} refused 13") };
                assert_eq!(line(name), expected, "{ctx}");
            }
            // The same point through paths the watch cannot follow: refused by its name (made
            // above already at system write: EEXIST).
            for name in ["hooks-through-cwd", "hooks-through-descriptor"] {
                let expected = if wanted { format!("{name} refused 17") } else { format!("{name} refused 13") };
                assert_eq!(line(name), expected, "{ctx}");
            }
            assert_eq!(line("claude-dir"), "claude-dir made", "{ctx}");
            if wanted {
                assert_eq!(line("claude-settings"), "claude-settings made", "{ctx}");
                assert_eq!((line("tar"), line("cp")), ("tar 0".into(), "cp 0".into()), "{ctx}");
                assert!(ws.join(".vscode/tasks.json").exists(), "{ctx}");
            } else {
                assert_eq!(line("claude-settings"), "claude-settings refused 13", "{ctx}");
                assert_eq!((line("tar"), line("cp")), ("tar 2".into(), "cp 1".into()), "{ctx}");
                for p in [".git/hooks", ".vscode", ".mcp.json", ".cursor", ".claude/settings.json"] {
                    assert!(std::fs::symlink_metadata(ws.join(p)).is_err(), "{p} was made: {ctx}");
                }
                // Each refusal is told once, by the first program refused.
                for (p, call) in [(".git/hooks", "mkdir"), (".vscode", "mkdirat")] {
                    let told = format!("makes the directory {}/{p} ({call}); held by the watch", ws.display());
                    assert!(err.contains(&told), "{told}: {ctx}");
                }
            }
            // What is not a point is made either way.
            assert!(ws.join("lib/ok.txt").exists() && ws.join(".claude/commands").is_dir(), "{ctx}");
            let _ = git(&ws, &home, &["-c", "safe.directory=*", "commit", "-q", "--allow-empty", "-m", "two"]);
            assert_eq!(canary.exists(), wanted, "a hook ran at the next commit: {ctx}");
        }
    }
}

/// A link made in one call that leads to a persistence point not there yet is written through
/// in the next: the analysis follows the link to the name it would make, and refuses the write
/// before anything runs. The same write through a link to an ordinary file goes on.
#[test]
fn a_write_through_a_link_to_a_point_not_there_yet_is_refused() {
    let lab = Lab::new();
    std::fs::create_dir(lab.ws.join("sub")).unwrap();
    std::os::unix::fs::symlink("../.mcp.json", lab.ws.join("sub/y")).unwrap();
    std::os::unix::fs::symlink("../notes.txt", lab.ws.join("sub/n")).unwrap();
    let out = lab.command("0467", "echo '{}' > sub/y").output().unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(126), "{err}");
    assert!(err.contains(&format!("through a link to {}/.mcp.json", lab.ws.display())), "{err}");
    assert!(std::fs::symlink_metadata(lab.ws.join(".mcp.json")).is_err());
    let out = lab.command("0467", "echo fine > sub/n").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(std::fs::read_to_string(lab.ws.join("notes.txt")).unwrap(), "fine\n");
}

/// Programs that make names their words do not list, into a subdirectory: an absolute member
/// (`tar -P`), and a link inside the target that leads to the top. And a repository made in
/// the run, in a workspace that had none: `git init` works, with git's samples, but a hook
/// written into it is refused, so no hook runs at the next commit outside.
#[test]
fn archives_into_a_subdirectory_and_repositories_made_in_the_run_plant_no_hook() {
    let hook = |canary: &std::path::Path| format!("#!/bin/sh\ntouch {}\n", canary.display());
    // In a repository without a hooks directory.
    let lab = Lab::new();
    let (ws, home) = (lab.ws.clone(), lab.home.clone());
    let canary = lab.outside.join("HOOK_RAN");
    assert!(git(&ws, &home, &["init", "-q", "-b", "main"]).status.success());
    std::fs::remove_dir_all(ws.join(".git/hooks")).unwrap();
    let staged = lab.outside.join("staged");
    std::fs::create_dir_all(ws.join(".git/hooks")).unwrap();
    std::fs::write(ws.join(".git/hooks/pre-commit"), hook(&canary)).unwrap();
    let absolute = lab.outside.join("absolute.tar");
    let member = ws.join(".git/hooks/pre-commit");
    assert!(Command::new("tar").arg("-cPf").arg(&absolute).arg(&member).status().unwrap().success());
    std::fs::remove_dir_all(ws.join(".git/hooks")).unwrap();
    std::fs::create_dir_all(staged.join("up/.git/hooks")).unwrap();
    std::fs::write(staged.join("up/.git/hooks/pre-commit"), hook(&canary)).unwrap();
    let linked = lab.outside.join("linked.tar");
    let tar =
        Command::new("tar").arg("-C").arg(&staged).arg("-cf").arg(&linked).arg("up/.git/hooks/pre-commit").status();
    assert!(tar.unwrap().success());
    let program = format!(
        "mkdir -p vendor && tar -xPf {} -C vendor; echo absolute $?\nln -s .. vendor/up && tar -xf {} -C vendor; echo linked $?",
        absolute.display(),
        linked.display()
    );
    let out = lab.command("0467", &program).output().unwrap();
    let (said, err) = (text(&out.stdout), text(&out.stderr));
    assert!(said.contains("absolute 2") && said.contains("linked 2"), "{said}{err}");
    assert!(!ws.join(".git/hooks").exists(), "{said}{err}");
    let _ = git(&ws, &home, &["-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "two"]);
    assert!(!canary.exists(), "a hook ran: {said}{err}");

    // In a workspace that is not a repository yet.
    let lab = Lab::new();
    let (ws, home) = (lab.ws.clone(), lab.home.clone());
    let canary = lab.outside.join("HOOK_RAN");
    let code = format!(
        r#"
import os, shutil, subprocess
subprocess.run(["git", "init", "-q"], check=True)
print("samples", len([n for n in os.listdir(".git/hooks") if n.endswith(".sample")]) > 0)
def t(name, f):
    try:
        f()
        print(name, "made")
    except OSError as e:
        print(name, "refused", e.errno)
t("hook", lambda: open(".git/hooks/pre-commit", "w").write({hook:?}))
t("sample-renamed", lambda: os.rename(".git/hooks/pre-commit.sample", ".git/hooks/pre-commit"))
os.mkdir("prepared")
open("prepared/pre-commit", "w").write({hook:?})
os.chmod("prepared/pre-commit", 0o755)
shutil.rmtree(".git/hooks")
t("hooks-renamed", lambda: os.rename("prepared", ".git/hooks"))
t("hooks-linked", lambda: os.symlink("../prepared", ".git/hooks"))
subprocess.run(["git", "init", "-q", "--bare", "bare.git"], check=True)
t("bare-hook", lambda: open("bare.git/hooks/post-receive", "w").write({hook:?}))
"#,
        hook = hook(&canary)
    );
    let out = lab.command("0467", &lab::py(&code)).output().unwrap();
    let (said, err) = (text(&out.stdout), text(&out.stderr));
    assert!(said.contains("samples True"), "{said}{err}");
    for name in ["hook", "sample-renamed", "hooks-renamed", "hooks-linked", "bare-hook"] {
        assert!(said.contains(&format!("{name} refused 13")), "{name}: {said}{err}");
    }
    assert!(err.contains("held by the watch (a hook in a repository made during the run)"), "{err}");
    let _ = git(&ws, &home, &["add", "file.txt"]);
    let _ = git(&ws, &home, &["commit", "-q", "-m", "one"]);
    assert!(!canary.exists(), "a hook ran: {said}{err}");
}
