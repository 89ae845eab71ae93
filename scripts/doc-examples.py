#!/usr/bin/env python3
"""Every ```swift block of the project's Markdown pages, compiled as its own file (and run).

Pages: README.md, every other *.md of the repository (ARCHITECTURE.md, Tests/README.md,
Benchmarks/README.md, ...) and the DocC catalogs (Sources/*/*.docc/*.md); hidden folders
(.build, .git, ...) and Tests/DocExamples are left out.

Each block becomes one file of the DocExamples target (Tests/DocExamples/<Page>_<n>.swift)
holding ONLY the imports the block shows (imports are per file in Swift, and the target builds
with MemberImportVisibility, so a block that uses `Date` without `import Foundation` fails to
compile), its code inside `func example_<Page>_<n>() async throws { ... }`. main.swift lists
them and runs one by name: DocExamplesTests runs every complete program in an empty directory
and compares what it prints with what its page says.

A block is a complete program unless an HTML comment right before it (blank lines and other
markers may come between) says otherwise. The markers (`doc-example:` or the older
`readme-example:` prefix):

  <!-- doc-example: fragment(db, note) -->  uses names from the text around it: compiled after
        the named preludes (scripts/doc-example-preludes.swift: imports + declarations), and run
        (it must not throw; its output is not checked); with `no-run (reason)` too, not run
  <!-- doc-example: declarations -->       type/function declarations needing file scope
        (static stored properties, nested protocols): placed in `enum Example_<Page>_<n> { }`
  <!-- doc-example: skip (reason) -->      not compiled: a Package.swift manifest, code that
        shows a compile error on purpose
  <!-- doc-example: no-run (reason) -->    a complete program compiled but not run (it needs a
        key, a server, a cipher-capable SQLite...)
  <!-- doc-example: output
  exact stdout, line by line
  -->                                      what the program prints; a complete program that
        calls print( must have this marker (or no-run)

  scripts/doc-examples.sh           rewrite Tests/DocExamples
  scripts/doc-examples.sh --check   exit 1 if Tests/DocExamples is not what the pages give
"""
import os
import re
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = "Tests/DocExamples"
PRELUDES = "scripts/doc-example-preludes.swift"
MARKER = re.compile(r"^\s*<!--\s*(?:doc|readme)-example:\s*(.*?)\s*(-->)?\s*$")
HELP = (
    "Mark the block in its page with an HTML comment right before it:\n"
    "  <!-- doc-example: fragment(db) -->      it uses names from around it (preludes: "
    + PRELUDES
    + ")\n"
    "  <!-- doc-example: output\n  what it prints\n  -->                          a complete program's exact output\n"
    "  <!-- doc-example: no-run (why) -->      a complete program that is compiled but not run\n"
    "  <!-- doc-example: declarations -->      declarations that need file scope\n"
    "  <!-- doc-example: skip (why) -->        not Swift program code (a manifest)\n"
    "then run scripts/doc-examples.sh (the rules: Tests/README.md, \"Documentation examples\")."
)


class Failure(Exception):
    pass


def pages(root):
    found = []
    for directory, subdirs, files in os.walk(root):
        rel = os.path.relpath(directory, root)
        subdirs[:] = sorted(
            d for d in subdirs if not d.startswith(".") and os.path.join(rel, d).lstrip("./") != OUT
        )
        for name in sorted(files):
            if name.endswith(".md"):
                found.append(os.path.normpath(os.path.join(rel, name)))
    return sorted(found, key=lambda p: (p != "README.md", p))


def page_id(path):
    base = os.path.splitext(os.path.basename(path))[0]
    parent = os.path.basename(os.path.dirname(path))
    if base == "README" and parent:
        base = parent + "README"
    return re.sub(r"[^A-Za-z0-9]", "", base) or "Page"


