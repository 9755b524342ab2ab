//! sandbox-bash's own options (the `--sandbox-*` arguments before bash's) and the tools they
//! start that are not a run: `--sandbox-connect`.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use crate::environ::Environ;
use crate::error::Error;
use crate::mode::MODE_VAR;
use crate::outcome::Outcome;
#[cfg(target_os = "linux")]
use crate::outside::proxy;

/// What sandbox-bash's own options (the `--sandbox-*` arguments before bash's) ask for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Action {
    /// Analyse, lock and run bash: no option given.
    #[default]
    Run,
    /// Print the verdict and its reasons, run nothing.
    Explain {
        json: bool,
    },
    /// Print what is enforced here and now, run nothing.
    Info {
        json: bool,
    },
    Help,
    Version,
    /// `--sandbox-connect HOST PORT`: a tunnel through the network proxy on stdin and stdout.
    Connect,
    /// `--sandbox-approvals [--json | --web [ADDR:PORT]]`: answer requests for more access.
    Approvals,
}

/// The `--sandbox-*` option parser; it is also the source of the manual's option list.
pub fn sandbox_command() -> clap::Command {
    use clap::{Arg, ArgAction, Command};
    Command::new("sandbox-bash")
        .no_binary_name(true)
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(
            Arg::new("sandbox-explain")
                .long("sandbox-explain")
                .action(ArgAction::SetTrue)
                .help("Analyse what the rest of the arguments would run, print the verdict and reasons, run nothing"),
        )
        .arg(
            Arg::new("sandbox-info")
                .long("sandbox-info")
                .action(ArgAction::SetTrue)
                .help("Print what is enforced here and now (backend, workspace, mode, rules), run nothing"),
        )
        .arg(
            Arg::new("sandbox-json")
                .long("sandbox-json")
                .action(ArgAction::SetTrue)
                .requires("report")
                .help("With --sandbox-explain or --sandbox-info: print one JSON object instead of text"),
        )
        .arg(
            Arg::new("sandbox-connect")
                .long("sandbox-connect")
                .num_args(2)
                .value_names(["HOST", "PORT"])
                .value_parser(clap::value_parser!(OsString))
                .help(
                    "Join stdin and stdout to HOST:PORT through the network proxy (an ssh ProxyCommand: \
                     sandbox-bash --sandbox-connect %h %p)",
                ),
        )
        .arg(Arg::new("sandbox-approvals").long("sandbox-approvals").action(ArgAction::SetTrue).help(
            "Answer requests for more access from this user's commands, in this terminal (--json: one JSON \
                     object a line, for tools; --web [ADDR:PORT]: on a page on loopback); run it in another terminal",
        ))
        .arg(
            Arg::new("sandbox-help")
                .long("sandbox-help")
                .action(ArgAction::SetTrue)
                .help("Print sandbox-bash's own options"),
        )
        .arg(
            Arg::new("sandbox-version")
                .long("sandbox-version")
                .action(ArgAction::SetTrue)
                .help("Print sandbox-bash's version"),
        )
        // One thing to do: explain, info, help or version.
        .group(clap::ArgGroup::new("report").args(["sandbox-explain", "sandbox-info"]))
        .group(clap::ArgGroup::new("action").args([
            "sandbox-explain",
            "sandbox-info",
            "sandbox-help",
            "sandbox-version",
            "sandbox-connect",
            "sandbox-approvals",
        ]))
}

