import type { Reporter, TestModule } from "vitest/node"

/**
 * Ends a test run with one plain closing line, `tests: N passed, N failed[, N skipped]`, that any
 * CI log reader can count without knowing vitest's own summary format.
 */
export default class SummaryReporter implements Reporter {
  private modules: ReadonlyArray<TestModule> = []

  onTestRunEnd(testModules: ReadonlyArray<TestModule>) {
    this.modules = testModules
  }

  // Printed from the last hook vitest calls, after its own summary, so it is the closing line.
  onFinished() {
    const testModules = this.modules
    let passed = 0
    let failed = 0
    let skipped = 0
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state
        if (state === "passed") passed++
        else if (state === "failed") failed++
        else skipped++
      }
      if (module.state() === "failed" && module.children.size === 0) failed++
    }
    const tail = skipped > 0 ? `, ${skipped} skipped` : ""
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed${tail}\n`)
  }
}