def read_preludes(root):
    preludes = {}
    name = None
    with open(os.path.join(root, PRELUDES), encoding="utf-8") as f:
        for line in f.read().splitlines():
            m = re.match(r"^// prelude: ([A-Za-z][A-Za-z0-9_-]*)", line)
            if m:
                name = m.group(1)
                preludes[name] = {"imports": [], "body": []}
            elif name is not None:
                if re.match(r"^import \w+\s*$", line):
                    preludes[name]["imports"].append(line.strip())
                else:
                    preludes[name]["body"].append(line)
    for p in preludes.values():
        while p["body"] and not p["body"][-1].strip():
            p["body"].pop()
    return preludes


def parse_marker(text, where):
    """One marker's text (without the comment syntax) -> (key, value)."""
    m = re.match(r"^skip\s*\((.+)\)$", text) or re.match(r"^skip\s+(.+)$", text)
    if m:
        return "skip", m.group(1)
    m = re.match(r"^no-run\s*\((.+)\)$", text)
    if m:
        return "no-run", m.group(1)
    m = re.match(r"^fragment\s*\(([^)]*)\)$", text)
    if m:
        names = [n.strip() for n in m.group(1).split(",") if n.strip()]
        if not names:
            raise Failure(f"{where}: `fragment()` names no prelude\n{HELP}")
        return "fragment", names
    if text in ("declarations", "top-level"):
        return ("declarations" if text == "declarations" else "program"), True
    raise Failure(f"{where}: unknown marker `{text}`\n{HELP}")


def blocks(root, path):
    """The ```swift blocks of one page, with their markers."""
    with open(os.path.join(root, path), encoding="utf-8") as f:
        lines = f.read().splitlines()
    found = []
    markers = {}
    heading = ""
    fence = None  # the indentation + backticks of an open non-swift fence
    i = 0
    while i < len(lines):
        line = lines[i]
        where = f"{path}:{i + 1}"
        if fence is not None:
            if line.strip().startswith("```"):
                fence = None
            i += 1
            continue
        m = re.match(r"^(\s*)```swift\s*$", line)
        if m:
            indent = len(m.group(1))
            start = i + 1
            body = []
            i += 1
            while i < len(lines) and not re.match(r"^\s*```\s*$", lines[i]):
                text = lines[i]
                body.append(text[indent:] if text[:indent].strip() == "" else text)
                i += 1
            if i >= len(lines):
                raise Failure(f"{path}:{start}: the ```swift block is never closed")
            found.append({"path": path, "line": start, "heading": heading, "lines": body, "markers": markers})
            markers = {}
            i += 1
            continue
        if line.strip().startswith("```"):
            fence = line
            i += 1
            continue
        mm = MARKER.match(line)
        if mm:
            text = mm.group(1)
            if text.startswith("output"):
                if mm.group(2):
                    raise Failure(f"{where}: write the expected output on the lines after `doc-example: output`")
                out = []
                first = text[len("output"):].strip()
                if first:
                    out.append(first)
                i += 1
                while i < len(lines) and lines[i].strip() != "-->":
                    out.append(lines[i])
                    i += 1
                if i >= len(lines):
                    raise Failure(f"{where}: the `doc-example: output` comment is never closed (a line `-->`)")
                markers["output"] = "\n".join(out) + "\n" if out else ""
            else:
                if not mm.group(2):
                    raise Failure(f"{where}: a marker ends on its own line with `-->`")
                key, value = parse_marker(text, where)
                markers[key] = value
            i += 1
            continue
        if line.strip():
            markers = {}
            h = re.match(r"^#+\s+(.*)$", line)
            if h:
                heading = h.group(1).strip()
        i += 1
    return found


def swift_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def indent(lines, by="    "):
    return [(by + l) if l.strip() else "" for l in lines]


