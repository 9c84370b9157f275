import { assert, describe, it } from "@effect/vitest"
import { echoOutput, printedBy, printfOutput } from "../src/internal/printed.js"

// What a pipe feeds the next stage is read from `echo`/`printf` exactly as bash prints it (ADR 0219).
describe("printed text", () => {
  it("printf fills conversions in turn and reuses the format while arguments remain", () => {
    assert.strictEqual(printfOutput("%s\\n", ["!rm -rf /"]), "!rm -rf /\n")
    assert.strictEqual(printfOutput("%s\\n", ["a", "b"]), "a\nb\n")
    assert.strictEqual(printfOutput("%s-%s;", ["a", "b", "c"]), "a-b;c-;")
    assert.strictEqual(printfOutput("x %%%d\\t%5s|%-3s|", ["42", "ab", "c"]), "x %42\t   ab|c  |")
    assert.strictEqual(printfOutput("no conversion\\n", ["ignored"]), "no conversion\n")
    assert.strictEqual(printfOutput("%b", ["rm -rf \\0057\\cignored"]), "rm -rf /")
    assert.strictEqual(printfOutput("\\x72m \\055rf /", []), "rm -rf /")
    assert.strictEqual(printfOutput("a\\qb", []), "a\\qb")
  })

  it("what printf does that the engine does not reproduce is unknown", () => {
    for (
      const [format, args] of [["%q", ["x"]], ["%*s", ["3", "x"]], ["%d", ["x"]], ["%", []], ["%b", ["\\101"]]] as const
    ) {
      assert.isNull(printfOutput(format, args), format)
    }
  })

  it("echo reads its leading options as bash's builtin does", () => {
    assert.strictEqual(echoOutput(["rm", "-rf", "/"]), "rm -rf /\n")
    assert.strictEqual(echoOutput(["-n", "x"]), "x")
    assert.strictEqual(echoOutput(["-e", "rm -rf \\x2f"]), "rm -rf /\n")
    assert.strictEqual(echoOutput(["-E", "a\\nb"]), "a\\nb\n")
    assert.strictEqual(echoOutput(["-e", "a\\cb"]), "a")
    assert.strictEqual(echoOutput(["x", "-n"]), "x -n\n")
  })

  it("only echo and printf print literal text", () => {
    assert.strictEqual(printedBy(["/bin/echo", "hi"]), "hi\n")
    assert.strictEqual(printedBy(["printf", "--", "%s", "x"]), "x")
    assert.isNull(printedBy(["printf", "-v", "x", "%s", "y"]))
    assert.isNull(printedBy(["cat", "x"]))
  })
})
