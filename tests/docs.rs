//! The documentation runs: every ```` ```console ```` block of `README.md` and `docs/*.md`
//! is executed here, command by command, and what each command prints must be what the
//! block shows. A change that alters an output fails this test until the page is updated
//! (`THINKER_DOCS_UPDATE=1` rewrites the shown outputs from what the binary printed:
//! review the diff, put back the `...` and `[..]` it replaced).
//!
//! How a page runs. One `bash` session per page, started in a sandbox laid out like a
//! fresh clone on a clean machine: `HOME` is `<sandbox>/home/me`, the clone `~/thinker`
//! (the repository's `examples/`, `config/` and the journal fixtures), the binary cargo
//! built is `~/.cargo/bin/thinker`, and `PATH` holds it and a fixed set of the host's
//! tools (a stand-in `notify-send` among them: a desktop has one), nothing else. The
//! environment is cleared: no key variable, `TZ=UTC`, `NO_COLOR`, no network (an Ollama
//! is looked for on a closed loopback port). `cargo run … -- ARGS` is the built binary
//! with ARGS: the README's first command runs without cargo running inside cargo.
//! Commands are run in order in the same session (`cd` and `export` carry over), each
//! with stdin empty and stderr merged into stdout; every one must exit 0 (to show
//! another exit, a page writes `; echo "exit $?"`).
//!
//! How an output compares. `$ ` starts a command (a line ending in `\` continues it);
//! the lines up to the next `$ ` are its output. The sandbox's path is taken out of what
//! was printed (so `~` prints as `/home/me`), trailing white space and trailing blank
//! lines are ignored, and a duration (`726 ms`, `1.0 s`, with the blanks that align it)
//! matches any duration: wall-clock time is the one thing `--now` cannot pin. A line
//! `...` stands for any number of lines; `[..]` within a line for any text.
//!
//! Only ```` ```console ```` blocks run; ```` ```sh ```` blocks are commands a page shows
//! but cannot run here (`cargo test` itself, installing, a tick against a real model).

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::LazyLock;

use regex::Regex;

/// The host's tools a page may use, linked into the sandbox's `PATH`.
const TOOLS: &[&str] = &[
    "bash", "sh", "cat", "cp", "cut", "date", "echo", "env", "grep", "head", "ls", "mkdir",
    "mktemp", "mv", "printf", "rm", "sed", "sleep", "sort", "tail", "touch", "tr", "true", "false",
    "uniq", "wc", "xargs", "chmod", "basename", "dirname",
];

/// Where the host's tools are looked for.
const HOST_BIN: &[&str] = &["/usr/local/bin", "/usr/bin", "/bin"];

/// One command of a page and the output the page shows for it.
#[derive(Debug)]
struct Step {
    /// The page's line of the `$ ` (1-based).
    line: usize,
    command: String,
    /// The page's lines (0-based, end excluded) that hold the expected output.
    expected_lines: std::ops::Range<usize>,
    expected: Vec<String>,
    /// The block's indentation (a block inside a list item is indented).
    indent: usize,
}

/// The ```` ```console ```` blocks of a page, in order, as steps.
fn steps(page: &str) -> Result<Vec<Step>, String> {
    let lines: Vec<&str> = page.lines().collect();
    let mut steps = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let fence = lines[i].trim_start();
        if fence.trim_end() != "```console" {
            i += 1;
            continue;
        }
        let indent = lines[i].len() - fence.len();
        let open = i;
        i += 1;
        let mut current: Option<Step> = None;
        loop {
            let Some(raw) = lines.get(i) else {
                return Err(format!(
                    "line {}: a ```console block is not closed",
                    open + 1
                ));
            };
            let line = raw.get(indent..).unwrap_or(raw.trim_start());
            if line.trim_end() == "```" {
                break;
            }
            if let Some(command) = line.strip_prefix("$ ").or((line == "$").then_some("")) {
                steps.extend(current.take());
                let mut command = command.to_string();
                let first = i;
                while command.ends_with('\\') {
                    i += 1;
                    let next = lines.get(i).ok_or("a command continues past the block")?;
                    command.push('\n');
                    command.push_str(next.get(indent..).unwrap_or(next.trim_start()));
                }
                current = Some(Step {
                    line: first + 1,
                    command,
                    expected_lines: i + 1..i + 1,
                    expected: Vec::new(),
                    indent,
                });
            } else if let Some(step) = current.as_mut() {
                step.expected.push(line.to_string());
                step.expected_lines.end = i + 1;
            } else {
                return Err(format!(
                    "line {}: a ```console block shows output before any `$ ` command",
                    i + 1
                ));
            }
            i += 1;
        }
        match current.take() {
            Some(step) => steps.push(step),
            None => {
                return Err(format!(
                    "line {}: a ```console block without a `$ ` command",
                    open + 1
                ));
            }
        }
        i += 1;
    }
    Ok(steps)
}

