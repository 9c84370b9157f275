import { describe } from "@effect/vitest"
import { conformance } from "./conformance/suite.js"

describe("xcheck conformance", () => {
  conformance("sequences-shared.jsonl")
})