def generate(root):
    preludes = read_preludes(root)
    files = {}
    entries = []
    paths = pages(root)
    ids = {}
    for path in paths:
        pid = page_id(path)
        if any(page_id(other) == pid for other in paths if other != path):
            # Two pages of one name (Overview.md in two catalogs): the folder tells them apart.
            pid = re.sub(r"[^A-Za-z0-9]", "", os.path.dirname(path).replace(".docc", "")) + pid
        if pid in ids.values():
            raise Failure(f"{path} and {[p for p, i in ids.items() if i == pid][0]} give the same example names")
        ids[path] = pid
    for path in paths:
        pid = ids[path]
        for n, block in enumerate(blocks(root, path), start=1):
            name = f"{pid}_{n}"
            where = f"{path}:{block['line']}"
            mk = block["markers"]
            # No line number here (main.swift has it): an edit above a block changes only main.swift.
            title = path + (f" ({block['heading']})" if block["heading"] else "")
            if "skip" in mk:
                entries.append((name, path, block["line"], "skip", None, mk["skip"]))
                continue
            imports = []
            code = []
            for l in block["lines"]:
                if re.match(r"^import \w+\s*$", l):
                    if any(c.strip() and not c.strip().startswith("//") for c in code):
                        raise Failure(f"{where}: an `import` after code; move it to the top of the block")
                    imports.append(l.strip())
                else:
                    code.append(l)
            while code and not code[0].strip():
                code.pop(0)
            header = [f"// Generated by scripts/doc-examples.sh from {title}: do not edit."]
            kinds = [k for k in ("fragment", "declarations") if k in mk]
            if len(kinds) > 1 or (kinds and "output" in mk) or ("declarations" in mk and "no-run" in mk):
                raise Failure(f"{where}: the markers {sorted(mk)} do not go together\n{HELP}")
            if "declarations" in mk:
                header.append("// Declarations, at file scope in a namespace, with only the imports the block shows.")
                text = header + imports + ["", f"enum Example_{name} {{"] + indent(code) + ["}"]
                entries.append((name, path, block["line"], "declarations", None, None))
            elif "fragment" in mk:
                names = mk["fragment"]
                for p in names:
                    if p not in preludes:
                        raise Failure(
                            f"{where}: unknown prelude `{p}` (known: {', '.join(sorted(preludes))}; "
                            f"add one to {PRELUDES})"
                        )
                runs = "no-run" not in mk
                header.append(
                    f"// A fragment: it assumes the prelude{'s' if len(names) > 1 else ''} "
                    f"{', '.join(names)} ({PRELUDES}); "
                    + ("compiled, and run (its output is not checked)." if runs else f"compiled, not run ({mk['no-run']}).")
                )
                all_imports = []
                for imp in [i for p in names for i in preludes[p]["imports"]] + imports:
                    if imp not in all_imports:
                        all_imports.append(imp)
                body = []
                for p in names:
                    body += [f"// prelude {p}"] + preludes[p]["body"]
                body += ["", "// the block"] + ["do {"] + indent(code) + ["}"]
                text = (
                    header
                    + all_imports
                    + ["", f"func example_{name}() async throws {{"]
                    + indent(body)
                    + ["}"]
                )
                entries.append((name, path, block["line"], "fragment" if runs else "fragment-no-run", None, mk.get("no-run")))
            else:
                runs = "no-run" not in mk
                if runs and "output" not in mk and re.search(r"\bprint\(", "\n".join(code)):
                    raise Failure(
                        f"{where}: a complete program that prints, with no `doc-example: output` marker "
                        f"saying what it prints\n{HELP}"
                    )
                header.append(
                    "// A complete program, with only the imports the block shows"
                    + ("; run by DocExamplesTests." if runs else f"; not run ({mk['no-run']}).")
                )
                text = header + imports + ["", f"func example_{name}() async throws {{"] + indent(code) + ["}"]
                kind = "program" if runs else "no-run"
                entries.append((name, path, block["line"], kind, mk.get("output") if runs else None, mk.get("no-run")))
            files[f"{name}.swift"] = "\n".join(text) + "\n"

    main = [
        "// Generated by scripts/doc-examples.sh from the ```swift blocks of the Markdown pages: do not edit.",
        "// `DocExamples --list`: every example as JSON; `DocExamples NAME`: runs that example.",
        "import Foundation",
        "",
        "struct Example: Encodable {",
        "    var name: String",
        "    var page: String",
        "    var line: Int",
        "    /// program (run, output checked), no-run, fragment (run, output not checked), fragment-no-run,",
        "    /// declarations or skip.",
        "    var kind: String",
        "    /// What a program prints, from its page's `doc-example: output` marker.",
        "    var output: String?",
        "    var reason: String?",
        "    var run: (@Sendable () async throws -> Void)?",
        "    enum CodingKeys: CodingKey { case name, page, line, kind, output, reason }",
        "}",
        "",
        "let examples: [Example] = [",
    ]
    for name, path, line, kind, output, reason in entries:
        run = f"example_{name}" if kind in ("program", "no-run", "fragment", "fragment-no-run") else "nil"
        main.append(
            f"    Example(name: {swift_string(name)}, page: {swift_string(path)}, line: {line}, "
            f"kind: {swift_string(kind)}, output: {swift_string(output) if output is not None else 'nil'}, "
            f"reason: {swift_string(reason) if reason is not None else 'nil'}, run: {run}),"
        )
    main += [
        "]",
        "",
        "let arguments = Array(CommandLine.arguments.dropFirst())",
        'if arguments == ["--list"] {',
        "    let encoder = JSONEncoder()",
        "    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]",
        '    print(String(decoding: try encoder.encode(examples), as: UTF8.self))',
        "} else if arguments.count == 1, let example = examples.first(where: { $0.name == arguments[0] }),",
        "    let run = example.run",
        "{",
        "    do {",
        "        try await run()",
        "    } catch {",
        '        FileHandle.standardError.write(Data("\\(example.page):\\(example.line): \\(error)\\n".utf8))',
        "        exit(1)",
        "    }",
        "} else {",
        "    FileHandle.standardError.write(",
        '        Data("usage: DocExamples --list | DocExamples NAME (a program or fragment of --list)\\n".utf8))',
        "    exit(2)",
        "}",
    ]
    files["main.swift"] = "\n".join(main) + "\n"
    return files


