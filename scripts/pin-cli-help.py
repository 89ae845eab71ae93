# Rewrites Tests/StrataCLITests/HelpTextTests.swift from the built strata (.build/debug/strata, run `swift build` first):
# every subcommand's --help at 80 columns. Review the diff: a help change must be intended.
import subprocess, os
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
env=dict(os.environ, COLUMNS="80")
cmds=["", "plan","apply","dump","version","migrate","status","new","check","rekey","history","verify","lint","squash","generate","generate swift","doctor","restore","upgrade","upgrade status"]
out=['''import Foundation
import Testing
import StrataTestSupport

/// Every subcommand's `--help`, pinned (as swift-argument-parser's own examples do): a change
/// to an option, its help or the usage shows up here and must be made on purpose (and the
/// README's command-line reference updated with it). Run at 80 columns; `python3 scripts/pin-cli-help.py` rewrites this file.
@Suite("Help text")
struct HelpTextTests {
    private func help(_ command: [String]) throws -> String {
        let r = try ChildProcess.run("strata", command + ["--help"], environment: ["COLUMNS": "80"])
        #expect(r.exitCode == 0, "\\(r)")
        #expect(r.stderr == "")
        return r.stdout
    }
''']
for c in cmds:
    args=c.split(" ") if c else []
    text=subprocess.run([".build/debug/strata"]+args+["--help"],env=env,capture_output=True,text=True).stdout
    assert '"""' not in text and '\\' not in text, c
    fn = "root" if not c else args[0] + "".join(a.capitalize() for a in args[1:])
    lines=text.split("\n")
    body="\n".join(("        "+l) if l else "" for l in lines)
    arg = "[String]()" if not c else "[" + ", ".join(f'"{a}"' for a in args) + "]"
    out.append(f'''
    @Test func {fn}Help() throws {{
        #expect(try help({arg}) == """
{body}
        """)
    }}
''')
out.append("}\n")
open("Tests/StrataCLITests/HelpTextTests.swift","w").write("".join(out))
# The file is checked by `scripts/format.sh --lint` like every other: write it formatted.
import subprocess
subprocess.run(["swift", "format", "format", "--in-place", "Tests/StrataCLITests/HelpTextTests.swift"], check=True)
