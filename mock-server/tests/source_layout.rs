//! The team's layout rules, checked on every `cargo test`: no import cycle between the source
//! files of either crate (edges into the crate root counted), the mock's ground floor
//! (`journal`, `http`) naming none of its surfaces, no source file over 800 lines (test files
//! apart), and every `tests/*.rs` file a module of its crate's test binary.
//!
//! Every `.rs` file under a crate's `src/` is one node, named by its module path (`lib.rs` is
//! the root, `a/b.rs` and `a/b/mod.rs` are `a::b`). An edge A -> B means file A names an item of
//! file B: a `use` (also `pub use` re-exports and grouped `use x::{y, z}`) or an inline path
//! (`crate::x::y`, `super::y`, `self::y`, or a path through a child module the file declares).
//! A path is resolved to the deepest module file it reaches, so `crate::computer::Tasks` (a
//! re-export in `computer.rs`) is an edge to `computer.rs`. Inline modules (`mod tests { ... }`)
//! belong to their file; their `super::` is resolved from the inline module. Comments and
//! string and character literals are ignored; `main.rs` beside a `lib.rs` is another crate and
//! is left out of the graph (its length still counts). Every strongly connected component
//! with more than one file is a cycle.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The longest a source file may be, in lines.
const MAX_LINES: usize = 800;

/// The mock's ground floor: the modules every surface stands on.
const GROUND_FLOOR: &[&str] = &["journal", "http"];

/// The mock's surfaces, each answering its own part of the URL space above the ground floor.
const SURFACES: &[&str] = &["computer", "agent", "oauth", "control"];

/// A module path: `[]` is the crate root, `["agent", "routes"]` is `agent/routes.rs`.
type Module = Vec<String>;

/// The two crates' `src` directories.
fn crate_sources() -> Vec<PathBuf> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    vec![manifest.join("src"), manifest.join("../conformance/src")]
}