/// A fresh clone on a clean machine, in a temp directory next to cargo's build.
struct Sandbox {
    /// Kept for its drop (the directory is removed).
    _dir: tempfile::TempDir,
    root: PathBuf,
    clone: PathBuf,
    env: Vec<(String, String)>,
}

impl Sandbox {
    fn new() -> Sandbox {
        let dir = tempfile::Builder::new()
            .prefix("docs-")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .unwrap();
        let root = dir.path().canonicalize().unwrap();
        let home = root.join("home/me");
        let clone = home.join("thinker");
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        for part in ["examples", "config", "tests/fixtures/journal"] {
            copy_dir(&repo.join(part), &clone.join(part));
        }
        fs::remove_dir_all(clone.join("examples/demo/state")).ok();
        let cargo_bin = home.join(".cargo/bin");
        fs::create_dir_all(&cargo_bin).unwrap();
        let exe = Path::new(env!("CARGO_BIN_EXE_thinker"));
        if fs::hard_link(exe, cargo_bin.join("thinker")).is_err() {
            fs::copy(exe, cargo_bin.join("thinker")).unwrap();
        }
        let tools = root.join("usr/bin");
        fs::create_dir_all(&tools).unwrap();
        for tool in TOOLS {
            if let Some(host) = HOST_BIN
                .iter()
                .map(|d| Path::new(d).join(tool))
                .find(|p| p.exists())
            {
                std::os::unix::fs::symlink(host, tools.join(tool)).unwrap();
            }
        }
        let stand_in = tools.join("notify-send");
        fs::write(
            &stand_in,
            "#!/bin/sh\n# the docs test's stand-in for a desktop's notify-send\nexit 0\n",
        )
        .unwrap();
        let mode = std::os::unix::fs::PermissionsExt::from_mode(0o755);
        fs::set_permissions(&stand_in, mode).unwrap();
        fs::create_dir_all(root.join("tmp")).unwrap();
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let ollama = format!("http://{}", closed.local_addr().unwrap());
        drop(closed);
        let env = [
            ("HOME", home.display().to_string()),
            (
                "PATH",
                format!("{}:{}", cargo_bin.display(), tools.display()),
            ),
            ("USER", "me".into()),
            ("LOGNAME", "me".into()),
            ("TZ", "UTC".into()),
            ("LANG", "C.UTF-8".into()),
            ("NO_COLOR", "1".into()),
            ("TMPDIR", root.join("tmp").display().to_string()),
            ("THINKER_OLLAMA_URL", ollama),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        Sandbox {
            _dir: dir,
            root,
            clone,
            env,
        }
    }

    /// Runs the steps in one bash session; each step's output and exit status.
    fn run(&self, steps: &[Step]) -> Vec<(String, Option<i32>)> {
        let mut script = String::from(
            "cargo() {\n\
             \x20 if [ \"$1\" = run ]; then\n\
             \x20   while [ \"$#\" -gt 0 ] && [ \"$1\" != -- ]; do shift; done\n\
             \x20   shift; thinker \"$@\"\n\
             \x20 else\n\
             \x20   echo 'the docs test runs `cargo run … -- ARGS` only (as the built thinker)' >&2; return 127\n\
             \x20 fi\n\
             }\n",
        );
        writeln!(script, "cd '{}' || exit 99", self.clone.display()).unwrap();
        for (n, step) in steps.iter().enumerate() {
            writeln!(script, "printf '\\036{n}\\n'").unwrap();
            writeln!(script, "{{ {}\n}} </dev/null 2>&1", step.command).unwrap();
            writeln!(script, "printf '\\n\\037%s\\n' \"$?\"").unwrap();
        }
        let script_path = self.root.join("page.sh");
        fs::write(&script_path, script).unwrap();
        let out_path = self.root.join("page.out");
        let out = fs::File::create(&out_path).unwrap();
        let status = Command::new("/bin/bash")
            .arg("--noprofile")
            .arg("--norc")
            .arg(&script_path)
            .current_dir(&self.clone)
            .env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .status()
            .unwrap();
        let printed = String::from_utf8_lossy(&fs::read(&out_path).unwrap()).into_owned();
        let mut results = vec![(String::new(), None); steps.len()];
        for record in printed.split('\x1e').skip(1) {
            let (index, rest) = record.split_once('\n').unwrap_or((record, ""));
            let Ok(index) = index.parse::<usize>() else {
                continue;
            };
            let (text, code) = match rest.rsplit_once("\n\x1f") {
                Some((text, code)) => (text, code.trim().parse().ok()),
                None => (rest, None),
            };
            if let Some(slot) = results.get_mut(index) {
                *slot = (text.to_string(), code);
            }
        }
        assert!(
            results.iter().any(|(_, code)| code.is_some()) || steps.is_empty(),
            "the page's session did not run (bash exited {status}): {printed}"
        );
        results
    }

    /// What a person would see: the sandbox's path taken out, trailing blanks cut.
    fn seen(&self, printed: &str) -> Vec<String> {
        let text = printed.replace(&self.root.display().to_string(), "");
        let mut lines: Vec<String> = text.lines().map(|l| l.trim_end().to_string()).collect();
        while lines.last().is_some_and(String::is_empty) {
            lines.pop();
        }
        lines
    }
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A duration as the commands print one, with the blanks that align it.
static DURATION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r" *\b\d+(?:\.\d+)? (?:ms|s)\b").unwrap());