/// Splits the leading `--sandbox-*` arguments from bash's arguments.
pub fn split_sandbox_args(args: &[OsString]) -> Result<(Action, Vec<OsString>), Error> {
    let mut count = args.iter().take_while(|a| a.as_bytes().starts_with(b"--sandbox-")).count();
    // The one option with values of its own: what follows it is its host and port, not bash's.
    if count > 0 && args[count - 1] == "--sandbox-connect" {
        count = (count + 2).min(args.len());
    }
    // `--sandbox-approvals` takes what follows as its own options.
    if let Some(at) = args[..count].iter().position(|a| a == "--sandbox-approvals") {
        if at > 0 {
            return Err(Error::Options(
                "--sandbox-approvals goes alone, before its own options (see --sandbox-help)".into(),
            ));
        }
        return Ok((Action::Approvals, args[1..].to_vec()));
    }
    let (ours, bash) = args.split_at(count);
    if ours.is_empty() {
        return Ok((Action::Run, bash.to_vec()));
    }
    let matches = sandbox_command().try_get_matches_from(ours).map_err(|e| {
        // clap's message up to its usage part, on one line.
        let text = e.to_string();
        let lines: Vec<&str> = text.lines().map(str::trim).take_while(|l| !l.is_empty()).collect();
        let message = lines.join(" ");
        let message = message.trim_start_matches("error: ");
        Error::Options(format!("{} (see --sandbox-help)", if message.is_empty() { "invalid option" } else { message }))
    })?;
    let json = matches.get_flag("sandbox-json");
    if let Some(target) = matches.get_many::<OsString>("sandbox-connect") {
        let mut rest: Vec<OsString> = target.cloned().collect();
        rest.extend(bash.iter().cloned());
        return Ok((Action::Connect, rest));
    }
    let action = if matches.get_flag("sandbox-help") {
        Action::Help
    } else if matches.get_flag("sandbox-version") {
        Action::Version
    } else if matches.get_flag("sandbox-info") {
        Action::Info { json }
    } else if matches.get_flag("sandbox-explain") {
        Action::Explain { json }
    } else {
        Action::Run
    };
    Ok((action, bash.to_vec()))
}

/// `--sandbox-connect HOST PORT`.
pub(crate) fn connect(args: &[OsString], env: &Environ) -> Result<Outcome, Error> {
    let [host, port] = args else {
        return Err(Error::Options("--sandbox-connect takes a host and a port, and nothing after them".into()));
    };
    #[cfg(target_os = "linux")]
    {
        let status =
            proxy::connect::run(&host.to_string_lossy(), &port.to_string_lossy(), env).map_err(Error::Refused)?;
        Ok(Outcome::Exit(status))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (host, port, env);
        Err(Error::Refused("--sandbox-connect needs the network proxy, which this platform does not have".into()))
    }
}

/// What an invocation that is no run comes to: help, the version, or `--sandbox-connect`
/// (none: it is a run, an explanation or `--sandbox-info`).
pub(crate) fn immediate(action: Action, args: &[OsString], env: &Environ) -> Option<Result<Outcome, Error>> {
    let version = env!("CARGO_PKG_VERSION");
    match action {
        Action::Help => Some(Ok(Outcome::Print(format!(
            "sandbox-bash {version}: a drop-in bash that checks every program against {MODE_VAR}.\n\
             Usage: sandbox-bash [--sandbox-OPTION…] [bash arguments…]\n\n{}\n",
            sandbox_command().render_help()
        )))),
        Action::Version => Some(Ok(Outcome::Print(format!("sandbox-bash {version}\n")))),
        Action::Connect => Some(connect(args, env)),
        Action::Approvals => Some(approvals(args, env)),
        _ => None,
    }
}

/// `--sandbox-approvals [--json | --web [ADDR:PORT]]`.
pub(crate) fn approvals(args: &[OsString], env: &Environ) -> Result<Outcome, Error> {
    let mut json = false;
    let mut web: Option<Option<String>> = None;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].to_string_lossy();
        match a.as_ref() {
            "--json" | "--sandbox-json" => json = true,
            "--web" => {
                let addr = args.get(i + 1).map(|v| v.to_string_lossy().into_owned()).filter(|v| !v.starts_with("--"));
                i += usize::from(addr.is_some());
                web = Some(addr);
            }
            other => {
                return Err(Error::Options(format!(
                    "--sandbox-approvals takes --json or --web [ADDR:PORT], not {other:?}"
                )));
            }
        }
        i += 1;
    }
    if json && web.is_some() {
        return Err(Error::Options("--sandbox-approvals takes --json or --web, not both".into()));
    }
    #[cfg(target_os = "linux")]
    {
        let home = env.get("HOME").map(|h| h.to_string_lossy().into_owned());
        let Some(dir) = crate::approval::dir(env, home.as_deref()) else {
            return Err(Error::Refused("no state directory: set HOME or XDG_STATE_HOME".into()));
        };
        let status = crate::approval::listen::run(&dir, json, web).map_err(Error::Refused)?;
        Ok(Outcome::Exit(status))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (env, json, web);
        Err(Error::Refused("--sandbox-approvals is not available on this platform yet".into()))
    }
}