/// Every `.rs` file under `dir`, recursively, in a stable order.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let entries = fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
            .map(|entry| entry.map(|e| e.path()))
            .collect::<Result<Vec<_>, _>>()
            .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
        for path in entries {
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The module path of `path` relative to the crate's `src`.
fn module_of(src: &Path, path: &Path) -> Module {
    let relative = path.strip_prefix(src).unwrap_or(path).with_extension("");
    let mut module: Module = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if module.last().is_some_and(|last| last == "mod") {
        module.pop();
    }
    if module == ["lib"] || module == ["main"] {
        module.clear();
    }
    module
}

/// The crate's files by module path; `main.rs` beside `lib.rs` is another crate and left out.
fn modules(src: &Path) -> BTreeMap<Module, PathBuf> {
    let has_lib = src.join("lib.rs").exists();
    rust_files(src)
        .into_iter()
        .filter(|path| !(has_lib && path == &src.join("main.rs")))
        .map(|path| (module_of(src, &path), path))
        .collect()
}

/// A file's name as the rules say it: `lib.rs` for the root, `a/b.rs` for `a::b`.
fn file_name(module: &[String]) -> String {
    if module.is_empty() {
        "lib.rs".to_owned()
    } else {
        format!("{}.rs", module.join("/"))
    }
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The source with comments removed and every string literal as `""` and every character
/// literal as `' '`, so nothing inside them reads as a path or a brace.
fn strip(src: &str) -> String {
    let s: Vec<char> = src.chars().collect();
    let n = s.len();
    let at = |i: usize, pattern: &str| {
        pattern
            .chars()
            .enumerate()
            .all(|(k, p)| s.get(i + k) == Some(&p))
    };
    let word_before = |i: usize| i > 0 && is_word(s[i - 1]);
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < n {
        let c = s[i];
        if at(i, "//") {
            while i < n && s[i] != '\n' {
                i += 1;
            }
        } else if at(i, "/*") {
            let mut depth = 1;
            i += 2;
            while i < n && depth > 0 {
                if at(i, "/*") {
                    depth += 1;
                    i += 2;
                } else if at(i, "*/") {
                    depth -= 1;
                    i += 2;
                } else {
                    i += 1;
                }
            }
        } else if let Some(end) = raw_string_end(&s, i, word_before(i) && !raw_byte_prefix(&s, i)) {
            out.push_str("\"\"");
            i = end;
        } else if c == '"' {
            let mut j = i + 1;
            while j < n && s[j] != '"' {
                j += if s[j] == '\\' { 2 } else { 1 };
            }
            out.push_str("\"\"");
            i = j + 1;
        } else if c == '\'' {
            match char_literal_len(&s[i..]) {
                Some(len) => {
                    out.push_str("' '");
                    i += len;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// True when the `r` at `i` is the second letter of a raw byte string (`br"…"`).
fn raw_byte_prefix(s: &[char], i: usize) -> bool {
    i >= 1 && s[i - 1] == 'b' && (i < 2 || !is_word(s[i - 2]))
}

/// Where the raw string starting at `i` (`r"…"`, `r#"…"#`) ends, if one starts there.
fn raw_string_end(s: &[char], i: usize, inside_word: bool) -> Option<usize> {
    if s[i] != 'r' || inside_word {
        return None;
    }
    let mut j = i + 1;
    while s.get(j) == Some(&'#') {
        j += 1;
    }
    if s.get(j) != Some(&'"') {
        return None;
    }
    let hashes = j - i - 1;
    let mut k = j + 1;
    while k < s.len() {
        if s[k] == '"' && (1..=hashes).all(|h| s.get(k + h) == Some(&'#')) {
            return Some(k + 1 + hashes);
        }
        k += 1;
    }
    Some(s.len())
}

/// The length of the character literal at the start of `s` (`'a'`, `'\n'`, `'\u{1F600}'`), or
/// `None` when the quote opens a lifetime or a label.
fn char_literal_len(s: &[char]) -> Option<usize> {
    match s.get(1)? {
        '\\' if s.get(2) == Some(&'u') && s.get(3) == Some(&'{') => {
            let close = s.iter().skip(4).position(|&c| c == '}')? + 4;
            let hex = &s[4..close];
            (!hex.is_empty()
                && hex.iter().all(char::is_ascii_hexdigit)
                && s.get(close + 1) == Some(&'\''))
            .then_some(close + 2)
        }
        '\\' => (s.get(2).is_some() && s.get(3) == Some(&'\'')).then_some(4),
        '\'' => None,
        _ => (s.get(2) == Some(&'\'')).then_some(3),
    }
}

/// `a::{b, c::{d, e}}` -> `[a::b, a::c::d, a::c::e]`, each without its `as` alias.
fn expand_use(text: &str) -> Vec<String> {
    fn go(prefix: &str, s: &str, out: &mut Vec<String>) {
        let mut depth = 0;
        let mut start = 0;
        let mut parts = Vec::new();
        for (k, ch) in s.char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    parts.push(&s[start..k]);
                    start = k + 1;
                }
                _ => {}
            }
        }
        parts.push(&s[start..]);
        for part in parts.into_iter().filter(|p| !p.is_empty()) {
            match part.split_once('{') {
                Some((head, rest)) => {
                    let inner = rest.strip_suffix('}').unwrap_or(rest);
                    go(&format!("{prefix}{head}"), inner, out);
                }
                None => out.push(format!("{prefix}{part}")),
            }
        }
    }
    // `x as y` loses its alias before whitespace goes, so `as` never joins the path.
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut compact = String::new();
    let mut k = 0;
    while k < words.len() {
        if words[k] == "as" && k + 1 < words.len() {
            let alias = words[k + 1];
            // The alias may carry the separator that follows it (`y,` or `y}`).
            compact.extend(alias.chars().filter(|c| !is_word(*c)));
            k += 2;
        } else {
            compact.push_str(words[k]);
            k += 1;
        }
    }
    let mut out = Vec::new();
    go("", &compact, &mut out);
    out
}

/// What the scanner found at one point of a stripped file.
enum Token {
    /// `mod name;`
    ModDeclared(String),
    /// `mod name {`
    ModInline(String),
    /// The paths of one `use …;`.
    Use(String),
    /// `{`
    Open,
    /// `}`
    Close,
    /// An inline path such as `crate::a::b` or `super::x`.
    Path(String),
}

/// The tokens of a stripped file, in order: module declarations, `use` items, braces, and
/// inline paths that start with a lowercase identifier not preceded by a word character or
/// `:` (so `Type::method` and the tail of `a::b` are not paths of their own).
fn tokens(src: &str) -> Vec<Token> {
    let s: Vec<char> = src.chars().collect();
    let n = s.len();
    let mut found = Vec::new();
    let mut i = 0;
    let word_end = |mut j: usize| {
        while j < n && is_word(s[j]) {
            j += 1;
        }
        j
    };
    let space_end = |mut j: usize| {
        while j < n && s[j].is_whitespace() {
            j += 1;
        }
        j
    };
    while i < n {
        let c = s[i];
        if c == '{' {
            found.push(Token::Open);
            i += 1;
            continue;
        }
        if c == '}' {
            found.push(Token::Close);
            i += 1;
            continue;
        }
        if !is_word(c) || (i > 0 && is_word(s[i - 1])) {
            i += 1;
            continue;
        }
        let end = word_end(i);
        let word: String = s[i..end].iter().collect();
        let after_colon = i > 0 && s[i - 1] == ':';
        if word == "mod" && end < n && s[end].is_whitespace() {
            let name_start = space_end(end);
            let name_end = word_end(name_start);
            let next = space_end(name_end);
            if name_end > name_start && next < n && (s[next] == ';' || s[next] == '{') {
                let name: String = s[name_start..name_end].iter().collect();
                found.push(if s[next] == ';' {
                    Token::ModDeclared(name)
                } else {
                    Token::ModInline(name)
                });
                i = next + 1;
                continue;
            }
        }
        if word == "use" && end < n && s[end].is_whitespace() {
            let body_start = space_end(end);
            if let Some(semi) = s[body_start..].iter().position(|&c| c == ';')
                && semi > 0
            {
                found.push(Token::Use(
                    s[body_start..body_start + semi].iter().collect(),
                ));
                i = body_start + semi + 1;
                continue;
            }
        }
        let lowercase_start = word
            .chars()
            .next()
            .is_some_and(|f| f.is_ascii_lowercase() || f == '_')
            && word
                .chars()
                .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '_');
        if lowercase_start && !after_colon {
            let mut j = end;
            while j + 2 < n && s[j] == ':' && s[j + 1] == ':' && is_word(s[j + 2]) {
                j = word_end(j + 2);
            }
            if j > end {
                found.push(Token::Path(s[i..j].iter().collect()));
                i = j;
                continue;
            }
        }
        i = end;
    }
    found
}

/// The file-to-file edges of a crate: for each file, the files whose items it names.
fn edges(files: &BTreeMap<Module, PathBuf>) -> BTreeMap<Module, BTreeSet<Module>> {
    let mut edges: BTreeMap<Module, BTreeSet<Module>> =
        files.keys().map(|m| (m.clone(), BTreeSet::new())).collect();
    for (module, path) in files {
        let src = strip(&read(path));
        // Inline modules: (module path, brace depth at their opening).
        let mut stack: Vec<(Module, i64)> = vec![(module.clone(), -1)];
        let mut depth: i64 = 0;
        let mut declared: BTreeMap<Module, BTreeSet<String>> = BTreeMap::new();
        for token in tokens(&src) {
            let current = stack.last().map(|(m, _)| m.clone()).unwrap_or_default();
            let paths = match token {
                Token::ModInline(name) => {
                    let mut inner = current;
                    inner.push(name);
                    stack.push((inner, depth));
                    depth += 1;
                    continue;
                }
                Token::ModDeclared(name) => {
                    declared.entry(current).or_default().insert(name);
                    continue;
                }
                Token::Open => {
                    depth += 1;
                    continue;
                }
                Token::Close => {
                    depth -= 1;
                    if stack.len() > 1 && stack.last().is_some_and(|(_, d)| *d == depth) {
                        stack.pop();
                    }
                    continue;
                }
                Token::Use(text) => expand_use(&text),
                Token::Path(path) => vec![path],
            };
            for path in paths {
                if let Some(target) = resolve(&path, &current, &declared, files)
                    && &target != module
                {
                    edges.entry(module.clone()).or_default().insert(target);
                }
            }
        }
    }
    edges
}

/// The file a path written in module `current` names, or `None` for an external crate, a local
/// item or a type.
fn resolve(
    path: &str,
    current: &Module,
    declared: &BTreeMap<Module, BTreeSet<String>>,
    files: &BTreeMap<Module, PathBuf>,
) -> Option<Module> {
    let mut segments: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    let first = *segments.first()?;
    let base: Module = if first == "crate" {
        segments.remove(0);
        Vec::new()
    } else if first == "super" || first == "self" {
        let mut base = current.clone();
        while let Some(&seg) = segments.first() {
            match seg {
                "super" => {
                    base.pop();
                }
                "self" => {}
                _ => break,
            }
            segments.remove(0);
        }
        base
    } else {
        let child = [current.as_slice(), &[first.to_owned()]].concat();
        let declares = declared.get(current).is_some_and(|d| d.contains(first));
        if !(declares || files.contains_key(&child)) {
            return None;
        }
        current.clone()
    };
    let mut target = base.clone();
    for seg in segments {
        let from_base = [base.as_slice(), &[seg.to_owned()]].concat();
        let from_target = [target.as_slice(), &[seg.to_owned()]].concat();
        if files.contains_key(&from_base) || files.contains_key(&from_target) {
            target.push(seg.to_owned());
        } else {
            break;
        }
    }
    // Inline modules (and paths past a file) map to their file.
    while !files.contains_key(&target) && !target.is_empty() {
        target.pop();
    }
    Some(target)
}

/// Strongly connected components with more than one file (Tarjan).
fn cycles(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    struct Tarjan<'a> {
        edges: &'a BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<&'a Module, usize>,
        low: BTreeMap<&'a Module, usize>,
        on_stack: BTreeSet<&'a Module>,
        stack: Vec<&'a Module>,
        found: Vec<Vec<Module>>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, v: &'a Module) {
            let next = self.index.len();
            self.index.insert(v, next);
            self.low.insert(v, next);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.edges.get(v).into_iter().flatten() {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    component.push(w.clone());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.found.push(component);
                }
            }
        }
    }
    let mut tarjan = Tarjan {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        on_stack: BTreeSet::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for v in edges.keys() {
        if !tarjan.index.contains_key(v) {
            tarjan.visit(v);
        }
    }
    tarjan.found
}

/// Each cycle of a crate, as the files in it and the edges between them.
fn describe_cycles(src: &Path) -> Vec<String> {
    let files = modules(src);
    let edges = edges(&files);
    cycles(&edges)
        .into_iter()
        .map(|component| {
            let members: BTreeSet<&Module> = component.iter().collect();
            let mut text = format!(
                "CYCLE among: {}\n",
                component
                    .iter()
                    .map(|m| file_name(m))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            for a in &component {
                for b in edges[a].iter().filter(|b| members.contains(b)) {
                    text.push_str(&format!("    {} -> {}\n", file_name(a), file_name(b)));
                }
            }
            text
        })
        .collect()
}

/// Each edge from a ground-floor file to a surface, as `from -> to`.
fn ground_floor_edges_into_surfaces(src: &Path) -> Vec<String> {
    let in_one = |module: &Module, modules: &[&str]| {
        module
            .first()
            .is_some_and(|top| modules.contains(&top.as_str()))
    };
    let files = modules(src);
    let mut found = Vec::new();
    for (from, targets) in edges(&files) {
        if !in_one(&from, GROUND_FLOOR) {
            continue;
        }
        for to in targets.iter().filter(|to| in_one(to, SURFACES)) {
            found.push(format!("{} -> {}", file_name(&from), file_name(to)));
        }
    }
    found
}

/// True for files that hold only tests (`tests.rs`, or anything under a `tests/` folder).
fn is_test_file(src: &Path, path: &Path) -> bool {
    module_of(src, path)
        .iter()
        .any(|segment| segment == "tests")
}

#[test]
fn no_import_cycle_between_source_files_in_either_crate() {
    let mut report = Vec::new();
    for src in crate_sources() {
        for cycle in describe_cycles(&src) {
            report.push(format!("{}:\n{cycle}", src.display()));
        }
    }
    assert!(
        report.is_empty(),
        "source files import each other in a cycle; make the edges point one way \
         (move what both sides need into a file of its own):\n{}",
        report.join("\n")
    );
}

#[test]
fn the_ground_floor_names_no_surface() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found = ground_floor_edges_into_surfaces(&src);
    assert!(
        found.is_empty(),
        "{} must not name {} (pass what they need in, e.g. a trait the surface implements or \
         a value the app configures):\n{}",
        GROUND_FLOOR.join(", "),
        SURFACES.join(", "),
        found.join("\n")
    );
}

/// The ground-floor check must see a grouped `use` and an inline path into a surface, or a
/// passing run proves nothing.
#[test]
fn the_ground_floor_check_sees_a_use_and_an_inline_path_into_a_surface() {
    let dir = std::env::temp_dir().join(format!("ground-floor-{}", std::process::id()));
    let src = dir.join("src");
    for sub in ["http", "journal", "oauth"] {
        fs::create_dir_all(src.join(sub)).expect("a temp dir");
    }
    let write = |name: &str, text: &str| fs::write(src.join(name), text).expect("a temp file");
    write(
        "lib.rs",
        "mod agent;\nmod http;\nmod journal;\nmod oauth;\nmod world;\n",
    );
    write("agent.rs", "pub fn is_agent_path() {}\n");
    write("oauth.rs", "pub mod store;\n");
    write("oauth/store.rs", "pub struct Store;\n");
    write("world.rs", "pub struct World;\n");
    write("http.rs", "pub mod auth;\n");
    write(
        "http/auth.rs",
        "use crate::{oauth::store::Store, world::World};\n// crate::agent::x\n",
    );
    write("journal.rs", "mod redact;\n");
    write(
        "journal/redact.rs",
        "pub fn f() { crate::agent::is_agent_path(); let _ = \"crate::oauth\"; }\n",
    );
    let found = ground_floor_edges_into_surfaces(&src);
    // The same files naming only the world (not a surface): nothing to report.
    write("http/auth.rs", "use crate::world::World;\n");
    write("journal/redact.rs", "pub fn f() {}\n");
    let after = ground_floor_edges_into_surfaces(&src);
    let _ = fs::remove_dir_all(&dir);
    assert_eq!(
        found,
        [
            "http/auth.rs -> oauth/store.rs",
            "journal/redact.rs -> agent.rs"
        ],
        "comments and strings are no edges, the world is no surface"
    );
    assert!(after.is_empty(), "{after:?}");
}

#[test]
fn no_source_file_is_over_800_lines() {
    let mut long = Vec::new();
    for src in crate_sources() {
        for path in rust_files(&src) {
            let lines = read(&path).lines().count();
            if lines > MAX_LINES && !is_test_file(&src, &path) {
                long.push(format!("{} ({lines} lines)", path.display()));
            }
        }
    }
    assert!(
        long.is_empty(),
        "source files over {MAX_LINES} lines; split each by concern:\n{}",
        long.join("\n")
    );
}

/// The checker must see the cycles it exists to catch, or a passing run proves nothing.
#[test]
fn the_checker_finds_a_cycle_through_a_re_export_and_ignores_comments_and_strings() {
    let dir = std::env::temp_dir().join(format!("source-layout-{}", std::process::id()));
    let src = dir.join("src");
    fs::create_dir_all(src.join("a")).expect("a temp dir");
    let write = |name: &str, text: &str| fs::write(src.join(name), text).expect("a temp file");
    write(
        "lib.rs",
        "mod a;\nmod b;\npub use a::Thing;\npub use b::f;\n",
    );
    write(
        "a.rs",
        "mod child;\npub use child::Thing;\n// crate::b::f\nconst S: &str = \"crate::b\";\n",
    );
    write(
        "a/child.rs",
        "pub struct Thing;\n#[cfg(test)]\nmod tests {\n    use super::super::Other;\n}\n",
    );
    write(
        "b.rs",
        "use crate::{a::{self, Thing as T}, Thing};\npub fn f() { let _ = '{'; crate::a::X; }\n",
    );
    let cycles = describe_cycles(&src);
    let text = cycles.join("\n");
    assert_eq!(cycles.len(), 2, "{text}");
    assert!(text.contains("CYCLE among: a.rs, a/child.rs\n"), "{text}");
    assert!(text.contains("a/child.rs -> a.rs"), "{text}");
    assert!(text.contains("CYCLE among: lib.rs, b.rs\n"), "{text}");
    assert!(text.contains("b.rs -> lib.rs"), "{text}");
    assert!(
        !text.contains("a.rs -> b.rs"),
        "comments and strings are no edges: {text}"
    );

    // The same files with the re-export and the test's `super::super` gone: no cycle.
    write("a/child.rs", "pub struct Thing;\n");
    write("b.rs", "use crate::a::Thing as T;\npub fn f() {}\n");
    let after = describe_cycles(&src);
    let _ = fs::remove_dir_all(&dir);
    assert!(after.is_empty(), "{}", after.join("\n"));
}

/// Each crate's `tests/*.rs` files are modules of `tests/main.rs` (`autotests = false`), so a
/// file without its `mod` line there would compile into nothing and its tests would never run.
#[test]
fn every_test_file_is_a_module_of_its_crates_test_binary() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    for tests in [
        manifest.join("tests"),
        manifest.join("../conformance/tests"),
    ] {
        let main = read(&tests.join("main.rs"));
        let declared: BTreeSet<&str> = main
            .lines()
            .filter_map(|line| line.strip_prefix("mod ")?.strip_suffix(';'))
            .collect();
        let entries =
            fs::read_dir(&tests).unwrap_or_else(|e| panic!("cannot list {}: {e}", tests.display()));
        let mut missing = Vec::new();
        for entry in entries {
            let path = entry.expect("directory entry").path();
            let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
                continue;
            };
            let is_module =
                path.extension().is_some_and(|ext| ext == "rs") || path.join("mod.rs").exists();
            if is_module && stem != "main" && !declared.contains(stem) {
                missing.push(path.display().to_string());
            }
        }
        assert!(
            missing.is_empty(),
            "add `mod NAME;` to {} for: {missing:?}",
            tests.join("main.rs").display()
        );
    }
}