fn durations_out(line: &str) -> String {
    DURATION.replace_all(line, " <duration>").into_owned()
}

/// Whether one shown line matches one printed line (`[..]`: any text).
fn line_matches(expected: &str, actual: &str) -> bool {
    let (expected, actual) = (durations_out(expected.trim_end()), durations_out(actual));
    let mut parts = expected.split("[..]");
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = actual.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    for (n, part) in parts.iter().enumerate() {
        if n + 1 == parts.len() {
            return rest.ends_with(part);
        }
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.is_empty()
}

/// Whether the shown lines match the printed ones (`...`: any number of lines).
fn lines_match(expected: &[String], actual: &[String]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((first, rest)) if first.trim() == "..." => {
            (0..=actual.len()).any(|skip| lines_match(rest, &actual[skip..]))
        }
        Some((first, rest)) => actual
            .split_first()
            .is_some_and(|(a, more)| line_matches(first, a) && lines_match(rest, more)),
    }
}

/// Runs every ```console block of `page` (a path from the repository's root); panics
/// with each command whose output differs from the page's.
fn check_page(page: &str) {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = repo.join(page);
    let text = fs::read_to_string(&path).unwrap();
    let steps = steps(&text).unwrap_or_else(|e| panic!("{page}: {e}"));
    if steps.is_empty() {
        return;
    }
    let sandbox = Sandbox::new();
    let results = sandbox.run(&steps);
    let mut report = String::new();
    let mut updates: Vec<(&Step, Vec<String>)> = Vec::new();
    for (step, (printed, code)) in steps.iter().zip(&results) {
        let actual = sandbox.seen(printed);
        let mut expected = step.expected.clone();
        while expected.last().is_some_and(|l| l.trim().is_empty()) {
            expected.pop();
        }
        if *code == Some(0) && lines_match(&expected, &actual) {
            continue;
        }
        let status = match code {
            Some(0) => String::new(),
            Some(n) => {
                format!(" (it exited {n}: a page shows another exit with `; echo \"exit $?\"`)")
            }
            None => " (it did not finish)".into(),
        };
        writeln!(
            report,
            "\n{page}:{}: `{}` printed{status}:\n{}\n--- the page shows:\n{}\n",
            step.line,
            step.command,
            actual.join("\n"),
            expected.join("\n")
        )
        .unwrap();
        updates.push((step, actual));
    }
    if report.is_empty() {
        return;
    }
    if std::env::var_os("THINKER_DOCS_UPDATE").is_some() {
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        for (step, actual) in updates.into_iter().rev() {
            let pad = " ".repeat(step.indent);
            let shown = actual
                .into_iter()
                .map(|l| if l.is_empty() { l } else { format!("{pad}{l}") });
            lines.splice(step.expected_lines.clone(), shown);
        }
        let mut new = lines.join("\n");
        new.push('\n');
        fs::write(&path, new).unwrap();
        eprintln!("{page}: rewrote the outputs that differed (THINKER_DOCS_UPDATE):{report}");
        return;
    }
    panic!(
        "{page}: what the binary prints is not what the page shows \
         (THINKER_DOCS_UPDATE=1 rewrites the outputs; then review the diff):{report}"
    );
}

#[test]
fn the_readme_runs_as_shown() {
    check_page("README.md");
}

#[test]
fn the_guide_runs_as_shown() {
    check_page("docs/guide.md");
}

/// Every other page's ```console blocks run too, each page in a sandbox of its own.
#[test]
fn the_other_pages_run_as_shown() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pages: Vec<String> = fs::read_dir(repo.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .map(|path| path.file_name().unwrap().to_string_lossy().into_owned())
        .filter(|name| name != "guide.md")
        .map(|name| format!("docs/{name}"))
        .collect();
    pages.sort();
    for page in pages {
        check_page(&page);
    }
}