def write(files, directory):
    os.makedirs(directory, exist_ok=True)
    for name in os.listdir(directory):
        if name.endswith(".swift") and name not in files:
            os.remove(os.path.join(directory, name))
    for name, text in files.items():
        target = os.path.join(directory, name)
        if os.path.exists(target):
            with open(target, encoding="utf-8") as f:
                if f.read() == text:
                    continue
        with open(target, "w", encoding="utf-8") as f:
            f.write(text)


def main():
    check = sys.argv[1:] == ["--check"]
    if sys.argv[1:] not in ([], ["--check"]):
        print("usage: scripts/doc-examples.sh [--check]", file=sys.stderr)
        return 2
    try:
        files = generate(ROOT)
    except Failure as e:
        print(f"doc examples: {e}", file=sys.stderr)
        return 1
    out = os.path.join(ROOT, OUT)
    if check:
        existing = {n for n in os.listdir(out) if n.endswith(".swift")} if os.path.isdir(out) else set()
        stale = []
        for name in sorted(existing | set(files)):
            path = os.path.join(out, name)
            if name not in files:
                stale.append(f"{OUT}/{name}: no longer given by any page")
            elif name not in existing:
                stale.append(f"{OUT}/{name}: missing")
            else:
                with open(path, encoding="utf-8") as f:
                    if f.read() != files[name]:
                        stale.append(f"{OUT}/{name}: differs")
        if not stale:
            return 0
        print(
            f"{OUT} is not what the Markdown pages give: run scripts/doc-examples.sh and commit the result",
            file=sys.stderr,
        )
        for s in stale:
            print("  " + s, file=sys.stderr)
        with tempfile.TemporaryDirectory() as tmp:
            write(files, tmp)
            import subprocess

            subprocess.run(["diff", "-ruN", out, tmp], stdout=sys.stderr)
        return 1
    write(files, out)
    print(f"wrote {OUT} ({len(files) - 1} examples)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