/// The README's test command is the one `.ci/run` runs.
#[test]
fn the_readmes_test_command_is_what_ci_runs() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = fs::read_to_string(repo.join("README.md")).unwrap();
    let ci = fs::read_to_string(repo.join(".ci/run")).unwrap();
    let command = "cargo test --locked";
    assert!(
        readme.contains(&format!("```sh\n{command}\n```")),
        "README shows the test command `{command}` in a block of its own"
    );
    assert!(
        ci.lines().any(|l| l.trim() == command),
        ".ci/run runs `{command}` as a line of its own"
    );
}

/// The front door stays a front door and the codemap a map.
#[test]
fn the_readme_and_the_codemap_stay_short() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (file, most) in [("README.md", 150), ("ARCHITECTURE.md", 300)] {
        let lines = fs::read_to_string(repo.join(file)).unwrap().lines().count();
        assert!(
            lines <= most,
            "{file} has {lines} lines: at most {most} (move detail to docs/)"
        );
    }
}

/// Every relative link of the README, ARCHITECTURE.md and docs/ names a file that exists.
#[test]
fn relative_links_lead_somewhere() {
    static LINK: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\]\(([^)\s]+)\)").unwrap());
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pages = vec![
        repo.join("README.md"),
        repo.join("ARCHITECTURE.md"),
        repo.join("BENCHMARKS.md"),
    ];
    let mut dirs = vec![repo.join("docs")];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                pages.push(path);
            }
        }
    }
    let mut broken = Vec::new();
    for page in pages {
        let text = fs::read_to_string(&page).unwrap();
        for link in LINK.captures_iter(&text) {
            let target = &link[1];
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
            let path = if file.is_empty() {
                page.clone()
            } else {
                page.parent().unwrap().join(file)
            };
            let leads = if !path.exists() {
                false
            } else if anchor.is_empty() {
                true
            } else {
                fs::read_to_string(&path).is_ok_and(|t| anchors(&t).contains(&anchor.to_string()))
            };
            if !leads {
                broken.push(format!(
                    "{}: {target}",
                    page.strip_prefix(repo).unwrap().display()
                ));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "links to nothing (a file or a heading that is not there):\n{}",
        broken.join("\n")
    );
}

/// The anchors GitHub gives a page's headings: lowercase, punctuation but `-` and `_`
/// dropped, blanks made `-`, repeats numbered (headings in code blocks are not headings).
fn anchors(page: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut bases: Vec<String> = Vec::new();
    let mut fenced = false;
    for line in page.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        let Some(heading) = line.strip_prefix('#').filter(|_| !fenced) else {
            continue;
        };
        let title = heading.trim_start_matches('#').trim();
        let slug: String = title
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let repeats = bases.iter().filter(|b| **b == slug).count();
        found.push(if repeats == 0 {
            slug.clone()
        } else {
            format!("{slug}-{repeats}")
        });
        bases.push(slug);
    }
    found
}

#[test]
fn the_matcher_reads_elisions_wildcards_and_durations() {
    let lines = |text: &str| text.lines().map(str::to_string).collect::<Vec<_>>();
    assert!(lines_match(&lines("a\n...\nz"), &lines("a\nb\nc\nz")));
    assert!(lines_match(&lines("a\n...\nz"), &lines("a\nz")));
    assert!(!lines_match(&lines("a\n...\nz"), &lines("a\nb")));
    assert!(lines_match(
        &lines("took [..] in all"),
        &lines("took whatever in all")
    ));
    assert!(!lines_match(
        &lines("took [..] in all"),
        &lines("took whatever")
    ));
    assert!(lines_match(
        &lines("1   289 ms  ok"),
        &lines("1    12 ms  ok")
    ));
    assert!(lines_match(
        &lines("watcher  0.7 s  0+0"),
        &lines("watcher  12 ms  0+0")
    ));
    assert!(!lines_match(
        &lines("added 10 min ago"),
        &lines("added 5 min ago")
    ));
    assert!(!lines_match(&lines("a"), &lines("a\nb")));
    let page = "x\n```console\n$ echo a \\\n  b\na b\n$ true\n```\n";
    let found = steps(page).unwrap();
    assert_eq!(found.len(), 2);
    assert_eq!(found[0].command, "echo a \\\n  b");
    assert_eq!(found[0].expected, ["a b"]);
    assert_eq!(found[0].expected_lines, 4..5);
    assert!(found[1].expected.is_empty());
    assert!(steps("```console\nno command\n```\n").is_err());
}
